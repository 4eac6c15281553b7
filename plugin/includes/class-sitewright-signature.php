<?php
/**
 * The contract's request signature (docs/signing.md): canonical route, string to sign, HMAC.
 *
 * Pure functions without WordPress, so the PHP tests can check them against test/vectors/signing.json.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Builds and checks `v1=<hex HMAC-SHA256(secret, string_to_sign)>`.
 */
final class Sitewright_Signature {

	public const VERSION = 'v1';

	/** The parameter that carries the route on sites without pretty permalinks; never signed. */
	public const ROUTE_PARAM = 'rest_route';

	/**
	 * Percent-encodes per RFC 3986: only A-Z a-z 0-9 - . _ ~ stay, %XX in upper case.
	 *
	 * @param string $value Raw UTF-8 string.
	 */
	public static function encode( string $value ): string {
		// rawurlencode() leaves exactly the unreserved set alone and emits upper-case hex.
		return rawurlencode( $value );
	}

	/**
	 * Parses a raw query string into decoded [name, value] pairs, keeping repeats and order.
	 *
	 * Decodes like PHP's own $_GET parsing ('+' is a space), so the signature covers what WordPress reads.
	 *
	 * @param string $query_string The raw query string, without '?'.
	 * @return array<int, array{0: string, 1: string}>
	 */
	public static function parse_query_string( string $query_string ): array {
		$pairs = array();
		foreach ( explode( '&', $query_string ) as $segment ) {
			if ( '' === $segment ) {
				continue;
			}
			$parts   = explode( '=', $segment, 2 );
			$pairs[] = array( urldecode( $parts[0] ), urldecode( $parts[1] ?? '' ) );
		}
		return $pairs;
	}

	/**
	 * Whether every parameter name is flat (PHP would turn `a[b]` into an array).
	 *
	 * @param array<int, array{0: string, 1: string}> $pairs Decoded pairs.
	 */
	public static function is_flat( array $pairs ): bool {
		foreach ( $pairs as $pair ) {
			if ( strpbrk( $pair[0], '[]' ) !== false ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The first parameter name that occurs more than once as PHP reads it, or null. PHP keeps only the last value of
	 * a repeated name while the canonical query signs them all; it also reads `a.b` and `a b` as `a_b`, so names are
	 * compared the way parse_str() turns them into keys.
	 *
	 * @param array<int, array{0: string, 1: string}> $pairs Decoded pairs.
	 */
	public static function repeated_name( array $pairs ): ?string {
		$seen = array();
		foreach ( $pairs as $pair ) {
			$parsed = array();
			parse_str( rawurlencode( $pair[0] ) . '=', $parsed );
			$key = array() === $parsed ? $pair[0] : (string) array_key_first( $parsed );
			if ( isset( $seen[ $key ] ) ) {
				return $pair[0];
			}
			$seen[ $key ] = true;
		}
		return null;
	}

	/**
	 * WordPress's untrailingslashit(): strips every trailing / and \; empty means '/'.
	 *
	 * @param string $route REST route.
	 */
	public static function untrailingslash( string $route ): string {
		$trimmed = rtrim( $route, '/\\' );
		return '' === $trimmed ? '/' : $trimmed;
	}

	/**
	 * The route line: the route, then '?' and the encoded pairs other than rest_route, sorted by encoded name then
	 * encoded value in byte order, joined by '&'.
	 *
	 * @param string                                  $route The route as WP_REST_Request::get_route() reports it.
	 * @param array<int, array{0: string, 1: string}> $pairs Decoded query pairs.
	 */
	public static function canonical_route( string $route, array $pairs ): string {
		$encoded = array();
		foreach ( $pairs as $pair ) {
			if ( self::ROUTE_PARAM === $pair[0] ) {
				continue;
			}
			$encoded[] = array( self::encode( $pair[0] ), self::encode( $pair[1] ) );
		}
		usort(
			$encoded,
			static function ( array $a, array $b ): int {
				$by_name = strcmp( $a[0], $b[0] );
				return 0 !== $by_name ? $by_name : strcmp( $a[1], $b[1] );
			}
		);
		$joined = implode(
			'&',
			array_map(
				static function ( array $pair ): string {
					return $pair[0] . '=' . $pair[1];
				},
				$encoded
			)
		);
		$path   = self::untrailingslash( $route );
		return '' === $joined ? $path : $path . '?' . $joined;
	}

	/**
	 * Builds timestamp \n METHOD \n canonical route \n hex(sha256(body)).
	 *
	 * @param string                                  $timestamp Unix time in milliseconds, as sent.
	 * @param string                                  $method    HTTP method.
	 * @param string                                  $route     REST route.
	 * @param array<int, array{0: string, 1: string}> $pairs     Decoded query pairs.
	 * @param string                                  $body      Raw body.
	 */
	public static function string_to_sign( string $timestamp, string $method, string $route, array $pairs, string $body ): string {
		return $timestamp . "\n" . strtoupper( $method ) . "\n" . self::canonical_route( $route, $pairs ) . "\n" . hash( 'sha256', $body );
	}

	/**
	 * The signature header value for a string to sign.
	 *
	 * @param string $secret         The shared secret (its UTF-8 bytes are the HMAC key).
	 * @param string $string_to_sign From string_to_sign().
	 */
	public static function sign( string $secret, string $string_to_sign ): string {
		return self::VERSION . '=' . hash_hmac( 'sha256', $string_to_sign, $secret );
	}

	/**
	 * Extracts the 64 hex digits of a `v1=` header, lower-cased; null when malformed.
	 *
	 * @param mixed $header The raw header value.
	 */
	public static function parse_header( $header ): ?string {
		if ( ! is_string( $header ) || ! preg_match( '/^v1=([0-9a-fA-F]{64})$/D', trim( $header ), $matches ) ) {
			return null;
		}
		return strtolower( $matches[1] );
	}

	/**
	 * Constant-time check of a signature header against the expected string to sign.
	 *
	 * @param string $secret         Shared secret.
	 * @param string $string_to_sign From string_to_sign().
	 * @param mixed  $header         The X-Sitewright-Signature header.
	 */
	public static function verify( string $secret, string $string_to_sign, $header ): bool {
		$expected = hash_hmac( 'sha256', $string_to_sign, $secret );
		$given    = self::parse_header( $header );
		// Compare equal-length strings even for malformed input so timing does not depend on it.
		return hash_equals( $expected, $given ?? str_repeat( '0', 64 ) ) && null !== $given;
	}
}
