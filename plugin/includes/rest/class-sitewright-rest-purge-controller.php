<?php
/**
 * POST /sitewright/v1/purge: before Sitewright looks at the live site after a write, purge the caches of the items
 * the change set touched and say which public URL shows each (Sitewright_Cache).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Purge.
 */
final class Sitewright_REST_Purge_Controller extends Sitewright_REST_Controller {

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'purge';

	/**
	 * Registers POST /purge.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base,
			array(
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'create_item' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(
						'refs' => array(
							'description' => __( 'The refs of the items a change set touched: post:<id>, option:<name>, custom_css:<stylesheet>, menu:<id>, global_styles:<stylesheet>, template_part:<slug>.', 'sitewright-connector' ),
							'type'        => 'array',
							'items'       => array( 'type' => 'string' ),
						),
					),
				),
				'schema' => array( $this, 'get_public_item_schema' ),
			)
		);
	}

	/**
	 * Purges and answers the public URLs.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function create_item( $request ) {
		$refs = $request->get_param( 'refs' );
		if ( ! is_array( $refs ) || ! $refs || count( $refs ) > Sitewright_Items::max_batch() ) {
			/* translators: %d: maximum */
			return new WP_Error( 'rest_invalid_param', sprintf( __( 'Give between 1 and %d refs.', 'sitewright-connector' ), Sitewright_Items::max_batch() ), array( 'status' => 400 ) );
		}
		foreach ( $refs as $ref ) {
			$parsed = Sitewright_Items::parse_ref( $ref );
			if ( null === $parsed || 'new' === $parsed[1] ) {
				/* translators: %s: a ref */
				return new WP_Error( 'rest_invalid_param', sprintf( __( 'Unknown ref: %s.', 'sitewright-connector' ), is_string( $ref ) ? $ref : '' ), array( 'status' => 400 ) );
			}
		}
		return rest_ensure_response( Sitewright_Cache::purge( array_values( array_map( 'strval', $refs ) ) ) );
	}

	/**
	 * The response schema.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-purge',
			'type'       => 'object',
			'properties' => array(
				'urls'   => array(
					'type'  => 'array',
					'items' => array(
						'type'       => 'object',
						'properties' => array(
							'ref'    => array( 'type' => 'string' ),
							'url'    => array( 'type' => array( 'string', 'null' ) ),
							'public' => array( 'type' => 'boolean' ),
						),
					),
				),
				'home'   => array(
					'type'   => 'string',
					'format' => 'uri',
				),
				'purged' => array(
					'type'  => 'array',
					'items' => array( 'type' => 'string' ),
				),
			),
		);
	}
}
