<?php
/**
 * POST /sitewright/v1/media: a file the owner attached in Sitewright's chat becomes an attachment, not used by
 * anything yet (so not visible). The body is JSON with the file base64-encoded: a signed request's body must be the
 * raw bytes that were hashed, never a multipart form PHP parses behind its back (docs/signing.md).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Media uploads.
 */
final class Sitewright_REST_Media_Controller extends Sitewright_REST_Controller {

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'media';

	/**
	 * Registers POST /media.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base,
			array(
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'create_item' ),
					'permission_callback' => array( $this, 'create_item_permissions_check' ),
					'args'                => array(
						'filename' => array(
							'type'      => 'string',
							'maxLength' => 200,
						),
						'data'     => array(
							'description' => __( 'The file, base64-encoded.', 'sitewright-connector' ),
							'type'        => 'string',
						),
						'title'    => array(
							'type'      => 'string',
							'maxLength' => 200,
						),
						'alt'      => array(
							'type'      => 'string',
							'maxLength' => 500,
						),
						'caption'  => array(
							'type'      => 'string',
							'maxLength' => 1000,
						),
					),
				),
				'schema' => array( $this, 'get_public_item_schema' ),
			)
		);
	}

	/**
	 * Signed, media:write, and the site lets the agent user upload files.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return true|WP_Error
	 */
	public function create_item_permissions_check( $request ) {
		$allowed = $this->signed_permission( $request );
		if ( true !== $allowed ) {
			return $allowed;
		}
		if ( ! current_user_can( 'upload_files' ) ) {
			return new WP_Error( 'rest_cannot_create', __( 'This site does not let Sitewright upload files.', 'sitewright-connector' ), array( 'status' => 403 ) );
		}
		return true;
	}

	/**
	 * Makes the attachment.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function create_item( $request ) {
		$bytes = base64_decode( (string) $request->get_param( 'data' ), true ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_decode
		if ( false === $bytes || '' === $bytes ) {
			return new WP_Error( 'rest_invalid_param', __( 'data must be the file, base64-encoded.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$max = Sitewright_Media::max_bytes();
		if ( strlen( $bytes ) > $max ) {
			return new WP_Error(
				'sitewright_too_large',
				__( 'This file is larger than the site accepts.', 'sitewright-connector' ),
				array(
					'status'   => 413,
					'maxBytes' => $max,
				)
			);
		}
		$filename = sanitize_file_name( (string) $request->get_param( 'filename' ) );
		if ( '' === $filename ) {
			return new WP_Error( 'rest_invalid_param', __( 'Give the file a name.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$fields = array(
			'title'   => sanitize_text_field( (string) $request->get_param( 'title' ) ),
			'alt'     => sanitize_text_field( (string) $request->get_param( 'alt' ) ),
			'caption' => sanitize_text_field( (string) $request->get_param( 'caption' ) ),
		);
		$result = Sitewright_Media::create( $filename, $bytes, $fields );
		if ( is_wp_error( $result ) ) {
			return $result;
		}
		$response = rest_ensure_response( $result );
		$response->set_status( 201 );
		return $response;
	}

	/**
	 * The response schema.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-media',
			'type'       => 'object',
			'properties' => array(
				'ref'     => array( 'type' => 'string' ),
				'action'  => array( 'type' => 'string' ),
				'title'   => array( 'type' => 'string' ),
				'before'  => array( 'type' => 'null' ),
				'after'   => array( 'type' => 'object' ),
				'version' => array( 'type' => 'string' ),
				'media'   => array(
					'type'       => 'object',
					'properties' => array(
						'id'     => array( 'type' => 'integer' ),
						'url'    => array( 'type' => 'string' ),
						'mime'   => array( 'type' => 'string' ),
						'width'  => array( 'type' => array( 'integer', 'null' ) ),
						'height' => array( 'type' => array( 'integer', 'null' ) ),
						'alt'    => array( 'type' => 'string' ),
					),
				),
			),
		);
	}
}
