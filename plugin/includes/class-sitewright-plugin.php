<?php
/**
 * Wires the plugin into WordPress.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Bootstrap, activation and deactivation.
 */
final class Sitewright_Plugin {

	public const PRUNE_EVENT = 'sitewright_prune_replay_cache';

	/**
	 * Registers every hook.
	 */
	public static function boot(): void {
		Sitewright_Auth::register_hooks();
		Sitewright_Agent_User::register_hooks();
		Sitewright_Abilities::register_hooks();
		add_action( 'init', array( Sitewright_Schema::class, 'maybe_install' ) );
		add_action( 'rest_api_init', array( self::class, 'register_routes' ) );
		add_action( self::PRUNE_EVENT, array( Sitewright_Replay_Cache::class, 'prune' ) );
		add_action( 'wp_initialize_site', array( self::class, 'initialize_site' ), 200 );
		self::add_item_kinds();
		if ( is_admin() && class_exists( 'Sitewright_Admin' ) ) {
			Sitewright_Admin::register_hooks();
		}
	}

	/**
	 * Item kinds beyond the built-in ones: page builders' pages are kinds of their own (docs/page-builders.md).
	 */
	public static function add_item_kinds(): void {
		add_filter( 'sitewright_item_kinds', array( Sitewright_Item_Kind_Elementor::class, 'register' ) );
		add_filter( 'sitewright_item_kinds', array( Sitewright_Item_Kind_Elementor_Kit::class, 'register' ) );
	}

	/**
	 * One controller per resource under sitewright/v1.
	 */
	public static function register_routes(): void {
		$controllers = array(
			new Sitewright_REST_Info_Controller(),
			new Sitewright_REST_Preflight_Controller(),
			new Sitewright_REST_Connection_Controller(),
			new Sitewright_REST_Snapshot_Controller(),
			new Sitewright_REST_Custom_CSS_Controller(),
			new Sitewright_REST_Items_Controller(),
			new Sitewright_REST_Purge_Controller(),
			new Sitewright_REST_Media_Controller(),
		);
		foreach ( $controllers as $controller ) {
			$controller->register_routes();
		}
	}

	/**
	 * Activation; network activation sets up every site of the network.
	 *
	 * @param bool $network_wide Whether the plugin was activated for the whole network.
	 */
	public static function activate( $network_wide = false ): void {
		if ( is_multisite() && $network_wide ) {
			foreach ( Sitewright_Uninstaller::site_ids() as $site_id ) {
				switch_to_blog( $site_id );
				self::activate_site();
				restore_current_blog();
			}
			return;
		}
		self::activate_site();
	}

	/**
	 * A site created while the plugin is network-active gets its tables and event at once.
	 *
	 * @param WP_Site $site The new site.
	 */
	public static function initialize_site( $site ): void {
		if ( ! function_exists( 'is_plugin_active_for_network' ) ) {
			require_once ABSPATH . 'wp-admin/includes/plugin.php';
		}
		if ( ! $site instanceof WP_Site || ! is_plugin_active_for_network( plugin_basename( SITEWRIGHT_PLUGIN_FILE ) ) ) {
			return;
		}
		switch_to_blog( (int) $site->blog_id );
		self::activate_site();
		restore_current_blog();
	}

	/**
	 * One site's setup: tables, the agent user, the pruning event.
	 */
	public static function activate_site(): void {
		Sitewright_Schema::install();
		Sitewright_Agent_User::ensure();
		if ( ! wp_next_scheduled( self::PRUNE_EVENT ) ) {
			wp_schedule_event( time() + HOUR_IN_SECONDS, 'hourly', self::PRUNE_EVENT );
		}
	}

	/**
	 * Deactivation keeps tokens (reactivating resumes the connection) but stops the scheduled event.
	 */
	public static function deactivate(): void {
		wp_clear_scheduled_hook( self::PRUNE_EVENT );
	}
}
