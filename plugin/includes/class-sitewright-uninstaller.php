<?php
/**
 * Removes everything the plugin stored, on every site of a network: tables (tokens, replay cache), options,
 * transients, the scheduled event, and the agent user.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Uninstall, called by uninstall.php.
 */
final class Sitewright_Uninstaller {

	/**
	 * Cleans every site (one on a single install), then what the network shares.
	 */
	public static function run(): void {
		if ( is_multisite() ) {
			foreach ( self::site_ids() as $site_id ) {
				switch_to_blog( $site_id );
				self::clean_site();
				restore_current_blog();
			}
			self::clean_network();
			return;
		}
		self::clean_site();
	}

	/**
	 * Every site of the network, archived, spammed and deleted ones included (their tables still exist).
	 *
	 * @return array<int, int>
	 */
	public static function site_ids(): array {
		return array_map(
			'intval',
			get_sites(
				array(
					'fields'   => 'ids',
					'number'   => 0,
					'archived' => null,
					'spam'     => null,
					'deleted'  => null,
				)
			)
		);
	}

	/**
	 * The current site's tables, options, transients, event and (on a single site) the agent user.
	 */
	public static function clean_site(): void {
		global $wpdb;
		Sitewright_Schema::drop();
		Sitewright_Agent_User::delete();
		wp_clear_scheduled_hook( Sitewright_Plugin::PRUNE_EVENT );

		// Every option and transient whose name starts with sitewright_ (service URL, schema version, notices).
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery -- uninstall: one read of our own option names, nothing to cache.
		$names = $wpdb->get_col(
			$wpdb->prepare(
				"SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s OR option_name LIKE %s OR option_name LIKE %s",
				$wpdb->esc_like( 'sitewright_' ) . '%',
				$wpdb->esc_like( '_transient_sitewright_' ) . '%',
				$wpdb->esc_like( '_transient_timeout_sitewright_' ) . '%'
			)
		);
		foreach ( $names as $name ) {
			delete_option( $name );
		}
	}

	/**
	 * What a network shares: the agent user (one account, a member of each site) and network options.
	 */
	public static function clean_network(): void {
		global $wpdb;
		$user = get_user_by( 'login', Sitewright_Agent_User::LOGIN );
		if ( $user ) {
			require_once ABSPATH . 'wp-admin/includes/ms.php';
			wpmu_delete_user( $user->ID );
		}
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery -- uninstall: one read of our own network option names.
		$names = $wpdb->get_col(
			$wpdb->prepare(
				"SELECT meta_key FROM {$wpdb->sitemeta} WHERE meta_key LIKE %s OR meta_key LIKE %s OR meta_key LIKE %s",
				$wpdb->esc_like( 'sitewright_' ) . '%',
				$wpdb->esc_like( '_site_transient_sitewright_' ) . '%',
				$wpdb->esc_like( '_site_transient_timeout_sitewright_' ) . '%'
			)
		);
		foreach ( $names as $name ) {
			delete_site_option( $name );
		}
	}
}
