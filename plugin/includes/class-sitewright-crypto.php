<?php
/**
 * Random tokens and secrets, token hashing, and encryption of the HMAC secret under a key derived from the
 * wp-config.php salts (so a copy of the database alone cannot forge signed requests).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Key material and sealing.
 */
final class Sitewright_Crypto {

	public const TOKEN_PREFIX  = 'swt_';
	public const SECRET_PREFIX = 'sws_';
	private const SEAL_VERSION = 'v1';
	private const KEY_INFO     = 'sitewright-connector secret encryption v1';

	/**
	 * A new bearer token: prefix + 43 characters of base64url (32 random bytes).
	 */
	public static function new_token(): string {
		return self::TOKEN_PREFIX . self::base64url( random_bytes( 32 ) );
	}

	/**
	 * A new HMAC secret: prefix + 43 characters of base64url (32 random bytes).
	 */
	public static function new_secret(): string {
		return self::SECRET_PREFIX . self::base64url( random_bytes( 32 ) );
	}

	/**
	 * A fast hash is enough for a 256-bit random token (no dictionary to search).
	 *
	 * @param string $token Bearer token.
	 */
	public static function hash_token( string $token ): string {
		return hash( 'sha256', $token );
	}

	/**
	 * Whether a string looks like one of our tokens (cheap check before touching the database).
	 *
	 * @param string $token Candidate.
	 */
	public static function looks_like_token( string $token ): bool {
		return (bool) preg_match( '/^swt_[A-Za-z0-9_-]{43}$/D', $token );
	}

	/**
	 * Whether AUTH_KEY and SECURE_AUTH_KEY are set in wp-config.php (not defaults, not stored in the database).
	 */
	public static function has_config_salts(): bool {
		foreach ( array( 'AUTH_KEY', 'SECURE_AUTH_KEY' ) as $name ) {
			if ( ! defined( $name ) ) {
				return false;
			}
			$value = (string) constant( $name );
			if ( strlen( $value ) < 32 || 'put your unique phrase here' === $value ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The 32-byte encryption key: HKDF-SHA256 over the wp-config.php salts (or WordPress's own salts as a fallback,
	 * which preflight reports as a warning because those may live in the database).
	 */
	private static function key(): string {
		if ( self::has_config_salts() ) {
			$material = AUTH_KEY . SECURE_AUTH_KEY;
		} else {
			$material = wp_salt( 'auth' ) . wp_salt( 'secure_auth' );
		}
		return hash_hkdf( 'sha256', $material, SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_KEYBYTES, self::KEY_INFO );
	}

	/**
	 * Encrypts the secret, bound to its token hash (so rows cannot be swapped in the database).
	 *
	 * @param string $secret     Plain secret.
	 * @param string $token_hash The token's hash, used as associated data.
	 */
	public static function seal( string $secret, string $token_hash ): string {
		$nonce  = random_bytes( SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES );
		$cipher = sodium_crypto_aead_xchacha20poly1305_ietf_encrypt( $secret, $token_hash, $nonce, self::key() );
		return self::SEAL_VERSION . ':' . base64_encode( $nonce . $cipher ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions
	}

	/**
	 * Decrypts a sealed secret; null when the key (salts) changed or the row was tampered with.
	 *
	 * @param string $sealed     From seal().
	 * @param string $token_hash The token's hash.
	 */
	public static function open( string $sealed, string $token_hash ): ?string {
		$prefix = self::SEAL_VERSION . ':';
		if ( strncmp( $sealed, $prefix, strlen( $prefix ) ) !== 0 ) {
			return null;
		}
		$raw = base64_decode( substr( $sealed, strlen( $prefix ) ), true ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions
		if ( false === $raw || strlen( $raw ) <= SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES ) {
			return null;
		}
		$nonce  = substr( $raw, 0, SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES );
		$cipher = substr( $raw, SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES );
		try {
			$plain = sodium_crypto_aead_xchacha20poly1305_ietf_decrypt( $cipher, $token_hash, $nonce, self::key() );
		} catch ( SodiumException $e ) {
			return null;
		}
		return false === $plain ? null : $plain;
	}

	/**
	 * URL-safe base64 without padding.
	 *
	 * @param string $bytes Raw bytes.
	 */
	public static function base64url( string $bytes ): string {
		return rtrim( strtr( base64_encode( $bytes ), '+/', '-_' ), '=' ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions
	}
}
