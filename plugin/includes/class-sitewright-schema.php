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

// phpcs:disable WordPress.DB.DirectDatabaseQuery -- creating, inspecting and dropping our own tables.

/**
 * Table names and creation.
 */
final class Sitewright_Schema {

	public const VERSION        = '2';
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
	 * Migrates when the stored schema version differs from this code's (an upgrade, or a site of a network that has
	 * not been set up yet). Cheap on every request: one autoloaded option.
	 */
	public static function maybe_install(): void {
		if ( get_option( self::VERSION_OPTION ) !== self::VERSION ) {
			self::install();
		}
	}

	/**
	 * Creates or alters both tables to match the definitions below with dbDelta(), which adds missing tables,
	 * columns and indexes (it never drops any), so a later version's schema migrates in place.
	 */
	public static function install(): void {
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		foreach ( self::definitions() as $sql ) {
			dbDelta( $sql );
		}
		update_option( self::VERSION_OPTION, self::VERSION, true );
	}

	/**
	 * The CREATE TABLE statements, in dbDelta()'s format (one column per line, two spaces after PRIMARY KEY).
	 *
	 * @return array<int, string>
	 */
	public static function definitions(): array {
		global $wpdb;
		$charset = $wpdb->get_charset_collate();
		$tokens  = self::tokens_table();
		$seen    = self::seen_table();
		return array(
			"CREATE TABLE {$tokens} (
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
			) {$charset};",
			"CREATE TABLE {$seen} (
				signature char(64) NOT NULL,
				expires_at bigint(20) NOT NULL,
				PRIMARY KEY  (signature),
				KEY expires_at (expires_at)
			) {$charset};",
		);
	}

	/**
	 * Drops both tables (uninstall only).
	 */
	public static function drop(): void {
		global $wpdb;
		$wpdb->query( 'DROP TABLE IF EXISTS ' . self::tokens_table() ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared, WordPress.DB.DirectDatabaseQuery.SchemaChange -- uninstall drops our own table; the name is not input.
		$wpdb->query( 'DROP TABLE IF EXISTS ' . self::seen_table() ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared, WordPress.DB.DirectDatabaseQuery.SchemaChange -- uninstall drops our own table; the name is not input.
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
