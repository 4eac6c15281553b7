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
				'schema' => array( $this, 'get_public_item_schema' ),
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

	/**
	 * The response schema: the overall status, each check, and when it ran.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		if ( $this->schema ) {
			return $this->add_additional_fields_schema( $this->schema );
		}
		$status       = array(
			'type' => 'string',
			'enum' => array( 'pass', 'warn', 'fail' ),
		);
		$this->schema = array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-preflight',
			'type'       => 'object',
			'properties' => array(
				'status'    => $status,
				'checks'    => array(
					'type'  => 'array',
					'items' => array(
						'type'       => 'object',
						'properties' => array(
							'id'      => array( 'type' => 'string' ),
							'status'  => $status,
							'message' => array( 'type' => 'string' ),
							'fix'     => array( 'type' => 'string' ),
						),
					),
				),
				'checkedAt' => array(
					'type'   => 'string',
					'format' => 'date-time',
				),
			),
		);
		return $this->add_additional_fields_schema( $this->schema );
	}
}
