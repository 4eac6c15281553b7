<?php
/**
 * On a real multisite network (a second WordPress, on SQLite, driven in its own processes by multisite/network.php):
 * network activation sets up every site, a site added later is set up too, and uninstall cleans every site and the
 * network's agent user.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Multisite.
 */
final class MultisiteTest extends Sitewright_Test_Case {

	/**
	 * Runs a PHP script, failing the test with its output when it fails.
	 *
	 * @param array<int, string> $args Script and arguments.
	 */
	private function php( array $args ): string {
		$command = 'php ' . implode( ' ', array_map( 'escapeshellarg', $args ) ) . ' 2>&1';
		exec( $command, $output, $status );
		$this->assertSame( 0, $status, implode( "\n", $output ) );
		return (string) end( $output );
	}

	public function test_network_activation_and_uninstall_cover_every_site_of_a_network(): void {
		$dir = sys_get_temp_dir() . '/sitewright-multisite-' . bin2hex( random_bytes( 6 ) );
		$wp  = $dir . '/wordpress';
		mkdir( $dir . '/database', 0700, true );
		try {
			passthru( 'cp -r ' . escapeshellarg( SITEWRIGHT_TEST_TREE ) . ' ' . escapeshellarg( $wp ) . ' && cp -r ' . escapeshellarg( dirname( __DIR__ ) ) . ' ' . escapeshellarg( $wp . '/wp-content/plugins/sitewright-connector' ), $status );
			$this->assertSame( 0, $status );
			$config = array(
				'DISABLE_WP_CRON'        => true,
				'WP_HTTP_BLOCK_EXTERNAL' => true,
				'WP_ALLOW_MULTISITE'     => true,
			);
			file_put_contents( $wp . '/wp-config.php', sitewright_render_wp_config( 'MultisiteTest', $dir . '/database/', 'wordpress.sqlite', $config ) ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_system_operations_file_put_contents
			$this->php( array( SITEWRIGHT_TEST_REPO . '/scripts/site-local/install.php', '--wp=' . $wp, '--url=https://localhost', '--admin-user=admin', '--admin-password=' . bin2hex( random_bytes( 8 ) ), '--admin-email=admin@example.com', '--plugin=' ) );
			$this->php( array( __DIR__ . '/multisite/network.php', '--wp=' . $wp, '--step=convert' ) );
			$network = array(
				'MULTISITE'            => true,
				'SUBDOMAIN_INSTALL'    => false,
				'DOMAIN_CURRENT_SITE'  => 'localhost',
				'PATH_CURRENT_SITE'    => '/',
				'SITE_ID_CURRENT_SITE' => 1,
				'BLOG_ID_CURRENT_SITE' => 1,
			);
			file_put_contents( $wp . '/wp-config.php', sitewright_render_wp_config( 'MultisiteTest', $dir . '/database/', 'wordpress.sqlite', array_merge( $config, $network ) ) ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_system_operations_file_put_contents

			$out   = $this->php( array( __DIR__ . '/multisite/network.php', '--wp=' . $wp, '--step=check' ) );
			$facts = json_decode( $out, true );
			$this->assertIsArray( $facts, $out );
		} finally {
			passthru( 'rm -rf ' . escapeshellarg( $dir ) );
		}

		$this->assertTrue( $facts['multisite'] );
		$this->assertTrue( $facts['networkActive'] );
		$this->assertTrue( $facts['agentUser'] );
		$this->assertCount( 3, $facts['installed'] );
		foreach ( $facts['installed'] as $index => $site ) {
			$this->assertSame( array( 'sitewright_tokens', 'sitewright_seen_signatures' ), $site['tables'], "site $index before uninstall" );
			$this->assertContains( 'sitewright_db_version', $site['options'], "site $index before uninstall" );
			$this->assertTrue( $site['cron'], "site $index before uninstall" );
		}
		foreach ( $facts['uninstalled'] as $index => $site ) {
			$this->assertSame(
				array(
					'tables'  => array(),
					'options' => array(),
					'cron'    => false,
				),
				$site,
				"site $index after uninstall"
			);
		}
		$this->assertFalse( $facts['agentUserAfter'] );
	}
}
