<?php
/**
 * Uninstalling removes every table, option, transient and the agent user. Runs last (Z) and reinstalls after.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Uninstall.
 */
final class UninstallTest extends Sitewright_Test_Case {

	public function test_uninstall_leaves_nothing_of_the_plugin_behind(): void {
		global $wpdb;
		Sitewright_Credentials::create( array( 'site:read' ) );
		Sitewright_Replay_Cache::remember( bin2hex( random_bytes( 32 ) ), time() + 60 );
		update_option( Sitewright_Pairing::SERVICE_OPTION, 'https://app.example.com' );
		set_transient( 'sitewright_notice_1', array( 'x' ), 60 );
		$this->assertGreaterThan( 0, Sitewright_Agent_User::id() );

		if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
			define( 'WP_UNINSTALL_PLUGIN', 'sitewright-connector/sitewright-connector.php' );
		}
		include WP_PLUGIN_DIR . '/sitewright-connector/uninstall.php';
		wp_cache_flush();

		try {
			$this->assertFalse( Sitewright_Schema::tables_exist() );
			$this->assertFalse( get_user_by( 'login', Sitewright_Agent_User::LOGIN ) );
			$left = $wpdb->get_col( $wpdb->prepare( "SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s", '%sitewright%' ) );
			$this->assertSame( array(), $left );
		} finally {
			Sitewright_Plugin::activate();
		}
		$this->assertTrue( Sitewright_Schema::tables_exist() );
	}
}
