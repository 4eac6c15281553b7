<?php
/**
 * The PHP twin of renderWpConfig() (lib/wordpress/wp-config.ts), for PHP callers such as the PHPUnit bootstrap:
 * fills lib/wordpress/wp-config.template.php. Not part of the plugin.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Renders a wp-config.php.
 *
 * @param string               $purpose   One line saying what the configuration is for.
 * @param string               $db_dir    Directory of the SQLite database.
 * @param string               $db_file   Database file name.
 * @param array<string, mixed> $constants Constants defined after the database settings (scalars only).
 * @return string
 */
function sitewright_render_wp_config( string $purpose, string $db_dir, string $db_file, array $constants ): string {
	$salts = '';
	foreach ( array( 'AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT' ) as $name ) {
		$salts .= "define( '{$name}', " . var_export( bin2hex( random_bytes( 32 ) ), true ) . " );\n";
	}
	$settings = '';
	foreach ( $constants as $name => $value ) {
		$settings .= "define( '{$name}', " . var_export( $value, true ) . " );\n";
	}
	$fill = array(
		'{{PURPOSE}}'  => str_replace( '*/', '* /', $purpose ),
		'{{DB_DIR}}'   => var_export( $db_dir, true ),
		'{{DB_FILE}}'  => var_export( $db_file, true ),
		'{{SALTS}}'    => rtrim( $salts ),
		'{{SETTINGS}}' => rtrim( $settings ),
	);
	return strtr( (string) file_get_contents( __DIR__ . '/wp-config.template.php' ), $fill );
}
