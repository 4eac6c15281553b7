<?php
/**
 * GET /sitewright/v1/info: the site's facts and what the calling token may do.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Site info.
 */
final class Sitewright_REST_Info_Controller extends Sitewright_REST_Controller {

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'info';

	/**
	 * Registers GET /info.
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
	 * The site's facts plus the token's scopes and capabilities.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response
	 */
	public function get_item( $request ) {
		$token = $this->token();
		$data  = Sitewright_Site_Info::collect();

		$data['token'] = array(
			'lastFour'     => $token['last_four'] ?? '',
			'scopes'       => $token['scopes'] ?? array(),
			'createdAt'    => isset( $token['created_at'] ) ? gmdate( 'c', (int) $token['created_at'] ) : null,
			'capabilities' => Sitewright_Scopes::capabilities( $token['scopes'] ?? array() ),
		);
		return rest_ensure_response( $data );
	}

	/**
	 * The response schema.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-info',
			'type'       => 'object',
			'properties' => array(
				'name'         => array( 'type' => 'string' ),
				'homeUrl'      => array(
					'type'   => 'string',
					'format' => 'uri',
				),
				'restUrl'      => array(
					'type'   => 'string',
					'format' => 'uri',
				),
				'wordpress'    => array( 'type' => 'string' ),
				'php'          => array( 'type' => 'string' ),
				'theme'        => array( 'type' => 'object' ),
				'pageBuilder'  => array( 'type' => 'string' ),
				'pageBuilders' => array( 'type' => 'array' ),
				'token'        => array( 'type' => 'object' ),
			),
		);
	}
}
