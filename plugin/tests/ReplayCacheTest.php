<?php
/**
 * The replay cache on the SQLite database integration: insert-if-absent and pruning.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Replay cache.
 */
final class ReplayCacheTest extends Sitewright_Test_Case {

	public function test_records_a_signature_once_and_reports_the_second_time(): void {
		$signature = bin2hex( random_bytes( 32 ) );
		$this->assertTrue( Sitewright_Replay_Cache::remember( $signature, time() + 360 ) );
		$this->assertFalse( Sitewright_Replay_Cache::remember( $signature, time() + 360 ) );
		$this->assertTrue( Sitewright_Replay_Cache::remember( bin2hex( random_bytes( 32 ) ), time() + 360 ) );
	}

	public function test_pruning_removes_only_entries_whose_window_has_closed(): void {
		global $wpdb;
		$old   = bin2hex( random_bytes( 32 ) );
		$fresh = bin2hex( random_bytes( 32 ) );
		Sitewright_Replay_Cache::remember( $old, time() - 1 );
		Sitewright_Replay_Cache::remember( $fresh, time() + 360 );
		Sitewright_Replay_Cache::prune();
		$table = Sitewright_Schema::seen_table();
		$count = static fn( string $sig ): int => (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$table} WHERE signature = %s", hash( 'sha256', $sig ) ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		$this->assertSame( 0, $count( $old ) );
		$this->assertSame( 1, $count( $fresh ) );
		$this->assertTrue( Sitewright_Replay_Cache::remember( $old, time() + 360 ), 'a pruned entry can be recorded again' );
	}

	public function test_stores_a_hash_of_the_signature_not_the_signature(): void {
		global $wpdb;
		$signature = bin2hex( random_bytes( 32 ) );
		Sitewright_Replay_Cache::remember( $signature, time() + 360 );
		$table = Sitewright_Schema::seen_table();
		$this->assertSame( '0', (string) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$table} WHERE signature = %s", $signature ) ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
	}
}
