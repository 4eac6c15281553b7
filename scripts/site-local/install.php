<?php
/**
 * Installs a fresh WordPress copy (wp-config.php already written) and activates Sitewright Connector, in one PHP
 * process: php install.php --wp=DIR --url=URL --title=T --admin-user=U --admin-password=P --admin-email=E
 *   [--permalinks=1|0] [--plugin=sitewright-connector/sitewright-connector.php[,elementor/elementor.php...]]
 * Prints a JSON summary.
 */

declare(strict_types=1);

$options = array();
foreach ( array_slice( $argv, 1 ) as $arg ) {
	if ( preg_match( '/^--([a-z-]+)=(.*)$/s', $arg, $m ) ) {
		$options[ $m[1] ] = $m[2];
	}
}
foreach ( array( 'wp', 'url', 'admin-user', 'admin-password', 'admin-email' ) as $required ) {
	if ( ! isset( $options[ $required ] ) ) {
		fwrite( STDERR, "install.php: --{$required} is required\n" );
		exit( 2 );
	}
}
$url   = rtrim( $options['url'], '/' );
$parts = parse_url( $url );

$_SERVER['HTTP_HOST']       = $parts['host'] . ( isset( $parts['port'] ) ? ':' . $parts['port'] : '' );
$_SERVER['SERVER_NAME']     = $parts['host'];
$_SERVER['REQUEST_URI']     = '/wp-admin/install.php';
$_SERVER['REQUEST_METHOD']  = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
$_SERVER['HTTPS']           = 'https' === $parts['scheme'] ? 'on' : 'off';

define( 'WP_INSTALLING', true );
require rtrim( $options['wp'], '/' ) . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

if ( ! is_blog_installed() ) {
	$result = wp_install(
		$options['title'] ?? 'Sitewright Local',
		$options['admin-user'],
		$options['admin-email'],
		true,
		'',
		wp_slash( $options['admin-password'] )
	);
}
update_option( 'siteurl', $url );
update_option( 'home', $url );
update_option( 'blog_public', '0' );

$pretty = ( $options['permalinks'] ?? '1' ) !== '0';
global $wp_rewrite;
$wp_rewrite->set_permalink_structure( $pretty ? '/%postname%/' : '' );
flush_rewrite_rules( false );

// --plugin= (empty) leaves a fresh WordPress without any plugin activated; a comma-separated list activates each,
// in that order.
$plugins = array_filter( explode( ',', $options['plugin'] ?? 'sitewright-connector/sitewright-connector.php' ) );
foreach ( $plugins as $plugin ) {
	$activated = activate_plugin( $plugin, '', false, false );
	if ( is_wp_error( $activated ) ) {
		fwrite( STDERR, 'install.php: could not activate ' . $plugin . ': ' . $activated->get_error_message() . "\n" );
		exit( 1 );
	}
}

echo json_encode(
	array(
		'url'        => home_url(),
		'restUrl'    => rest_url(),
		'wordpress'  => $GLOBALS['wp_version'],
		'plugins'    => get_option( 'active_plugins' ),
		'permalinks' => get_option( 'permalink_structure' ),
	)
) . "\n";
