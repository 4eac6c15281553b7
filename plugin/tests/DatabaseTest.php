<?php
/**
 * The plugin's tables are created and migrated with dbDelta(), driven by the stored schema version.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Tables and migrations.
 */
final class DatabaseTest extends Sitewright_Test_Case {

	public function test_an_older_schema_is_migrated_on_the_next_request_after_an_upgrade(): void {
		global $wpdb;
		$tokens = Sitewright_Schema::tokens_table();
		// phpcs:disable WordPress.DB.PreparedSQL.InterpolatedNotPrepared, WordPress.DB.DirectDatabaseQuery -- test fixture on our own tables.
		$wpdb->query( 'DROP TABLE IF EXISTS ' . Sitewright_Schema::seen_table() );
		$wpdb->query( "DROP TABLE IF EXISTS {$tokens}" );
		// Version 1 of the tokens table, without the columns a later version added.
		$wpdb->query(
			"CREATE TABLE {$tokens} (
				id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
				token_hash char(64) NOT NULL,
				last_four char(4) NOT NULL,
				scopes varchar(255) NOT NULL,
				secret text NOT NULL,
				status varchar(20) NOT NULL,
				created_at bigint(20) NOT NULL,
				PRIMARY KEY  (id)
			)"
		);
		update_option( Sitewright_Schema::VERSION_OPTION, '1' );

		// The next request runs what the plugin hooked on init. Not do_action( 'init' ): running every core init
		// callback a second time registers core's blocks twice, a _doing_it_wrong notice that fails under WP_DEBUG.
		$this->assertSame( 10, has_action( 'init', array( Sitewright_Schema::class, 'maybe_install' ) ) );
		Sitewright_Schema::maybe_install();

		$columns = $wpdb->get_col( "SELECT * FROM {$tokens} LIMIT 0" ) ? array() : $wpdb->get_col_info( 'name' );
		// phpcs:enable
		$this->assertSame( Sitewright_Schema::VERSION, get_option( Sitewright_Schema::VERSION_OPTION ) );
		$this->assertTrue( Sitewright_Schema::tables_exist() );
		foreach ( array( 'service_url', 'confirmed_at', 'last_used_at' ) as $column ) {
			$this->assertContains( $column, $columns );
		}
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ), 'tokens and the replay cache work after the migration' );
	}

	public function test_install_is_idempotent(): void {
		Sitewright_Schema::install();
		Sitewright_Schema::install();
		$this->assertTrue( Sitewright_Schema::tables_exist() );
	}
}
