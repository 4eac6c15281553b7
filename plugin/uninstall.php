<?php
/**
 * Removes everything the plugin stored: tables (tokens, replay cache), options, transients, the agent user,
 * the scheduled event.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

require_once __DIR__ . '/includes/class-sitewright-scopes.php';
require_once __DIR__ . '/includes/class-sitewright-schema.php';
require_once __DIR__ . '/includes/class-sitewright-agent-user.php';
require_once __DIR__ . '/includes/class-sitewright-plugin.php';

global $wpdb;

Sitewright_Schema::drop();
Sitewright_Agent_User::delete();
wp_clear_scheduled_hook( Sitewright_Plugin::PRUNE_EVENT );

// Every option and transient whose name starts with sitewright_ (service URL, schema version, notices).
$sitewright_names = $wpdb->get_col(
	$wpdb->prepare(
		"SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s OR option_name LIKE %s OR option_name LIKE %s",
		$wpdb->esc_like( 'sitewright_' ) . '%',
		$wpdb->esc_like( '_transient_sitewright_' ) . '%',
		$wpdb->esc_like( '_transient_timeout_sitewright_' ) . '%'
	)
);
foreach ( $sitewright_names as $sitewright_name ) {
	delete_option( $sitewright_name );
}
