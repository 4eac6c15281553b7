<?php
/**
 * The atomic conditional batch behind POST /sitewright/v1/items: every change names the version it expects, and the
 * whole batch is applied or nothing is. Item kinds (Sitewright_Item_Kinds) read and write each change; this class
 * owns what every kind shares: Sitewright's write lock, the database transaction and row locks, the version check,
 * the visibility re-check (requireInvisible) and rollback.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The batch engine.
 */
final class Sitewright_Item_Batch {

	/** The option row that serialises Sitewright's own batches. */
	private const LOCK_OPTION = '_sitewright_items_lock';

	/** A lock older than this many seconds was left by a dead request and may be taken over. */
	private const LOCK_STALE_SECONDS = 30;

	/**
	 * Checks every change's `expect` against the item's current version and applies the changes in order, all or
	 * nothing. The check and the writes run inside one database transaction (rolled back on any failure) and under
	 * Sitewright's own lock (so two batches never interleave); on MySQL the rows are locked FOR UPDATE first, so a
	 * person's save cannot land between the check and the write.
	 *
	 * With $require_invisible, every change is checked again inside the lock (after the versions): if visitors would
	 * see any of them now, nothing is written and the answer is 409 sitewright_visible naming the first.
	 *
	 * @param array<int, array<string, mixed>> $changes           Validated changes.
	 * @param bool                             $require_invisible Refuse the batch if any change would be seen.
	 * @return array{items: array<int, array<string, mixed>>}|WP_Error
	 */
	public static function apply( array $changes, bool $require_invisible = false ) {
		global $wpdb;
		if ( ! self::lock() ) {
			return new WP_Error( 'sitewright_busy', __( 'Another change is being written to this site; try again in a moment.', 'sitewright-connector' ), array( 'status' => 503 ) );
		}
		$wpdb->query( 'START TRANSACTION' ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		try {
			self::lock_rows( $changes );
			$refused = self::refuse_stale( $changes ) ?? ( $require_invisible ? self::refuse_visible( $changes ) : null );
			$result  = $refused ?? self::apply_all( $changes );
			if ( is_wp_error( $result ) ) {
				self::rollback();
				return $result;
			}
			$wpdb->query( 'COMMIT' ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			return array( 'items' => $result );
		} catch ( Throwable $error ) {
			self::rollback();
			return new WP_Error( 'sitewright_items_failed', __( 'The site could not write these changes; nothing was written.', 'sitewright-connector' ), array( 'status' => 500 ) );
		} finally {
			self::unlock();
		}
	}

	/**
	 * 409 sitewright_stale naming every item that is missing or not at the version its first change expects, or null.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private static function refuse_stale( array $changes ): ?WP_Error {
		$stale = array();
		$seen  = array();
		foreach ( $changes as $change ) {
			if ( 'create' === $change['action'] || isset( $seen[ $change['ref'] ] ) ) {
				continue;
			}
			$seen[ $change['ref'] ] = true;
			$current                = Sitewright_Items::read( $change['ref'] );
			if ( ! $current['exists'] ) {
				$stale[] = array(
					'ref'    => $change['ref'],
					'reason' => 'missing',
				);
			} elseif ( ! Sitewright_Items::matches( $current['state'], (string) $change['expect'] ) ) {
				$stale[] = array(
					'ref'     => $change['ref'],
					'reason'  => 'changed',
					'version' => $current['version'],
				);
			}
		}
		if ( ! $stale ) {
			return null;
		}
		return new WP_Error(
			'sitewright_stale',
			__( 'Some items changed on the site since they were read; nothing was written.', 'sitewright-connector' ),
			array(
				'status' => 409,
				'items'  => $stale,
			)
		);
	}

	/**
	 * 409 sitewright_visible naming the first change visitors would see now (docs/visibility.md), or null.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private static function refuse_visible( array $changes ): ?WP_Error {
		$visible = Sitewright_Visibility::first_visible( $changes );
		if ( null === $visible ) {
			return null;
		}
		return new WP_Error(
			'sitewright_visible',
			__( 'Visitors would now see this change, so it waits for the owner\'s approval; nothing was written.', 'sitewright-connector' ),
			array( 'status' => 409 ) + $visible
		);
	}

	/**
	 * Applies the changes in order (a later change of an item must expect the version the earlier one produced).
	 * Returns the written items, or the first error (its status kept if 400 or 409, else 500, with the ref).
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 * @return array<int, array<string, mixed>>|WP_Error
	 */
	private static function apply_all( array $changes ) {
		$done     = array();
		$versions = array();
		foreach ( $changes as $change ) {
			$ref = $change['ref'];
			if ( isset( $versions[ $ref ] ) && ! hash_equals( (string) $versions[ $ref ], (string) $change['expect'] ) ) {
				return new WP_Error(
					'sitewright_stale',
					__( 'A later change of the same item expected another version; nothing was written.', 'sitewright-connector' ),
					array(
						'status' => 409,
						'items'  => array(
							array(
								'ref'    => $ref,
								'reason' => 'changed',
							),
						),
					)
				);
			}
			$result = self::apply_one( $change );
			if ( is_wp_error( $result ) ) {
				$data   = (array) $result->get_error_data();
				$status = (int) ( $data['status'] ?? 0 );
				$result->add_data(
					array_merge(
						$data,
						array(
							'status' => in_array( $status, array( 400, 409 ), true ) ? $status : 500,
							'ref'    => $ref,
						)
					)
				);
				return $result;
			}
			$versions[ $result['ref'] ] = $result['version'];
			$done[]                     = $result;
		}
		return $done;
	}

	/**
	 * Rolls the transaction back and forgets cached objects it may have touched.
	 */
	private static function rollback(): void {
		global $wpdb;
		$wpdb->query( 'ROLLBACK' ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		wp_cache_flush();
	}

	/**
	 * On MySQL/MariaDB, locks the rows of the posts and options the batch touches until COMMIT or ROLLBACK, so a
	 * concurrent save by a person waits for us (and we see theirs if it came first). SQLite has one writer at a time.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private static function lock_rows( array $changes ): void {
		global $wpdb;
		if ( defined( 'DB_ENGINE' ) && 'sqlite' === DB_ENGINE ) {
			return;
		}
		$ids     = array();
		$options = array();
		foreach ( $changes as $change ) {
			list( $kind, $key )    = (array) Sitewright_Items::parse_ref( $change['ref'] );
			list( $posts, $names ) = Sitewright_Item_Kinds::get( (string) $kind )->rows( (string) $key );
			$ids                   = array_merge( $ids, $posts );
			$options               = array_merge( $options, $names );
		}
		if ( $ids ) {
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQLPlaceholders.UnfinishedPrepare
			$wpdb->query( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE ID IN (" . implode( ',', array_fill( 0, count( $ids ), '%d' ) ) . ') FOR UPDATE', $ids ) );
		}
		if ( $options ) {
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQLPlaceholders.UnfinishedPrepare
			$wpdb->query( $wpdb->prepare( "SELECT option_id FROM {$wpdb->options} WHERE option_name IN (" . implode( ',', array_fill( 0, count( $options ), '%s' ) ) . ') FOR UPDATE', $options ) );
		}
	}

	/**
	 * Takes Sitewright's write lock: an option row inserted only if absent (atomic on MySQL and SQLite), taken over
	 * when a crashed request left it behind. Waits up to 10 s.
	 */
	private static function lock(): bool {
		global $wpdb;
		$deadline = microtime( true ) + 10;
		do {
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery
			$inserted = $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::LOCK_OPTION, (string) time() ) );
			if ( 1 === $inserted ) {
				return true;
			}
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery
			$since = (int) $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::LOCK_OPTION ) );
			if ( $since > 0 && time() - $since > self::LOCK_STALE_SECONDS ) {
				// phpcs:ignore WordPress.DB.DirectDatabaseQuery
				$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value = %s", self::LOCK_OPTION, (string) $since ) );
				continue;
			}
			usleep( 50000 );
		} while ( microtime( true ) < $deadline );
		return false;
	}

	/**
	 * Releases the write lock.
	 */
	private static function unlock(): void {
		global $wpdb;
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s", self::LOCK_OPTION ) );
	}

	/**
	 * Applies one change through its kind and reads the item back.
	 *
	 * @param array<string, mixed> $change Change.
	 * @return array<string, mixed>|WP_Error
	 */
	private static function apply_one( array $change ) {
		list( $name, $key ) = (array) Sitewright_Items::parse_ref( $change['ref'] );
		$kind               = Sitewright_Item_Kinds::get( (string) $name );
		$action             = (string) $change['action'];
		$before             = 'create' === $action ? null : Sitewright_Items::read( $change['ref'] );
		$written            = $kind->write_item( $action, (string) $key, (array) ( $change['fields'] ?? array() ) );
		if ( is_wp_error( $written ) ) {
			return $written;
		}
		$ref      = 'delete' === $action ? $change['ref'] : $name . ':' . $written;
		$revision = $kind->revision( $action, $written );
		$after    = Sitewright_Items::read( $ref );
		$item     = array(
			'ref'     => $ref,
			'action'  => $change['action'],
			'title'   => $after['title'] ? $after['title'] : ( $before['title'] ?? '' ),
			'before'  => $before['state'] ?? null,
			'after'   => $after['state'],
			'version' => $after['version'],
		);
		if ( null !== $revision ) {
			$item['revisionId'] = $revision;
		}
		return $item;
	}
}
