<?php
/**
 * Serves WordPress's first requests once at build time, against the seed database, so the writes WordPress
 * makes on its first run (cron schedule, plugin tables, options) are already in the image and a sandbox's
 * first request is not slowed by them. Run by lib/sandbox/image.ts after install.php, with the same environment.
 */
declare(strict_types=1);

$wp_path = $argv[1] ?? '';
if ( $wp_path === '' || ! is_file( $wp_path . '/wp-load.php' ) ) {
	fwrite( STDERR, "usage: php warm.php <wordpress path>\n" );
	exit( 2 );
}
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/wp-json/';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
define( 'WP_USE_THEMES', false );
require $wp_path . '/wp-load.php';

$server = rest_get_server();
$statuses = array();
foreach ( array( '/', '/wp/v2/pages', '/wp/v2/posts', '/sitewright/v1' ) as $route ) {
	$statuses[ $route ] = $server->dispatch( new WP_REST_Request( 'GET', $route ) )->get_status();
}
echo wp_json_encode( array( 'statuses' => $statuses ) ), "\n";
