<?php
/**
 * POST /sitewright/v1/revoke: the service ends the connection; the calling token stops working at once.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The connection.
 */
final class Sitewright_REST_Connection_Controller extends Sitewright_REST_Controller {

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'revoke';

	/**
	 * Registers POST /revoke.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base,
			array(
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'revoke' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(),
				),
				'schema' => array( $this, 'get_public_item_schema' ),
			)
		);
	}

	/**
	 * Deletes the calling token.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response
	 */
	public function revoke( $request ) {
		$token   = $this->token();
		$revoked = isset( $token['id'] ) && Sitewright_Credentials::revoke( (int) $token['id'] );
		return rest_ensure_response( array( 'revoked' => $revoked ) );
	}

	/**
	 * The response schema.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-revoke',
			'type'       => 'object',
			'properties' => array(
				'revoked' => array(
					'type'        => 'boolean',
					'description' => __( 'Whether the calling token was revoked by this request.', 'sitewright-connector' ),
				),
			),
		);
	}
}
