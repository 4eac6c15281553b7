<?php
/**
 * The plugin's signature check per request, timed in plain PHP: parse the query, build the string to sign (which
 * hashes the body) and verify the header, with Sitewright_Signature from the plugin. Reads one JSON request from
 * STDIN (secret, timestamp, method, route, query, body, header) and prints {"iterations", "seconds", "ok"}.
 *
 * @package Sitewright
 */

declare(strict_types=1);

define( 'ABSPATH', '/nonexistent/' ); // The class refuses to load outside WordPress otherwise.
require dirname( __DIR__, 2 ) . '/plugin/includes/class-sitewright-signature.php';

$input      = json_decode( (string) stream_get_contents( STDIN ), true, 8, JSON_THROW_ON_ERROR );
$min_second = (float) ( $argv[1] ?? 1.0 );

$ok         = true;
$iterations = 0;
$started    = hrtime( true );
do {
	for ( $i = 0; $i < 1000; $i++ ) {
		$pairs = Sitewright_Signature::parse_query_string( $input['query'] );
		$sts   = Sitewright_Signature::string_to_sign( $input['timestamp'], $input['method'], $input['route'], $pairs, $input['body'] );
		$ok    = Sitewright_Signature::verify( $input['secret'], $sts, $input['header'] ) && $ok;
	}
	$iterations += 1000;
	$elapsed     = ( hrtime( true ) - $started ) / 1e9;
} while ( $elapsed < $min_second );

echo json_encode( array( 'iterations' => $iterations, 'seconds' => $elapsed, 'ok' => $ok ) );
