<?php
/**
 * Preinstalls WordPress into the image's seed database at build time, so a sandbox's cold start is only
 * "start PHP". Run by lib/sandbox/image.ts with the host's PHP against the staging tree:
 *   SITEWRIGHT_DB_DIR=... SITEWRIGHT_SALTS_FILE=... php install.php /staging/srv/wordpress
 */
declare(strict_types=1);

$wp_path = $argv[1] ?? '';
if ( $wp_path === '' || ! is_file( $wp_path . '/wp-load.php' ) ) {
	fwrite( STDERR, "usage: php install.php <wordpress path>\n" );
	exit( 2 );
}
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
define( 'WP_INSTALLING', true );
require $wp_path . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
// No mail leaves a build: the installer's welcome email goes nowhere.
add_filter( 'pre_wp_mail', '__return_false' );

// Nobody ever learns this password: the owner signs in through a one-time link from the service.
$result = wp_install( 'Sitewright sandbox', 'sitewright', 'sandbox@sitewright.invalid', false, '', wp_generate_password( 64, true, true ) );
if ( empty( $result['user_id'] ) ) {
	fwrite( STDERR, "wp_install failed\n" );
	exit( 1 );
}
// No sample content: a copy of the owner's site must not mix with WordPress's "Hello world!", "Sample Page" and
// draft privacy policy, and a blank sandbox starts empty.
foreach ( get_posts( array( 'post_type' => array( 'post', 'page' ), 'post_status' => 'any', 'numberposts' => -1, 'fields' => 'ids' ) ) as $sample_id ) {
	wp_delete_post( (int) $sample_id, true );
}
foreach ( get_comments( array( 'fields' => 'ids' ) ) as $sample_comment ) {
	wp_delete_comment( (int) $sample_comment, true );
}
update_option( 'wp_page_for_privacy_policy', '0' );
update_option( 'permalink_structure', '/%postname%/' );
update_option( 'blog_public', '0' );
update_option( 'default_pingback_flag', '0' );
update_option( 'default_ping_status', 'closed' );

$activate = array( 'sqlite-database-integration/load.php' );
foreach ( array_keys( get_plugins() ) as $plugin_file ) {
	if ( str_starts_with( $plugin_file, 'sitewright-connector/' ) ) {
		$activate[] = $plugin_file;
	}
}
foreach ( $activate as $plugin_file ) {
	$error = activate_plugin( $plugin_file, '', false, true );
	if ( is_wp_error( $error ) ) {
		fwrite( STDERR, "could not activate $plugin_file: " . $error->get_error_message() . "\n" );
		exit( 1 );
	}
}
flush_rewrite_rules( false );
echo wp_json_encode( array( 'plugins' => get_option( 'active_plugins' ) ) ), "\n";
