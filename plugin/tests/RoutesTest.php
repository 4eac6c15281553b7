<?php
/**
 * Every sitewright/v1 route has a permission check that fails closed, and the routes answer signed requests.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * REST routes.
 */
final class RoutesTest extends Sitewright_Test_Case {

	/**
	 * The plugin's routes with their handlers.
	 *
	 * @return array<string, array<int, array<string, mixed>>>
	 */
	private function routes(): array {
		$routes = array();
		foreach ( rest_get_server()->get_routes( 'sitewright/v1' ) as $route => $handlers ) {
			if ( 'sitewright/v1' !== trim( $route, '/' ) ) {
				$routes[ $route ] = $handlers;
			}
		}
		return $routes;
	}

	public function test_registers_info_preflight_revoke_export_import_custom_css_items_visibility_purge_and_media(): void {
		$this->assertSame(
			array( '/sitewright/v1/custom-css', '/sitewright/v1/export', '/sitewright/v1/import', '/sitewright/v1/info', '/sitewright/v1/items', '/sitewright/v1/items/visibility', '/sitewright/v1/media', '/sitewright/v1/preflight', '/sitewright/v1/purge', '/sitewright/v1/revoke' ),
			$this->sorted( array_keys( $this->routes() ) )
		);
	}

	/**
	 * Sorted copy.
	 *
	 * @param array<int, string> $values Values.
	 * @return array<int, string>
	 */
	private function sorted( array $values ): array {
		sort( $values );
		return $values;
	}

	public function test_every_route_has_a_permission_callback_that_is_not_public(): void {
		foreach ( $this->routes() as $route => $handlers ) {
			foreach ( $handlers as $handler ) {
				$this->assertIsCallable( $handler['permission_callback'] ?? null, $route );
				$this->assertNotSame( '__return_true', $handler['permission_callback'], $route );
			}
		}
	}

	public function test_anonymous_and_logged_in_administrator_calls_to_every_route_are_refused(): void {
		$admin = get_user_by( 'login', 'admin' );
		foreach ( array( 0, $admin->ID ) as $user_id ) {
			wp_set_current_user( $user_id );
			foreach ( $this->routes() as $route => $handlers ) {
				foreach ( $handlers as $handler ) {
					foreach ( array_keys( $handler['methods'] ) as $method ) {
						$response = $this->dispatch( $method, $route );
						$this->assertSame( 401, $response->get_status(), "$method $route as user $user_id" );
					}
				}
			}
		}
	}

	public function test_info_reports_the_site_the_theme_the_page_builder_and_the_tokens_scopes(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/info' );
		$this->assertSame( 200, $response->get_status() );
		$data = $response->get_data();
		$this->assertSame( get_bloginfo( 'name' ), $data['name'] );
		$this->assertSame( $GLOBALS['wp_version'], $data['wordpress'] );
		$this->assertSame( get_stylesheet(), $data['theme']['stylesheet'] );
		$this->assertSame( wp_is_block_theme(), $data['theme']['isBlockTheme'] );
		$this->assertSame( 'gutenberg', $data['pageBuilder'] );
		$this->assertSame( array( 'site:read', 'content:read' ), $data['token']['scopes'] );
		$this->assertContains( 'read_private_pages', $data['token']['capabilities'] );
		$this->assertSame( substr( $creds['token'], -4 ), $data['token']['lastFour'] );
	}

	public function test_page_builders_are_detected_from_page_content_and_meta(): void {
		$divi      = wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'publish',
				'post_title'   => 'Divi page',
				'post_content' => '[et_pb_section][et_pb_row][/et_pb_row][/et_pb_section]',
			)
		);
		$elementor = wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'draft',
				'post_title'  => 'Elementor page',
			)
		);
		update_post_meta( $elementor, '_elementor_edit_mode', 'builder' );
		try {
			$found = array_column( Sitewright_Site_Info::detect_builders(), 'evidence', 'id' );
			$this->assertContains( 'content', $found['divi'] );
			$this->assertContains( 'meta', $found['elementor'] );
			$this->assertArrayHasKey( 'gutenberg', $found );
			$this->assertContains( Sitewright_Site_Info::primary_builder(), array( 'elementor', 'divi' ) );
		} finally {
			wp_delete_post( $divi, true );
			wp_delete_post( $elementor, true );
		}
		$this->assertSame( 'gutenberg', Sitewright_Site_Info::primary_builder() );
	}

	public function test_preflight_gives_a_status_and_a_fix_for_every_check(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'timestamp' => (string) ( $this->now_ms() - 45000 ) ) ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/preflight' );
		$this->assertSame( 200, $response->get_status() );
		$data = $response->get_data();
		$ids  = array_column( $data['checks'], 'id' );
		foreach ( array( 'https', 'permalinks', 'authorization_header', 'clock_skew', 'php_version', 'wp_version', 'security_plugins', 'core_routes', 'secret_keys', 'plugin_tables' ) as $id ) {
			$this->assertContains( $id, $ids );
		}
		foreach ( $data['checks'] as $check ) {
			$this->assertContains( $check['status'], array( 'pass', 'warn', 'fail' ) );
			$this->assertNotSame( '', $check['message'] );
			if ( 'pass' !== $check['status'] ) {
				$this->assertNotSame( '', $check['fix'], $check['id'] );
			}
		}
		$by_id = array_column( $data['checks'], null, 'id' );
		$this->assertSame( 'warn', $by_id['clock_skew']['status'], 'a 45 s skew is a warning' );
		$this->assertSame( 'pass', $by_id['authorization_header']['status'] );
		$this->assertSame( 'pass', $by_id['secret_keys']['status'] );
		$this->assertSame( 'warn', $data['status'] );
	}

	public function test_preflight_warns_about_plain_permalinks_and_security_plugins(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$permalinks = get_option( 'permalink_structure' );
		$plugins    = get_option( 'active_plugins' );
		update_option( 'permalink_structure', '' );
		update_option( 'active_plugins', array_merge( $plugins, array( 'wordfence/wordfence.php' ) ) );
		try {
			$by_id = array_column( Sitewright_Preflight::run( Sitewright_Auth::context() )['checks'], null, 'id' );
			$this->assertSame( 'warn', $by_id['permalinks']['status'] );
			$this->assertSame( 'warn', $by_id['security_plugins']['status'] );
			$this->assertStringContainsString( 'Wordfence', $by_id['security_plugins']['message'] );
		} finally {
			update_option( 'permalink_structure', $permalinks );
			update_option( 'active_plugins', $plugins );
		}
	}

	public function test_revoke_ends_the_calling_tokens_access_only(): void {
		$caller = Sitewright_Credentials::create( array( 'site:read' ) );
		$other  = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $caller, array( 'method' => 'POST', 'route' => '/sitewright/v1/revoke' ) ), $this->now_ms() ) );
		$response = $this->dispatch( 'POST', '/sitewright/v1/revoke' );
		$this->assertSame( 200, $response->get_status() );
		$this->assertSame( array( 'revoked' => true ), $response->get_data() );
		$this->assertNull( Sitewright_Credentials::find_by_token( $caller['token'] ) );
		$this->assertNotNull( Sitewright_Credentials::find_by_token( $other['token'] ) );
		Sitewright_Auth::reset();
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $caller ), $this->now_ms() ), 'sitewright_bad_token' );
	}
}
