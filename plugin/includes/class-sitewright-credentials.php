<?php
/**
 * Tokens: created with their secret, stored as a hash (token) and sealed (secret), looked up, revoked.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

// phpcs:disable WordPress.DB.DirectDatabaseQuery -- our own table; each change is one atomic statement (a revoked token must never be read from a cache).

/**
 * The token store.
 */
final class Sitewright_Credentials {

	public const STATUS_PENDING = 'pending';
	public const STATUS_ACTIVE  = 'active';

	/**
	 * Creates a token and secret. Returns the plain values: they are shown or sent once, never stored in clear.
	 *
	 * @param array<int, string> $scopes      Scopes (unknown ones are dropped).
	 * @param string             $status      Either 'pending' while the service has not redeemed it yet, else 'active'.
	 * @param string             $service_url The service it was made for, if any.
	 * @return array{id: int, token: string, secret: string, scopes: array<int, string>}
	 * @throws RuntimeException When the token cannot be stored.
	 */
	public static function create( array $scopes, string $status = self::STATUS_ACTIVE, string $service_url = '' ): array {
		global $wpdb;
		Sitewright_Schema::maybe_install();
		$scopes = Sitewright_Scopes::sanitize( $scopes );
		$token  = Sitewright_Crypto::new_token();
		$secret = Sitewright_Crypto::new_secret();
		$hash   = Sitewright_Crypto::hash_token( $token );
		$ok     = $wpdb->insert(
			Sitewright_Schema::tokens_table(),
			array(
				'token_hash'  => $hash,
				'last_four'   => substr( $token, -4 ),
				'scopes'      => implode( ' ', $scopes ),
				'secret'      => Sitewright_Crypto::seal( $secret, $hash ),
				'status'      => $status,
				'service_url' => $service_url,
				'created_at'  => time(),
			),
			array( '%s', '%s', '%s', '%s', '%s', '%s', '%d' )
		);
		if ( ! $ok ) {
			throw new RuntimeException( 'Could not store the new Sitewright token.' );
		}
		Sitewright_Agent_User::ensure();
		return array(
			'id'     => (int) $wpdb->insert_id,
			'token'  => $token,
			'secret' => $secret,
			'scopes' => $scopes,
		);
	}

	/**
	 * The stored row for a plain token, or null.
	 *
	 * @param string $token Bearer token.
	 * @return array<string, mixed>|null
	 */
	public static function find_by_token( string $token ): ?array {
		global $wpdb;
		if ( ! Sitewright_Crypto::looks_like_token( $token ) ) {
			return null;
		}
		$table = Sitewright_Schema::tokens_table();
		$row   = $wpdb->get_row(
			$wpdb->prepare( "SELECT * FROM {$table} WHERE token_hash = %s", Sitewright_Crypto::hash_token( $token ) ), // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			ARRAY_A
		);
		if ( ! is_array( $row ) || ! hash_equals( (string) $row['token_hash'], Sitewright_Crypto::hash_token( $token ) ) ) {
			return null;
		}
		return self::shape( $row );
	}

	/**
	 * All tokens, newest first, without secrets.
	 *
	 * @return array<int, array<string, mixed>>
	 */
	public static function all(): array {
		global $wpdb;
		$table = Sitewright_Schema::tokens_table();
		$rows  = $wpdb->get_results( "SELECT * FROM {$table} ORDER BY id DESC", ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		$out   = array();
		foreach ( (array) $rows as $row ) {
			$shaped = self::shape( $row );
			unset( $shaped['sealed_secret'], $shaped['token_hash'] );
			$out[] = $shaped;
		}
		return $out;
	}

	/**
	 * Marks a pending token active (after the service redeemed it).
	 *
	 * @param int $id Token id.
	 */
	public static function activate( int $id ): void {
		global $wpdb;
		$wpdb->update( Sitewright_Schema::tokens_table(), array( 'status' => self::STATUS_ACTIVE ), array( 'id' => $id ), array( '%s' ), array( '%d' ) );
	}

	/**
	 * Replaces one token's scopes (the owner widened or narrowed them in Settings → Sitewright), without a new token:
	 * the next signed request is checked against the new list. Unknown scopes are dropped; an empty list is refused.
	 *
	 * @param int                $id     Token id.
	 * @param array<int, string> $scopes Scopes.
	 * @return array<int, string>|null The stored scopes, or null when the token does not exist or none are valid.
	 */
	public static function set_scopes( int $id, array $scopes ): ?array {
		global $wpdb;
		$scopes = Sitewright_Scopes::sanitize( $scopes );
		if ( ! $scopes ) {
			return null;
		}
		$table   = Sitewright_Schema::tokens_table();
		$changed = $wpdb->query(
			$wpdb->prepare( "UPDATE {$table} SET scopes = %s WHERE id = %d", implode( ' ', $scopes ), $id ) // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		);
		if ( false === $changed ) {
			return null;
		}
		$exists = (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$table} WHERE id = %d", $id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		return $exists > 0 ? $scopes : null;
	}

	/**
	 * Records a verified request: last use, and confirmation on the first one. One statement, so it cannot bring
	 * back a row that was revoked meanwhile.
	 *
	 * @param int $id Token id.
	 */
	public static function touch( int $id ): void {
		global $wpdb;
		$table = Sitewright_Schema::tokens_table();
		$now   = time();
		$wpdb->query(
			$wpdb->prepare(
				"UPDATE {$table} SET last_used_at = %d, confirmed_at = COALESCE(confirmed_at, %d) WHERE id = %d", // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
				$now,
				$now,
				$id
			)
		);
	}

	/**
	 * Revokes (deletes) one token.
	 *
	 * @param int $id Token id.
	 */
	public static function revoke( int $id ): bool {
		global $wpdb;
		return (bool) $wpdb->delete( Sitewright_Schema::tokens_table(), array( 'id' => $id ), array( '%d' ) );
	}

	/**
	 * Revokes every token except, optionally, one. Returns how many were revoked.
	 *
	 * @param int $except_id Token id to keep (0 = none).
	 */
	public static function revoke_all( int $except_id = 0 ): int {
		global $wpdb;
		$table = Sitewright_Schema::tokens_table();
		return (int) $wpdb->query( $wpdb->prepare( "DELETE FROM {$table} WHERE id <> %d", $except_id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}

	/**
	 * The pairing: the newest active token made by the Connect form (it names its service), with its hash and sealed
	 * secret, or null when the site is not paired.
	 *
	 * @return array<string, mixed>|null
	 */
	public static function paired(): ?array {
		global $wpdb;
		$table = Sitewright_Schema::tokens_table();
		$row   = $wpdb->get_row(
			$wpdb->prepare( "SELECT * FROM {$table} WHERE status = %s AND service_url <> '' ORDER BY id DESC LIMIT 1", self::STATUS_ACTIVE ), // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			ARRAY_A
		);
		return is_array( $row ) ? self::shape( $row ) : null;
	}

	/**
	 * Normalizes a row's types.
	 *
	 * @param array<string, mixed> $row Database row.
	 * @return array<string, mixed>
	 */
	private static function shape( array $row ): array {
		return array(
			'id'            => (int) $row['id'],
			'token_hash'    => (string) $row['token_hash'],
			'last_four'     => (string) $row['last_four'],
			'scopes'        => Sitewright_Scopes::sanitize( explode( ' ', (string) $row['scopes'] ) ),
			'sealed_secret' => (string) $row['secret'],
			'status'        => (string) $row['status'],
			'service_url'   => (string) $row['service_url'],
			'created_at'    => (int) $row['created_at'],
			'confirmed_at'  => null === $row['confirmed_at'] ? null : (int) $row['confirmed_at'],
			'last_used_at'  => null === $row['last_used_at'] ? null : (int) $row['last_used_at'],
		);
	}
}
