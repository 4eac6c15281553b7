<?php
/**
 * Test bootstrap: a throwaway WordPress on SQLite (the cached tree from scripts/setup/wordpress.sh: 6.1, or 7.1 with
 * SITEWRIGHT_WORDPRESS=7.1; SITEWRIGHT_TEST_WP_TREE names any other prepared tree), with this plugin copied in and
 * activated, loaded into the test process through wp-load.php. Removed at exit.
 *
 * @package Sitewright
 */

declare(strict_types=1);

$sitewright_repo = dirname( __DIR__, 2 );
// SITEWRIGHT_TEST_WP_TREE: another prepared tree (e.g. a newer WordPress with the SQLite drop-in), for a run by hand.
$sitewright_version = getenv( 'SITEWRIGHT_WORDPRESS' ) ? trim( (string) getenv( 'SITEWRIGHT_WORDPRESS' ) ) : '6.1';
$sitewright_tree    = getenv( 'SITEWRIGHT_TEST_WP_TREE' ) ? (string) getenv( 'SITEWRIGHT_TEST_WP_TREE' ) : trim( (string) shell_exec( 'bash ' . escapeshellarg( $sitewright_repo . '/scripts/setup/wordpress.sh' ) . ' ' . escapeshellarg( $sitewright_version ) ) );
if ( '' === $sitewright_tree || ! is_file( $sitewright_tree . '/wp-settings.php' ) ) {
	fwrite( STDERR, "scripts/setup/wordpress.sh did not produce a WordPress tree\n" );
	exit( 1 );
}

$sitewright_dir = sys_get_temp_dir() . '/sitewright-phpunit-' . bin2hex( random_bytes( 6 ) );
$sitewright_wp  = $sitewright_dir . '/wordpress';
mkdir( $sitewright_dir . '/database', 0700, true );
passthru( 'cp -r ' . escapeshellarg( $sitewright_tree ) . ' ' . escapeshellarg( $sitewright_wp ), $sitewright_status );
passthru( 'cp -r ' . escapeshellarg( $sitewright_repo . '/plugin' ) . ' ' . escapeshellarg( $sitewright_wp . '/wp-content/plugins/sitewright-connector' ), $sitewright_status2 );
if ( 0 !== $sitewright_status || 0 !== $sitewright_status2 ) {
	exit( 1 );
}
register_shutdown_function(
	static function () use ( $sitewright_dir ): void {
		passthru( 'rm -rf ' . escapeshellarg( $sitewright_dir ) );
	}
);

require_once $sitewright_repo . '/lib/wordpress/render-wp-config.php';
file_put_contents(
	$sitewright_wp . '/wp-config.php',
	sitewright_render_wp_config(
		'A throwaway WordPress for the plugin\'s PHPUnit suite (plugin/tests/bootstrap.php).',
		$sitewright_dir . '/database/',
		'wordpress.sqlite',
		array(
			// SITEWRIGHT_TEST_WP_DEBUG=1 runs the suite with WP_DEBUG on (notices and deprecations become visible).
			'WP_DEBUG'               => '1' === getenv( 'SITEWRIGHT_TEST_WP_DEBUG' ),
			'DISABLE_WP_CRON'        => true,
			'WP_HTTP_BLOCK_EXTERNAL' => true,
			'SITEWRIGHT_SANDBOX'     => true,
		)
	)
);

$sitewright_install = sprintf(
	'php %s --wp=%s --url=https://localhost --admin-user=admin --admin-password=%s --admin-email=admin@example.com --permalinks=1 2>&1',
	escapeshellarg( $sitewright_repo . '/scripts/site-local/install.php' ),
	escapeshellarg( $sitewright_wp ),
	bin2hex( random_bytes( 8 ) )
);
exec( $sitewright_install, $sitewright_output, $sitewright_status );
if ( 0 !== $sitewright_status ) {
	fwrite( STDERR, "Installing the test WordPress failed:\n" . implode( "\n", $sitewright_output ) . "\n" );
	exit( 1 );
}

define( 'SITEWRIGHT_TEST_DB_FILE', $sitewright_dir . '/database/wordpress.sqlite' );
define( 'SITEWRIGHT_TEST_VECTORS', $sitewright_repo . '/test/vectors/signing.json' );
define( 'SITEWRIGHT_TEST_TREE', $sitewright_tree );
define( 'SITEWRIGHT_TEST_REPO', $sitewright_repo );
define( 'SITEWRIGHT_TEST_VOCABULARY', $sitewright_repo . '/plugin/vocabulary.json' );
define( 'WP_USE_THEMES', false );
$_SERVER['HTTP_HOST']       = 'localhost';
$_SERVER['SERVER_NAME']     = 'localhost';
$_SERVER['REQUEST_URI']     = '/';
$_SERVER['REQUEST_METHOD']  = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
$_SERVER['HTTPS']           = 'on';
require $sitewright_wp . '/wp-load.php';

if ( ! class_exists( 'Sitewright_Auth' ) ) {
	fwrite( STDERR, "The plugin did not load in the test WordPress\n" );
	exit( 1 );
}
// Routes are registered on rest_api_init; build the server once so every test sees them.
rest_get_server();

require_once __DIR__ . '/class-sitewright-test-case.php';
