<?php
/**
 * Router for PHP's built-in server: static files as they are, PHP files and directories (their index.php) by
 * the server, everything else (pretty permalinks, /wp-json/) through WordPress's index.php.
 */
$sitewright_root = $_SERVER['DOCUMENT_ROOT'];
$sitewright_path = '/' . ltrim( (string) parse_url( rawurldecode( $_SERVER['REQUEST_URI'] ), PHP_URL_PATH ), '/' );

if ( str_contains( $sitewright_path, '..' ) || preg_match( '#/\.|wp-config\.php$#', $sitewright_path ) ) {
	http_response_code( 404 );
	exit;
}
$sitewright_file = $sitewright_root . $sitewright_path;
if ( $sitewright_path !== '/' && file_exists( $sitewright_file ) ) {
	if ( is_dir( $sitewright_file ) && substr( $sitewright_path, -1 ) !== '/' ) {
		header( 'Location: ' . $sitewright_path . '/' );
		exit;
	}
	return false;
}
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $sitewright_root . '/index.php';
require $sitewright_root . '/index.php';
