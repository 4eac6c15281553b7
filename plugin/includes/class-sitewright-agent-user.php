<?php
/**
 * The dedicated WordPress user that signed requests act as. It has no role of its own: while a verified token is
 * in use it holds exactly the capabilities its scopes lend (Sitewright_Scopes::capabilities), and nothing otherwise.
 * It cannot log in and has no application passwords.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The agent user.
 */
final class Sitewright_Agent_User {

	public const LOGIN  = 'sitewright-agent';
	public const OPTION = 'sitewright_agent_user_id';

	/**
	 * Scopes in force for the current request (null when no signed request is being served).
	 *
	 * @var array<int, string>|null
	 */
	private static ?array $scopes = null;

	/**
	 * Hooks that bound the user.
	 */
	public static function register_hooks(): void {
		add_filter( 'user_has_cap', array( self::class, 'filter_caps' ), 1000, 4 );
		add_filter( 'map_meta_cap', array( self::class, 'map_edit_css' ), 1000, 4 );
		add_filter( 'authenticate', array( self::class, 'refuse_login' ), 1000, 2 );
		add_filter( 'wp_is_application_passwords_available_for_user', array( self::class, 'no_application_passwords' ), 10, 2 );
		// WordPress 7.1+ (Abilities API); older versions never apply this filter, so it changes nothing there.
		add_filter( 'wp_ability_permission_result', array( self::class, 'refuse_abilities' ), 1000, 2 );
	}

	/**
	 * The user id, creating the user when missing.
	 *
	 * @throws RuntimeException When WordPress refuses to create the user.
	 */
	public static function ensure(): int {
		$id = self::id();
		if ( $id > 0 ) {
			return $id;
		}
		$existing = get_user_by( 'login', self::LOGIN );
		if ( $existing ) {
			update_option( self::OPTION, $existing->ID, false );
			return (int) $existing->ID;
		}
		$id = wp_insert_user(
			array(
				'user_login'   => self::LOGIN,
				'user_pass'    => wp_generate_password( 64, true, true ),
				'user_email'   => '',
				'display_name' => 'Sitewright',
				'role'         => '',
				'description'  => 'Acts for the Sitewright service on signed REST requests. Cannot log in.',
			)
		);
		if ( is_wp_error( $id ) ) {
			throw new RuntimeException( 'Could not create the Sitewright user: ' . esc_html( $id->get_error_message() ) );
		}
		update_option( self::OPTION, $id, false );
		return (int) $id;
	}

	/**
	 * The user id, or 0 when not created yet (or deleted by someone).
	 */
	public static function id(): int {
		$id = (int) get_option( self::OPTION, 0 );
		if ( $id > 0 && get_userdata( $id ) ) {
			return $id;
		}
		return 0;
	}

	/**
	 * Starts acting as the agent with the given scopes.
	 *
	 * @param array<int, string> $scopes Token scopes.
	 */
	public static function act_with( array $scopes ): void {
		self::$scopes = Sitewright_Scopes::sanitize( $scopes );
		wp_set_current_user( self::ensure() );
	}

	/**
	 * Scopes in force, or null outside a signed request.
	 *
	 * @return array<int, string>|null
	 */
	public static function scopes(): ?array {
		return self::$scopes;
	}

	/**
	 * Stops acting as the agent (tests).
	 */
	public static function reset(): void {
		self::$scopes = null;
	}

	/**
	 * Replaces the agent's capabilities with the ones its scopes lend.
	 *
	 * @param array<string, bool> $allcaps All capabilities.
	 * @param array<int, string>  $caps    Required primitive capabilities.
	 * @param array<int, mixed>   $args    Arguments.
	 * @param WP_User             $user    The user.
	 * @return array<string, bool>
	 */
	public static function filter_caps( $allcaps, $caps, $args, $user ) {
		if ( ! $user instanceof WP_User || $user->ID <= 0 || self::LOGIN !== $user->user_login ) {
			return $allcaps;
		}
		$granted = array();
		if ( null !== self::$scopes ) {
			foreach ( Sitewright_Scopes::capabilities( self::$scopes ) as $cap ) {
				$granted[ $cap ] = true;
			}
		}
		return $granted;
	}

	/**
	 * Lets the agent edit the custom CSS with design:write. Core maps edit_css to unfiltered_html, which the agent
	 * never holds (content stays under kses); CSS is checked for markup by the custom-css route instead. Where core
	 * forbids edit_css outright (DISALLOW_UNFILTERED_HTML, multisite) it stays forbidden.
	 *
	 * @param array<int, string> $caps    Primitive capabilities core requires.
	 * @param string             $cap     The capability checked.
	 * @param int                $user_id The user.
	 * @param array<int, mixed>  $args    Arguments.
	 * @return array<int, string>
	 */
	public static function map_edit_css( $caps, $cap, $user_id, $args ) { // phpcs:ignore Generic.CodeAnalysis.UnusedFunctionParameter.FoundAfterLastUsed -- map_meta_cap's signature.
		if ( 'edit_css' !== $cap || array( 'unfiltered_html' ) !== $caps || null === self::$scopes || ! in_array( 'design:write', self::$scopes, true ) ) {
			return $caps;
		}
		if ( (int) $user_id <= 0 || self::id() !== (int) $user_id ) {
			return $caps;
		}
		return array( 'edit_theme_options' );
	}

	/**
	 * Whether the site lets anyone but a super admin edit CSS at all (core's edit_css mapping).
	 */
	public static function site_allows_custom_css(): bool {
		return ! ( defined( 'DISALLOW_UNFILTERED_HTML' ) && DISALLOW_UNFILTERED_HTML ) && ! is_multisite();
	}

	/**
	 * Nobody logs in as the agent.
	 *
	 * @param WP_User|WP_Error|null $user     Result so far.
	 * @param string                $username Username given.
	 * @return WP_User|WP_Error|null
	 */
	public static function refuse_login( $user, $username ) { // phpcs:ignore Generic.CodeAnalysis.UnusedFunctionParameter.FoundAfterLastUsed -- authenticate's signature.
		if ( $user instanceof WP_User && self::LOGIN === $user->user_login ) {
			return new WP_Error( 'sitewright_agent_login', __( 'This account is used by Sitewright only and cannot log in.', 'sitewright-connector' ) );
		}
		return $user;
	}

	/**
	 * Keeps the agent out of every ability (core's and other plugins'): its capabilities are lent for Sitewright's
	 * own routes and core's REST routes its scopes name, not for whatever an ability does with them.
	 *
	 * @param bool|WP_Error $permission   The ability's own answer.
	 * @param string        $ability_name The ability.
	 * @return bool|WP_Error
	 */
	public static function refuse_abilities( $permission, $ability_name ) {
		$agent = self::id();
		if ( $agent <= 0 || get_current_user_id() !== $agent ) {
			return $permission;
		}
		return new WP_Error(
			'sitewright_agent_ability',
			/* translators: %s: an ability's name */
			sprintf( __( 'The Sitewright user cannot use the ability %s.', 'sitewright-connector' ), (string) $ability_name ),
			array( 'status' => 403 )
		);
	}

	/**
	 * No application passwords for the agent.
	 *
	 * @param bool    $available Availability so far.
	 * @param WP_User $user      The user.
	 */
	public static function no_application_passwords( $available, $user ): bool {
		if ( $user instanceof WP_User && self::LOGIN === $user->user_login ) {
			return false;
		}
		return (bool) $available;
	}

	/**
	 * Deletes the user (uninstall). Their content is reassigned to the first administrator so no page is lost.
	 */
	public static function delete(): void {
		require_once ABSPATH . 'wp-admin/includes/user.php';
		$user = get_user_by( 'login', self::LOGIN );
		if ( $user ) {
			$admins = get_users(
				array(
					'role'   => 'administrator',
					'number' => 1,
					'fields' => 'ID',
				)
			);
			wp_delete_user( $user->ID, $admins ? (int) $admins[0] : null );
		}
		delete_option( self::OPTION );
	}
}
