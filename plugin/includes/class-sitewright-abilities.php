<?php
/**
 * Sitewright's operations as WordPress abilities (WordPress 6.9+; docs/abilities.md).
 *
 * While the site is paired, each operation of `abilities.json` whose scope the pairing allows is registered as
 * `sitewright/<operation>` in the category `sitewright`, with its input schema and annotations. Reads run here, as
 * the calling user. Writes never write: the planned call is sent to the service, signed with the pairing's own
 * credentials (`POST /sites/plugin/calls`), and the ability answers the pending change set and its review URL; the
 * owner approves it on Sitewright's card. Only read abilities are public (REST, MCP) unless the owner exposes the
 * proposing ones on Settings → Sitewright. On WordPress 6.1–6.8 nothing here runs.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The Abilities API door.
 */
final class Sitewright_Abilities {

	public const CATEGORY = 'sitewright';

	/** Option: whether the proposing (write) abilities are public too (the owner's choice; default no). */
	public const EXPOSE_OPTION = 'sitewright_expose_proposing_abilities';

	/** The service's route for a site's own calls. */
	public const CALLS_ROUTE = '/sites/plugin/calls';

	/** What a caller must be able to do, by scope, besides each operation's own capabilities. */
	private const SCOPE_CAPABILITIES = array(
		'site:read'      => 'edit_posts',
		'content:read'   => 'edit_posts',
		'content:write'  => 'edit_posts',
		'media:write'    => 'upload_files',
		'design:write'   => 'edit_theme_options',
		'settings:write' => 'manage_options',
	);

	/**
	 * Hooks into the Abilities API when WordPress has it.
	 */
	public static function register_hooks(): void {
		if ( ! function_exists( 'wp_register_ability' ) ) {
			return;
		}
		add_action( 'wp_abilities_api_categories_init', array( self::class, 'register_category' ) );
		add_action( 'wp_abilities_api_init', array( self::class, 'register_abilities' ) );
	}

	/**
	 * The manifest generated from the app's operations (plugin/abilities.json).
	 *
	 * @return array<int, array<string, mixed>>
	 */
	public static function manifest(): array {
		static $abilities = null;
		if ( null === $abilities ) {
			$json      = json_decode( (string) file_get_contents( dirname( __DIR__ ) . '/abilities.json' ), true ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents -- a file in the plugin.
			$abilities = is_array( $json ) && isset( $json['abilities'] ) ? (array) $json['abilities'] : array();
		}
		return $abilities;
	}

	/**
	 * Registers the category (only while paired, like the abilities).
	 */
	public static function register_category(): void {
		if ( null === Sitewright_Credentials::paired() ) {
			return;
		}
		wp_register_ability_category(
			self::CATEGORY,
			array(
				'label'       => __( 'Sitewright', 'sitewright-connector' ),
				'description' => __( 'Read the site, and propose changes that the owner approves in Sitewright before visitors see them.', 'sitewright-connector' ),
			)
		);
	}

	/**
	 * Registers the operations the pairing allows.
	 */
	public static function register_abilities(): void {
		$pairing = Sitewright_Credentials::paired();
		if ( null === $pairing ) {
			return;
		}
		$expose = (bool) get_option( self::EXPOSE_OPTION, false );
		foreach ( self::manifest() as $entry ) {
			if ( ! in_array( $entry['scope'], $pairing['scopes'], true ) ) {
				continue;
			}
			$read = 'wordpress' === $entry['runs'];
			wp_register_ability(
				(string) $entry['name'],
				array(
					'label'               => (string) $entry['label'],
					'description'         => (string) $entry['description'],
					'category'            => self::CATEGORY,
					'input_schema'        => $entry['inputSchema'],
					'output_schema'       => $read ? self::read_output_schema() : self::pending_output_schema(),
					'execute_callback'    => static function ( $input = null ) use ( $entry ) {
						return self::execute( $entry, is_array( $input ) ? $input : array() );
					},
					'permission_callback' => static function ( $input = null ) use ( $entry ) {
						return self::permitted( $entry, is_array( $input ) ? $input : array() );
					},
					'meta'                => array(
						'annotations'  => $entry['annotations'],
						'show_in_rest' => true,
						'mcp'          => array( 'public' => $read || $expose ),
						'public'       => $read || $expose,
					),
				)
			);
		}
	}

	/**
	 * Whether the calling user may run this ability now: logged in, the capabilities its scope and operation need
	 * (for one post, that post), and the pairing still allows its scope.
	 *
	 * @param array<string, mixed> $entry Manifest entry.
	 * @param array<string, mixed> $input Input.
	 * @return true|WP_Error
	 */
	public static function permitted( array $entry, array $input ) {
		$pairing = Sitewright_Credentials::paired();
		if ( null === $pairing || ! in_array( $entry['scope'], $pairing['scopes'], true ) ) {
			return new WP_Error( 'sitewright_not_paired', __( 'This site no longer allows this through Sitewright.', 'sitewright-connector' ), array( 'status' => 403 ) );
		}
		$needed = array_merge( array( self::SCOPE_CAPABILITIES[ $entry['scope'] ] ?? 'manage_options' ), (array) $entry['capabilities'] );
		foreach ( $needed as $capability ) {
			if ( ! current_user_can( (string) $capability ) ) {
				return new WP_Error( 'sitewright_forbidden', __( 'You are not allowed to do this on this site.', 'sitewright-connector' ), array( 'status' => 403 ) );
			}
		}
		$id = isset( $input['id'] ) && is_int( $input['id'] ) ? $input['id'] : 0;
		if ( $id > 0 && get_post( $id ) instanceof WP_Post ) {
			$capability = 'wordpress' === $entry['runs'] ? 'read_post' : 'edit_post';
			if ( ! current_user_can( $capability, $id ) ) {
				return new WP_Error( 'sitewright_forbidden', __( 'You are not allowed to do this to that item.', 'sitewright-connector' ), array( 'status' => 403 ) );
			}
		}
		return true;
	}

	/**
	 * Runs a read here, or sends a write to the service.
	 *
	 * @param array<string, mixed> $entry Manifest entry.
	 * @param array<string, mixed> $input Input (validated against the schema by WordPress).
	 * @return array<string, mixed>|WP_Error
	 */
	public static function execute( array $entry, array $input ) {
		if ( 'wordpress' === $entry['runs'] ) {
			return Sitewright_Ability_Reads::run( (string) $entry['operation'], $input );
		}
		return self::propose( (string) $entry['operation'], $input );
	}

	/**
	 * Sends the planned call to the service, signed with the pairing's credentials, and answers its pending change
	 * set. Nothing is written here.
	 *
	 * @param string               $operation Operation name.
	 * @param array<string, mixed> $input     Input.
	 * @return array<string, mixed>|WP_Error
	 */
	public static function propose( string $operation, array $input ) {
		$pairing = Sitewright_Credentials::paired();
		$secret  = null === $pairing ? null : Sitewright_Crypto::open( (string) $pairing['sealed_secret'], (string) $pairing['token_hash'] );
		if ( null === $pairing || null === $secret ) {
			return new WP_Error( 'sitewright_not_paired', __( 'This site is not connected to Sitewright.', 'sitewright-connector' ), array( 'status' => 503 ) );
		}
		$user      = wp_get_current_user();
		$body      = (string) wp_json_encode(
			array(
				'siteUrl'   => home_url(),
				'operation' => $operation,
				'input'     => (object) $input,
				'actor'     => array(
					'wpUserId' => (int) $user->ID,
					'login'    => (string) $user->user_login,
					'name'     => (string) $user->display_name,
				),
			)
		);
		$timestamp = (string) (int) floor( microtime( true ) * 1000 );
		$signature = Sitewright_Signature::sign( $secret, Sitewright_Signature::string_to_sign( $timestamp, 'POST', self::CALLS_ROUTE, array(), $body ) );
		$response  = wp_remote_post(
			untrailingslashit( (string) $pairing['service_url'] ) . self::CALLS_ROUTE,
			// The service plans the change, which reads this site back: more time than a pairing's redeem.
			array( 'timeout' => 45 ) + Sitewright_Pairing::request_args(
				$body,
				array(
					'Authorization'          => 'SitewrightSite ' . $pairing['token_hash'],
					'X-Sitewright-Timestamp' => $timestamp,
					'X-Sitewright-Signature' => $signature,
				)
			)
		);
		return self::pending_from( $response );
	}

	/**
	 * The service's answer as the ability's result: `{status: "pending"|"applied", changeSetId, reviewUrl}`, or its
	 * error.
	 *
	 * @param array<string, mixed>|WP_Error $response HTTP response.
	 * @return array<string, mixed>|WP_Error
	 */
	private static function pending_from( $response ) {
		if ( is_wp_error( $response ) ) {
			return new WP_Error( 'sitewright_unreachable', __( 'Could not reach Sitewright; nothing was changed.', 'sitewright-connector' ), array( 'status' => 502 ) );
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		$json   = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		if ( $status >= 200 && $status < 300 && is_array( $json ) && in_array( $json['status'] ?? '', array( 'pending', 'applied' ), true ) && isset( $json['changeSetId'], $json['reviewUrl'] ) ) {
			// Pending: waits for the owner's click. Applied: nothing visitors see changed, so it was written at once.
			return array(
				'status'      => (string) $json['status'],
				'changeSetId' => (string) $json['changeSetId'],
				'reviewUrl'   => (string) $json['reviewUrl'],
			);
		}
		$error = is_array( $json ) && isset( $json['error'] ) && is_array( $json['error'] ) ? $json['error'] : array();
		return new WP_Error(
			'sitewright_' . preg_replace( '/[^a-z0-9_]/', '', (string) ( $error['code'] ?? 'refused' ) ),
			isset( $error['message'] ) && is_string( $error['message'] ) ? $error['message'] : __( 'Sitewright refused the change; nothing was changed.', 'sitewright-connector' ),
			array( 'status' => $status >= 400 && $status < 500 ? $status : 502 )
		);
	}

	/**
	 * Output of a read.
	 *
	 * @return array<string, mixed>
	 */
	private static function read_output_schema(): array {
		return array(
			'type'       => 'object',
			'properties' => array(
				'summary' => array( 'type' => 'string' ),
				'data'    => array( 'type' => 'object' ),
			),
			'required'   => array( 'summary', 'data' ),
		);
	}

	/**
	 * Output of a proposing ability: the pending change set.
	 *
	 * @return array<string, mixed>
	 */
	private static function pending_output_schema(): array {
		return array(
			'type'       => 'object',
			'properties' => array(
				'status'      => array(
					'type' => 'string',
					'enum' => array( 'pending', 'applied' ),
				),
				'changeSetId' => array( 'type' => 'string' ),
				'reviewUrl'   => array(
					'type'   => 'string',
					'format' => 'uri',
				),
			),
			'required'   => array( 'status', 'changeSetId', 'reviewUrl' ),
		);
	}
}
