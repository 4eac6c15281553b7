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
}
