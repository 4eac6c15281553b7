<?php
/**
 * Provisioning without the admin screen (sandboxes and tests).
 *
 * Usage:
 *   php plugin/bin/sitewright-cli.php --wp=/path/to/wordpress create-credentials --scopes=site:read,content:read [--service-url=URL]
 *   php plugin/bin/sitewright-cli.php --wp=/path/to/wordpress connect --service-url=URL --code=CODE --scopes=a,b
 *   php plugin/bin/sitewright-cli.php --wp=/path/to/wordpress revoke-all
 *   php plugin/bin/sitewright-cli.php --wp=/path/to/wordpress status
 *
 * Prints JSON on stdout; exits non-zero with a message on stderr on failure.
 *
 * @package Sitewright
 */

declare(strict_types=1);

// Direct-access guard: this runs before WordPress is loaded (so ABSPATH is not defined yet), and only from a shell.
// It is a development and sandbox tool: the plugin zip does not ship bin/ (lib/plugin-package.ts).
if ( 'cli' !== PHP_SAPI ) {
	exit( 1 );
}

/**
 * Prints a message on stderr and exits.
 *
 * @param string $message Message.
 * @param int    $code    Exit code.
 */
function sitewright_cli_fail( string $message, int $code = 1 ): void {
	fwrite( STDERR, $message . "\n" ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_system_operations_fwrite, WordPress.WP.AlternativeFunctions.file_system_read_fwrite -- stderr of a CLI process.
	exit( $code ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped
}

$sitewright_args    = array_slice( $argv, 1 );
$sitewright_options = array();
$sitewright_command = null;
foreach ( $sitewright_args as $sitewright_arg ) {
	if ( preg_match( '/^--([a-z-]+)=(.*)$/s', $sitewright_arg, $sitewright_m ) ) {
		$sitewright_options[ $sitewright_m[1] ] = $sitewright_m[2];
	} elseif ( null === $sitewright_command ) {
		$sitewright_command = $sitewright_arg;
	} else {
		sitewright_cli_fail( 'Unexpected argument: ' . $sitewright_arg, 2 );
	}
}
$sitewright_usage = 'Usage: php sitewright-cli.php --wp=/path/to/wordpress (create-credentials --scopes=a,b [--service-url=URL] | connect --service-url=URL --code=CODE --scopes=a,b | set-scopes --id=N --scopes=a,b | revoke-all | status)';
if ( ! isset( $sitewright_options['wp'] ) || null === $sitewright_command ) {
	sitewright_cli_fail( $sitewright_usage, 2 );
}
$sitewright_wp = rtrim( $sitewright_options['wp'], '/' );
if ( ! is_file( $sitewright_wp . '/wp-load.php' ) ) {
	sitewright_cli_fail( 'No WordPress at ' . $sitewright_wp . ' (wp-load.php not found).', 2 );
}

// WordPress expects a web request; give it a plausible one.
// phpcs:disable WordPress.Security.ValidatedSanitizedInput -- defaults for a CLI process, not request input.
$_SERVER['HTTP_HOST']       = $_SERVER['HTTP_HOST'] ?? 'localhost';
$_SERVER['SERVER_NAME']     = $_SERVER['SERVER_NAME'] ?? 'localhost';
$_SERVER['REQUEST_URI']     = $_SERVER['REQUEST_URI'] ?? '/';
$_SERVER['REQUEST_METHOD']  = $_SERVER['REQUEST_METHOD'] ?? 'GET';
$_SERVER['SERVER_PROTOCOL'] = $_SERVER['SERVER_PROTOCOL'] ?? 'HTTP/1.1';
// phpcs:enable
define( 'WP_USE_THEMES', false );
require $sitewright_wp . '/wp-load.php';

if ( ! class_exists( 'Sitewright_Credentials' ) ) {
	sitewright_cli_fail( 'The Sitewright Connector plugin is not active on that site.', 3 );
}
Sitewright_Schema::maybe_install();

switch ( $sitewright_command ) {
	case 'create-credentials':
		$sitewright_requested = array_values( array_filter( array_map( 'trim', explode( ',', (string) ( $sitewright_options['scopes'] ?? '' ) ) ) ) );
		$sitewright_scopes    = Sitewright_Scopes::sanitize( $sitewright_requested );
		$sitewright_unknown   = array_diff( $sitewright_requested, $sitewright_scopes );
		if ( $sitewright_unknown ) {
			sitewright_cli_fail( 'Unknown scopes: ' . implode( ', ', $sitewright_unknown ) . '. Known: ' . implode( ', ', Sitewright_Scopes::ALL ), 2 );
		}
		if ( ! $sitewright_scopes ) {
			sitewright_cli_fail( 'Give at least one scope with --scopes=.', 2 );
		}
		$sitewright_created = Sitewright_Credentials::create( $sitewright_scopes, Sitewright_Credentials::STATUS_ACTIVE, (string) ( $sitewright_options['service-url'] ?? '' ) );
		echo wp_json_encode(
			array(
				'id'     => $sitewright_created['id'],
				'token'  => $sitewright_created['token'],
				'secret' => $sitewright_created['secret'],
				'scopes' => $sitewright_created['scopes'],
			)
		) . "\n";
		break;
	case 'connect':
		// What the settings screen's Connect button does: new credentials, POST /sites/redeem, kept only on success.
		$sitewright_scopes = array_values( array_filter( array_map( 'trim', explode( ',', (string) ( $sitewright_options['scopes'] ?? '' ) ) ) ) );
		echo wp_json_encode( Sitewright_Pairing::connect( (string) ( $sitewright_options['service-url'] ?? '' ), (string) ( $sitewright_options['code'] ?? '' ), $sitewright_scopes ) ) . "\n";
		break;
	case 'set-scopes':
		// What Settings → Sitewright's "Save permissions" does: the same token, new scopes.
		$sitewright_saved = Sitewright_Credentials::set_scopes( (int) ( $sitewright_options['id'] ?? 0 ), explode( ',', (string) ( $sitewright_options['scopes'] ?? '' ) ) );
		if ( null === $sitewright_saved ) {
			sitewright_cli_fail( 'No such token, or no known scope in --scopes=.', 2 );
		}
		echo wp_json_encode( array( 'scopes' => $sitewright_saved ) ) . "\n";
		break;
	case 'revoke-all':
		echo wp_json_encode( array( 'revoked' => Sitewright_Credentials::revoke_all() ) ) . "\n";
		break;
	case 'status':
		echo wp_json_encode(
			array(
				'plugin'    => SITEWRIGHT_VERSION,
				'agentUser' => Sitewright_Agent_User::id(),
				'tokens'    => Sitewright_Credentials::all(),
			)
		) . "\n";
		break;
	default:
		sitewright_cli_fail( $sitewright_usage, 2 );
}
