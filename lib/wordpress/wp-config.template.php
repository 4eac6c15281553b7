<?php
/**
 * {{PURPOSE}}
 *
 * Written from lib/wordpress/wp-config.template.php, the one WordPress configuration of this repository (sandbox
 * image, local test site, PHPUnit): renderWpConfig() in lib/wordpress/wp-config.ts and sitewright_render_wp_config()
 * in lib/wordpress/render-wp-config.php fill the placeholders.
 */

// WordPress on SQLite, through the database integration's drop-in (wp-content/db.php).
define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', '' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
define( 'DB_ENGINE', 'sqlite' );
define( 'DB_DIR', {{DB_DIR}} );
define( 'DB_FILE', {{DB_FILE}} );

{{SALTS}}

$table_prefix = 'wp_';

{{SETTINGS}}

if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
