<?php
/**
 * Signatures seen within the timestamp window. Recording is one INSERT IGNORE on a primary key: atomic
 * insert-if-absent on MySQL, MariaDB and the SQLite integration, so of N parallel copies exactly one wins.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

// phpcs:disable WordPress.DB.DirectDatabaseQuery -- our own table; insert-if-absent must hit the database, never a cache.

/**
 * The replay cache.
 */
final class Sitewright_Replay_Cache {

	/**
	 * Records a signature; false when it was already there (a replay).
	 *
	 * @param string $signature_hex The request's 64 hex digits.
	 * @param int    $expires_at    Unix seconds after which the entry can go (the window has closed for it).
	 * @throws RuntimeException When the table cannot be written (the request is then refused).
	 */
	public static function remember( string $signature_hex, int $expires_at ): bool {
		global $wpdb;
		$table = Sitewright_Schema::seen_table();
		// Hash again so the key is fixed-length and the table never holds a usable signature.
		$key      = hash( 'sha256', $signature_hex );
		$inserted = $wpdb->query(
			$wpdb->prepare( "INSERT IGNORE INTO {$table} (signature, expires_at) VALUES (%s, %d)", $key, $expires_at ) // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		);
		if ( false === $inserted ) {
			throw new RuntimeException( 'The replay cache could not be written.' );
		}
		if ( 0 === wp_rand( 0, 15 ) ) {
			self::prune();
		}
		return 1 === (int) $inserted;
	}

	/**
	 * Deletes entries whose window has closed.
	 */
	public static function prune(): int {
		global $wpdb;
		$table = Sitewright_Schema::seen_table();
		return (int) $wpdb->query( $wpdb->prepare( "DELETE FROM {$table} WHERE expires_at < %d", time() ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}
}
