<?php
/**
 * GET /sitewright/v1/preflight: checks with pass/warn/fail and a fix for each.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Preflight.
 */
final class Sitewright_REST_Preflight_Controller extends Sitewright_REST_Controller {

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'preflight';

	/**
	 * Registers GET /preflight.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base,
			array(
				array(
					'methods'             => WP_REST_Server::READABLE,
					'callback'            => array( $this, 'get_item' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(),
				),
			)
		);
	}

	/**
	 * Runs the checks against this signed request.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response
	 */
	public function get_item( $request ) {
		$result              = Sitewright_Preflight::run( Sitewright_Auth::context() );
		$result['checkedAt'] = gmdate( 'c' );
		return rest_ensure_response( $result );
	}
}
