<?php
/**
 * Drives a real WordPress multisite network (on SQLite) for MultisiteTest, one step per process, since MULTISITE is
 * a wp-config.php constant: php network.php --wp=DIR --step=convert|check
 *   convert: turns the installed single site into a network (wp-config.php must define WP_ALLOW_MULTISITE).
 *   check:   network-activates the plugin, adds sites before and after, makes tokens, uninstalls; prints JSON facts.
 *
 * @package Sitewright
 */

declare(strict_types=1);

$sitewright_options = array();
foreach ( array_slice( $argv, 1 ) as $sitewright_arg ) {
	if ( preg_match( '/^--([a-z-]+)=(.*)$/s', $sitewright_arg, $sitewright_m ) ) {
		$sitewright_options[ $sitewright_m[1] ] = $sitewright_m[2];
	}
}
$_SERVER['HTTP_HOST']       = 'localhost';
$_SERVER['SERVER_NAME']     = 'localhost';
$_SERVER['REQUEST_URI']     = '/';
$_SERVER['REQUEST_METHOD']  = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
$_SERVER['HTTPS']           = 'on';
define( 'WP_USE_THEMES', false );
require rtrim( $sitewright_options['wp'], '/' ) . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

if ( 'convert' === $sitewright_options['step'] ) {
	require_once ABSPATH . 'wp-admin/includes/network.php';
	// As wp-admin/network.php does: a single site's $wpdb does not name the network tables yet.
	foreach ( $wpdb->tables( 'ms_global' ) as $sitewright_table => $sitewright_prefixed ) {
		$wpdb->$sitewright_table = $sitewright_prefixed;
	}
	install_network();
	$sitewright_result = populate_network( 1, 'localhost', 'admin@example.com', 'Sitewright Network', '/', false );
	if ( is_wp_error( $sitewright_result ) ) {
		fwrite( STDERR, $sitewright_result->get_error_message() . "\n" );
		exit( 1 );
	}
	echo wp_json_encode( array( 'converted' => true ) ) . "\n";
	exit( 0 );
}

/**
 * Which of the plugin's tables exist on a site, and its sitewright_ options.
 *
 * @param int $site_id Site.
 * @return array<string, mixed>
 */
function sitewright_site_facts( int $site_id ): array {
	global $wpdb;
	switch_to_blog( $site_id );
	$tables = array();
	$prefix = $wpdb->prefix;
	foreach ( array( 'sitewright_tokens', 'sitewright_seen_signatures' ) as $table ) {
		if ( $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $prefix . $table ) ) === $prefix . $table ) {
			$tables[] = $table;
		}
	}
	$options = $wpdb->get_col( $wpdb->prepare( "SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s", '%sitewright%' ) );
	$facts   = array(
		'tables'  => $tables,
		'options' => $options,
		'cron'    => (bool) wp_next_scheduled( Sitewright_Plugin::PRUNE_EVENT ),
	);
	restore_current_blog();
	return $facts;
}

$sitewright_facts     = array( 'multisite' => is_multisite() );
$sitewright_before    = wp_insert_site(
	array(
		'domain' => 'localhost',
		'path'   => '/before/',
	)
);
$sitewright_activated = activate_plugin( 'sitewright-connector/sitewright-connector.php', '', true, false );
if ( is_wp_error( $sitewright_activated ) ) {
	fwrite( STDERR, $sitewright_activated->get_error_message() . "\n" );
	exit( 1 );
}
$sitewright_after = wp_insert_site(
	array(
		'domain' => 'localhost',
		'path'   => '/after/',
	)
);
$sitewright_sites = array( 1, (int) $sitewright_before, (int) $sitewright_after );
foreach ( $sitewright_sites as $sitewright_site ) {
	switch_to_blog( $sitewright_site );
	Sitewright_Credentials::create( array( 'site:read' ) );
	update_option( Sitewright_Pairing::SERVICE_OPTION, 'https://app.example.com' );
	restore_current_blog();
}
$sitewright_facts['networkActive'] = is_plugin_active_for_network( 'sitewright-connector/sitewright-connector.php' );
$sitewright_facts['agentUser']     = (bool) get_user_by( 'login', Sitewright_Agent_User::LOGIN );
foreach ( $sitewright_sites as $sitewright_site ) {
	$sitewright_facts['installed'][] = sitewright_site_facts( $sitewright_site );
}

define( 'WP_UNINSTALL_PLUGIN', 'sitewright-connector/sitewright-connector.php' );
require WP_PLUGIN_DIR . '/sitewright-connector/uninstall.php';
wp_cache_flush();

foreach ( $sitewright_sites as $sitewright_site ) {
	$sitewright_facts['uninstalled'][] = sitewright_site_facts( $sitewright_site );
}
$sitewright_facts['agentUserAfter'] = (bool) get_user_by( 'login', Sitewright_Agent_User::LOGIN );
echo wp_json_encode( $sitewright_facts ) . "\n";
