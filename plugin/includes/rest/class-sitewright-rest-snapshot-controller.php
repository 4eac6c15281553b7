<?php
/**
 * GET /sitewright/v1/export and POST /sitewright/v1/import: copying chosen content into a sandbox.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Snapshots.
 */
final class Sitewright_REST_Snapshot_Controller extends Sitewright_REST_Controller {

	/** At most this many ids per export. */
	public const MAX_IDS = 200;

	/**
	 * Registers both routes.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/export',
			array(
				array(
					'methods'             => WP_REST_Server::READABLE,
					'callback'            => array( $this, 'export' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(
						'ids' => array(
							'description' => __( 'Comma-separated post or page ids to export.', 'sitewright-connector' ),
							'type'        => 'string',
							'pattern'     => '^[0-9]+(,[0-9]+)*$',
						),
					),
				),
				'schema' => array( $this, 'get_export_schema' ),
			)
		);
		register_rest_route(
			$this->namespace,
			'/import',
			array(
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'import' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(
						'format' => array(
							'description' => __( 'The snapshot format, as exported.', 'sitewright-connector' ),
							'type'        => 'string',
							'enum'        => array( Sitewright_Snapshot::FORMAT ),
						),
					),
				),
				'schema' => array( $this, 'get_import_schema' ),
			)
		);
	}

	/**
	 * Exports the chosen posts and the site's design data.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function export( $request ) {
		$raw = (string) $request->get_param( 'ids' );
		if ( '' === $raw ) {
			return new WP_Error( 'rest_missing_callback_param', __( 'Give the ids to export, e.g. ?ids=2,14.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$ids = array_map( 'intval', explode( ',', $raw ) );
		if ( count( $ids ) > self::MAX_IDS ) {
			/* translators: %d: maximum */
			return new WP_Error( 'rest_invalid_param', sprintf( __( 'Export at most %d ids at a time.', 'sitewright-connector' ), self::MAX_IDS ), array( 'status' => 400 ) );
		}
		return rest_ensure_response( Sitewright_Snapshot::export( $ids ) );
	}

	/**
	 * Imports a snapshot into this sandbox.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function import( $request ) {
		$data = $request->get_json_params();
		if ( ! is_array( $data ) ) {
			return new WP_Error( 'rest_invalid_json', __( 'Send the snapshot as a JSON body.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$result = Sitewright_Snapshot::import( $data );
		return is_wp_error( $result ) ? $result : rest_ensure_response( $result );
	}

	/**
	 * The schema of an export (what GET /export answers and POST /import reads).
	 *
	 * @return array<string, mixed>
	 */
	public function get_export_schema(): array {
		$object  = array( 'type' => 'object' );
		$objects = array(
			'type'  => 'array',
			'items' => $object,
		);
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-snapshot',
			'type'       => 'object',
			'properties' => array(
				'format'       => array(
					'type' => 'string',
					'enum' => array( Sitewright_Snapshot::FORMAT ),
				),
				'exportedAt'   => array(
					'type'   => 'string',
					'format' => 'date-time',
				),
				'source'       => array(
					'type'       => 'object',
					'properties' => array(
						'homeUrl' => array( 'type' => 'string' ),
						'name'    => array( 'type' => 'string' ),
					),
				),
				'theme'        => array(
					'type'       => 'object',
					'properties' => array(
						'stylesheet' => array( 'type' => 'string' ),
						'template'   => array( 'type' => 'string' ),
					),
				),
				'posts'        => $objects,
				'skipped'      => array(
					'type'  => 'array',
					'items' => array( 'type' => 'integer' ),
				),
				'media'        => $objects,
				'menus'        => $objects,
				'options'      => $object,
				'themeMods'    => $object,
				'customCss'    => array( 'type' => 'string' ),
				'globalStyles' => array( 'type' => array( 'string', 'null' ) ),
			),
		);
	}

	/**
	 * The schema of what POST /import answers.
	 *
	 * @return array<string, mixed>
	 */
	public function get_import_schema(): array {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-import',
			'type'       => 'object',
			'properties' => array(
				'imported' => array(
					'type'       => 'object',
					'properties' => array(
						'posts' => array( 'type' => 'integer' ),
						'media' => array( 'type' => 'integer' ),
						'menus' => array( 'type' => 'integer' ),
					),
				),
				'idMap'    => array(
					'type'                 => 'object',
					'description'          => __( 'Old post id => new post id.', 'sitewright-connector' ),
					'additionalProperties' => array( 'type' => 'integer' ),
				),
				'warnings' => array(
					'type'  => 'array',
					'items' => array( 'type' => 'string' ),
				),
			),
		);
	}
}
