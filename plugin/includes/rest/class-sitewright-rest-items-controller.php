<?php
/**
 * GET and POST /sitewright/v1/items: versioned reads of the items change sets touch, and atomic conditional batch
 * writes (every change names the version it expects; a mismatch anywhere changes nothing: 409 sitewright_stale).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Items.
 */
final class Sitewright_REST_Items_Controller extends Sitewright_REST_Controller {

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'items';

	/**
	 * Registers GET and POST /items.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base,
			array(
				array(
					'methods'             => WP_REST_Server::READABLE,
					'callback'            => array( $this, 'get_items' ),
					'permission_callback' => array( $this, 'get_items_permissions_check' ),
					'args'                => array(
						'refs' => array(
							'description' => __( 'Comma-separated refs: post:<id>, option:<name>, custom_css:<stylesheet>, menu:<id>, global_styles:<stylesheet>, template_part:<slug>.', 'sitewright-connector' ),
							'type'        => 'string',
						),
					),
				),
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'create_item' ),
					'permission_callback' => array( $this, 'create_item_permissions_check' ),
					'args'                => array(
						'changes'          => array(
							'description' => __( 'The changes, applied in order, all or nothing: {ref, expect, action, fields}.', 'sitewright-connector' ),
							'type'        => 'array',
							'items'       => array( 'type' => 'object' ),
						),
						'requireInvisible' => array(
							'description' => __( 'Write nothing (409 sitewright_visible) if visitors would now see any change.', 'sitewright-connector' ),
							'type'        => 'boolean',
							'default'     => false,
						),
					),
				),
				'schema' => array( $this, 'get_public_item_schema' ),
			)
		);
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base . '/visibility',
			array(
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'get_visibility' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(
						'changes' => array(
							'description' => __( 'The changes a later POST /items would carry: {ref, expect, action, fields}.', 'sitewright-connector' ),
							'type'        => 'array',
							'items'       => array( 'type' => 'object' ),
						),
					),
				),
				'schema' => array( $this, 'get_visibility_schema' ),
			)
		);
	}

	/**
	 * Signed and scoped; each ref's kind is checked in get_items.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return true|WP_Error
	 */
	public function get_items_permissions_check( $request ) {
		return $this->signed_permission( $request );
	}

	/**
	 * Signed, and the token holds at least one write scope; each change is checked per kind in create_item.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return true|WP_Error
	 */
	public function create_item_permissions_check( $request ) {
		$allowed = $this->signed_permission( $request );
		if ( true !== $allowed ) {
			return $allowed;
		}
		$scopes = (array) Sitewright_Agent_User::scopes();
		if ( ! array_intersect( array( 'content:write', 'design:write', 'settings:write' ), $scopes ) ) {
			return new WP_Error(
				'sitewright_scope',
				__( 'This token\'s scopes do not allow this request.', 'sitewright-connector' ),
				array(
					'status'   => 403,
					'required' => array( 'content:write' ),
				)
			);
		}
		return true;
	}

	/**
	 * The current state and version of each ref.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function get_items( $request ) {
		$refs = array_values( array_filter( explode( ',', (string) $request->get_param( 'refs' ) ) ) );
		if ( ! $refs || count( $refs ) > Sitewright_Items::max_batch() ) {
			/* translators: %d: maximum */
			return new WP_Error( 'rest_invalid_param', sprintf( __( 'Give between 1 and %d refs, e.g. ?refs=post:12,option:blogname.', 'sitewright-connector' ), Sitewright_Items::max_batch() ), array( 'status' => 400 ) );
		}
		$scopes = (array) Sitewright_Agent_User::scopes();
		$items  = array();
		foreach ( $refs as $ref ) {
			$parsed = Sitewright_Items::parse_ref( $ref );
			if ( null === $parsed || 'new' === $parsed[1] ) {
				/* translators: %s: a ref */
				return new WP_Error( 'rest_invalid_param', sprintf( __( 'Unknown ref: %s.', 'sitewright-connector' ), $ref ), array( 'status' => 400 ) );
			}
			$scope = Sitewright_Items::read_scope( $parsed[0] );
			if ( ! in_array( $scope, $scopes, true ) ) {
				return new WP_Error(
					'sitewright_scope',
					__( 'This token\'s scopes do not allow reading this item.', 'sitewright-connector' ),
					array(
						'status'   => 403,
						'required' => array( $scope ),
					)
				);
			}
			$wrong_type = 'post' === $parsed[0] ? Sitewright_Items::refuse_type( (string) get_post_type( (int) $parsed[1] ) ) : null;
			if ( null !== $wrong_type ) {
				return $wrong_type;
			}
			$item = Sitewright_Items::read( $ref );
			if ( in_array( $parsed[0], array( 'post', 'seo' ), true ) && $item['exists'] && ! current_user_can( 'read_post', (int) $parsed[1] ) ) {
				return new WP_Error( 'rest_forbidden', __( 'This site does not let Sitewright read this item.', 'sitewright-connector' ), array( 'status' => 403 ) );
			}
			$items[] = $item;
		}
		return rest_ensure_response( array( 'items' => $items ) );
	}

	/**
	 * Applies a batch of changes, all or nothing, each only over the version it expects.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function create_item( $request ) {
		$changes = $request->get_param( 'changes' );
		if ( ! is_array( $changes ) || ! $changes || count( $changes ) > Sitewright_Items::max_batch() ) {
			/* translators: %d: maximum */
			return new WP_Error( 'rest_invalid_param', sprintf( __( 'Give between 1 and %d changes.', 'sitewright-connector' ), Sitewright_Items::max_batch() ), array( 'status' => 400 ) );
		}
		$scopes = (array) Sitewright_Agent_User::scopes();
		foreach ( array_values( $changes ) as $index => $change ) {
			$refused = Sitewright_Items::refuse_change( $change, $scopes );
			if ( null !== $refused ) {
				return new WP_Error(
					$refused['code'],
					$refused['message'],
					array(
						'status' => $refused['status'],
						'index'  => $index,
						'ref'    => is_array( $change ) && is_string( $change['ref'] ?? null ) ? $change['ref'] : null,
					)
				);
			}
		}
		$result = Sitewright_Items::apply_batch( array_values( $changes ), true === $request->get_param( 'requireInvisible' ) );
		if ( is_wp_error( $result ) ) {
			return $result;
		}
		return rest_ensure_response( $result );
	}

	/**
	 * Whether visitors would see each change, and where: one `{ref, visible, places, more}` per change, in order.
	 * Each item needs its kind's read scope; nothing is written.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function get_visibility( $request ) {
		$changes = $request->get_param( 'changes' );
		if ( ! is_array( $changes ) || ! $changes || count( $changes ) > Sitewright_Items::max_batch() ) {
			/* translators: %d: maximum */
			return new WP_Error( 'rest_invalid_param', sprintf( __( 'Give between 1 and %d changes.', 'sitewright-connector' ), Sitewright_Items::max_batch() ), array( 'status' => 400 ) );
		}
		$changes = array_values( $changes );
		$scopes  = (array) Sitewright_Agent_User::scopes();
		foreach ( $changes as $index => $change ) {
			$refused = $this->refuse_visibility_change( $change, $scopes );
			if ( null !== $refused ) {
				$refused->add_data(
					array_merge(
						(array) $refused->get_error_data(),
						array(
							'index' => $index,
							'ref'   => is_array( $change ) && is_string( $change['ref'] ?? null ) ? $change['ref'] : null,
						)
					)
				);
				return $refused;
			}
		}
		return rest_ensure_response( array( 'items' => array_map( array( Sitewright_Visibility::class, 'of_change' ), $changes ) ) );
	}

	/**
	 * Why one change cannot be asked about: malformed (400), its kind's read scope missing (403), or a post of a type
	 * Sitewright does not handle (403). Null when it can.
	 *
	 * @param mixed              $change The change as sent.
	 * @param array<int, string> $scopes The token's scopes.
	 */
	private function refuse_visibility_change( $change, array $scopes ): ?WP_Error {
		$malformed = Sitewright_Items::refuse_shape( $change );
		if ( null !== $malformed ) {
			return new WP_Error( 'rest_invalid_param', $malformed, array( 'status' => 400 ) );
		}
		list( $kind, $key ) = (array) Sitewright_Items::parse_ref( $change['ref'] );
		$scope              = Sitewright_Items::read_scope( (string) $kind );
		if ( ! in_array( $scope, $scopes, true ) ) {
			return new WP_Error(
				'sitewright_scope',
				__( 'This token\'s scopes do not allow reading this item.', 'sitewright-connector' ),
				array(
					'status'   => 403,
					'required' => array( $scope ),
				)
			);
		}
		if ( 'post' !== $kind ) {
			return null;
		}
		$type = 'new' === $key ? (string) ( $change['fields']['type'] ?? '' ) : (string) get_post_type( (int) $key );
		return Sitewright_Items::refuse_type( $type );
	}

	/**
	 * The response schema of POST /items/visibility.
	 *
	 * @return array<string, mixed>
	 */
	public function get_visibility_schema(): array {
		$place = array(
			'type'       => 'object',
			'properties' => array(
				'kind'  => array(
					'type' => 'string',
					'enum' => Sitewright_Places::KINDS,
				),
				'label' => array( 'type' => 'string' ),
				'url'   => array( 'type' => 'string' ),
			),
		);
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-item-visibility',
			'type'       => 'object',
			'properties' => array(
				'ref'     => array( 'type' => 'string' ),
				'visible' => array( 'type' => 'boolean' ),
				'places'  => array(
					'type'  => 'array',
					'items' => $place,
				),
				'more'    => array( 'type' => 'integer' ),
			),
		);
	}

	/**
	 * The response schema of one item.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-item',
			'type'       => 'object',
			'properties' => array(
				'ref'        => array( 'type' => 'string' ),
				'kind'       => array( 'type' => 'string' ),
				'exists'     => array( 'type' => 'boolean' ),
				'title'      => array( 'type' => 'string' ),
				'state'      => array( 'type' => array( 'object', 'null' ) ),
				'version'    => array( 'type' => array( 'string', 'null' ) ),
				'before'     => array( 'type' => array( 'object', 'null' ) ),
				'after'      => array( 'type' => array( 'object', 'null' ) ),
				'revisionId' => array( 'type' => 'integer' ),
			),
		);
	}
}
