<?php
/**
 * The plugin's two small tables: tokens, and the replay cache of seen signatures.
 *
 * Custom tables instead of options so every change is one atomic statement: an option holding all tokens would be
 * read-modify-written by concurrent requests (a last-used update could resurrect a revoked token), and the replay
 * cache needs insert-if-absent on a primary key.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Table names and creation.
 */
final class Sitewright_Schema {

	public const VERSION        = '1';
	public const VERSION_OPTION = 'sitewright_db_version';

	/**
	 * The tokens table name.
	 */
	public static function tokens_table(): string {
		global $wpdb;
		return $wpdb->prefix . 'sitewright_tokens';
	}

	/**
	 * The replay cache table name.
	 */
	public static function seen_table(): string {
		global $wpdb;
		return $wpdb->prefix . 'sitewright_seen_signatures';
	}

	/**
	 * Creates the tables when the stored schema version differs (cheap: one autoloaded option).
	 */
	public static function maybe_install(): void {
		if ( get_option( self::VERSION_OPTION ) !== self::VERSION ) {
			self::install();
		}
	}

	/**
	 * Creates both tables if they are missing. Plain CREATE TABLE IF NOT EXISTS works on MySQL, MariaDB and the
	 * SQLite database integration alike.
	 */
	public static function install(): void {
		global $wpdb;
		$charset = $wpdb->get_charset_collate();
		$tokens  = self::tokens_table();
		$seen    = self::seen_table();
		// phpcs:disable WordPress.DB.PreparedSQL.InterpolatedNotPrepared -- table names only, no input.
		$wpdb->query(
			"CREATE TABLE IF NOT EXISTS {$tokens} (
				id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
				token_hash char(64) NOT NULL,
				last_four char(4) NOT NULL,
				scopes varchar(255) NOT NULL,
				secret text NOT NULL,
				status varchar(20) NOT NULL,
				service_url varchar(255) NOT NULL DEFAULT '',
				created_at bigint(20) NOT NULL,
				confirmed_at bigint(20) DEFAULT NULL,
				last_used_at bigint(20) DEFAULT NULL,
				PRIMARY KEY  (id),
				UNIQUE KEY token_hash (token_hash)
			) {$charset}"
		);
		$wpdb->query(
			"CREATE TABLE IF NOT EXISTS {$seen} (
				signature char(64) NOT NULL,
				expires_at bigint(20) NOT NULL,
				PRIMARY KEY  (signature),
				KEY expires_at (expires_at)
			) {$charset}"
		);
		// phpcs:enable
		update_option( self::VERSION_OPTION, self::VERSION, true );
	}

	/**
	 * Drops both tables (uninstall only).
	 */
	public static function drop(): void {
		global $wpdb;
		$wpdb->query( 'DROP TABLE IF EXISTS ' . self::tokens_table() ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		$wpdb->query( 'DROP TABLE IF EXISTS ' . self::seen_table() ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared
		delete_option( self::VERSION_OPTION );
	}

	/**
	 * Whether both tables exist (preflight).
	 */
	public static function tables_exist(): bool {
		global $wpdb;
		foreach ( array( self::tokens_table(), self::seen_table() ) as $table ) {
			if ( $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $table ) ) !== $table ) {
				return false;
			}
		}
		return true;
	}
}
