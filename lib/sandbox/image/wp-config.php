<?php
/**
 * Sitewright sandbox configuration. Baked into the sandbox image; nothing secret lives here: the salts are
 * generated per container at start (/data/salts.php) and the database is a per-container copy in /data.
 */

define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', '' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
define( 'DB_DIR', getenv( 'SITEWRIGHT_DB_DIR' ) ?: '/data/database/' );
define( 'DB_FILE', '.ht.sqlite' );

$sitewright_salts = getenv( 'SITEWRIGHT_SALTS_FILE' ) ?: '/data/salts.php';
if ( ! is_readable( $sitewright_salts ) ) {
	http_response_code( 503 );
	exit( 'This sandbox is still starting.' );
}
require $sitewright_salts;

// The sandbox is reached on whatever loopback port the engine published; follow the request's Host, but only
// a loopback one (anything else falls back to a fixed URL, so a forged Host cannot poison links).
$sitewright_host = isset( $_SERVER['HTTP_HOST'] ) ? (string) $_SERVER['HTTP_HOST'] : '';
if ( ! preg_match( '/^(127\.0\.0\.1|localhost|\[::1\])(:[0-9]{1,5})?$/', $sitewright_host ) ) {
	$sitewright_host = '127.0.0.1';
}
$sitewright_url = getenv( 'SITEWRIGHT_SANDBOX_URL' ) ?: 'http://' . $sitewright_host;
define( 'WP_HOME', $sitewright_url );
define( 'WP_SITEURL', $sitewright_url );

// The plugin accepts snapshot imports only on a site that says it is a sandbox.
define( 'SITEWRIGHT_SANDBOX', true );
define( 'WP_ENVIRONMENT_TYPE', 'development' );
define( 'WP_DEBUG', false );
define( 'DISALLOW_FILE_MODS', true );
define( 'DISALLOW_FILE_EDIT', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_AUTO_UPDATE_CORE', false );
define( 'DISABLE_WP_CRON', true );
// A sandbox never calls out: no update checks, no pingbacks, no oEmbed fetches.
define( 'WP_HTTP_BLOCK_EXTERNAL', true );

$table_prefix = 'wp_';

if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
