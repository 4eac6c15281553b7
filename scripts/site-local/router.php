<?php
/**
 * Router for PHP's built-in server: real files are served as they are (PHP files run), everything else goes to
 * WordPress's index.php, as Apache's or nginx's rewrite rules would send it (pretty permalinks, /wp-json/).
 */

declare(strict_types=1);

$root = rtrim( (string) $_SERVER['DOCUMENT_ROOT'], '/' );
$path = rawurldecode( (string) parse_url( (string) $_SERVER['REQUEST_URI'], PHP_URL_PATH ) );
$file = realpath( $root . $path );

if ( false !== $file && 0 === strpos( $file, $root ) ) {
	if ( is_file( $file ) || ( is_dir( $file ) && is_file( $file . '/index.php' ) ) ) {
		return false;
	}
}

$_SERVER['SCRIPT_NAME']     = '/index.php';
$_SERVER['PHP_SELF']        = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
chdir( $root );
require $root . '/index.php';
