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
	 * The response schema: every field get_item() returns.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		if ( $this->schema ) {
			return $this->add_additional_fields_schema( $this->schema );
		}
		$string       = array( 'type' => 'string' );
		$uri          = array(
			'type'   => 'string',
			'format' => 'uri',
		);
		$strings      = array(
			'type'  => 'array',
			'items' => $string,
		);
		$this->schema = array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-info',
			'type'       => 'object',
			'properties' => array(
				'name'          => $string + array( 'description' => __( 'Site title.', 'sitewright-connector' ) ),
				'description'   => $string + array( 'description' => __( 'Site tagline.', 'sitewright-connector' ) ),
				'homeUrl'       => $uri,
				'siteUrl'       => $uri,
				'restUrl'       => $uri,
				'adminUrl'      => $uri,
				'language'      => $string,
				'timezone'      => $string,
				'wordpress'     => $string + array( 'description' => __( 'WordPress version.', 'sitewright-connector' ) ),
				'php'           => $string + array( 'description' => __( 'PHP version.', 'sitewright-connector' ) ),
				'plugin'        => array(
					'type'       => 'object',
					'properties' => array( 'version' => $string ),
				),
				'multisite'     => array( 'type' => 'boolean' ),
				'permalinks'    => array(
					'type'        => 'boolean',
					'description' => __( 'Whether pretty permalinks are on (the REST API answers at /wp-json/).', 'sitewright-connector' ),
				),
				'theme'         => array(
					'type'       => 'object',
					'properties' => array(
						'name'         => $string,
						'stylesheet'   => $string,
						'template'     => $string,
						'version'      => $string,
						'isBlockTheme' => array(
							'type'        => 'boolean',
							'description' => __( 'Whether the active theme is a block theme (wp_is_block_theme()).', 'sitewright-connector' ),
						),
					),
				),
				'pageBuilder'   => array(
					'type' => 'string',
					'enum' => array_keys( Sitewright_Site_Info::builders() ),
				),
				'pageBuilders'  => self::page_builders_schema(),
				'activePlugins' => $strings,
				'features'      => array(
					'type'        => 'array',
					'description' => __( 'Routes this plugin adds beyond core\'s, when the site allows them.', 'sitewright-connector' ),
					'items'       => array(
						'type' => 'string',
						'enum' => Sitewright_Site_Info::FEATURES,
					),
				),
				'seo'           => self::seo_schema(),
				'builders'      => self::builders_schema(),
				'mediaMaxBytes' => array(
					'type'        => 'integer',
					'description' => __( 'The largest file POST /sitewright/v1/media takes, in bytes.', 'sitewright-connector' ),
				),
				'token'         => self::token_schema(),
			),
		);
		return $this->add_additional_fields_schema( $this->schema );
	}

	/**
	 * The schema of `builders`: the page builders whose pages Sitewright edits element by element.
	 *
	 * @return array<string, mixed>
	 */
	private static function builders_schema(): array {
		return array(
			'type'        => 'array',
			'description' => __( 'The page builders whose pages Sitewright edits element by element, with their versions.', 'sitewright-connector' ),
			'items'       => array(
				'type'       => 'object',
				'properties' => array(
					'name'    => array(
						'type' => 'string',
						'enum' => array( 'elementor' ),
					),
					'version' => array( 'type' => 'string' ),
				),
			),
		);
	}

	/**
	 * The schema of `pageBuilders`: each builder found and the evidence for it.
	 *
	 * @return array<string, mixed>
	 */
	private static function page_builders_schema(): array {
		$string = array( 'type' => 'string' );
		return array(
			'type'  => 'array',
			'items' => array(
				'type'       => 'object',
				'properties' => array(
					'id'       => array(
						'type' => 'string',
						'enum' => array_keys( Sitewright_Site_Info::builders() ),
					),
					'name'     => $string,
					'evidence' => array(
						'type'  => 'array',
						'items' => array(
							'type' => 'string',
							'enum' => array( 'plugin', 'theme', 'content', 'meta', 'editor' ),
						),
					),
				),
			),
		);
	}

	/**
	 * The schema of `seo`: the active SEO plugin, or null.
	 *
	 * @return array<string, mixed>
	 */
	private static function seo_schema(): array {
		$string  = array( 'type' => 'string' );
		$strings = array(
			'type'  => 'array',
			'items' => $string,
		);
		return array(
			'type'        => array( 'object', 'null' ),
			'description' => __( 'The active SEO plugin whose fields Sitewright reads (and, when writable, writes), or null.', 'sitewright-connector' ),
			'properties'  => array(
				'plugin'   => array(
					'type' => 'string',
					'enum' => array_keys( Sitewright_Item_Kind_Seo::plugins() ),
				),
				'name'     => $string,
				'version'  => $string,
				'writable' => array( 'type' => 'boolean' ),
				'fields'   => $strings,
			),
		);
	}

	/**
	 * The schema of `token`: the calling token's last four characters, scopes, creation and capabilities.
	 *
	 * @return array<string, mixed>
	 */
	private static function token_schema(): array {
		$string  = array( 'type' => 'string' );
		$strings = array(
			'type'  => 'array',
			'items' => $string,
		);
		return array(
			'type'       => 'object',
			'properties' => array(
				'lastFour'     => $string,
				'scopes'       => array(
					'type'  => 'array',
					'items' => array(
						'type' => 'string',
						'enum' => Sitewright_Scopes::ALL,
					),
				),
				'createdAt'    => array(
					'type'   => array( 'string', 'null' ),
					'format' => 'date-time',
				),
				'capabilities' => $strings,
			),
		);
	}
}
