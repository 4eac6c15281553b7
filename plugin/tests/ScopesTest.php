<?php
/**
 * The scope map: which scopes each route and method need, and what they lend the agent user.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Scope map.
 */
final class ScopesTest extends Sitewright_Test_Case {

	private const WRITES = array( 'POST', 'PUT', 'PATCH', 'DELETE' );

	/**
	 * Routes a read-only token might try to write to.
	 *
	 * @return array<int, string>
	 */
	private function known_routes(): array {
		return array(
			'/sitewright/v1/info',
			'/sitewright/v1/preflight',
			'/sitewright/v1/export',
			'/sitewright/v1/import',
			'/wp/v2/pages',
			'/wp/v2/pages/12',
			'/wp/v2/posts/3',
			'/wp/v2/media',
			'/wp/v2/settings',
			'/wp/v2/menus/2',
			'/wp/v2/global-styles/9',
			'/wp/v2/templates/' . get_stylesheet() . '//home',
			'/wp/v2/users',
			'/wp/v2/users/1',
			'/wp/v2/plugins',
			'/batch/v1',
			'/some-plugin/v1/thing',
		);
	}

	public function test_a_read_only_token_is_refused_every_write_method_on_every_route(): void {
		$read = array( 'site:read', 'content:read' );
		foreach ( $this->known_routes() as $route ) {
			foreach ( self::WRITES as $method ) {
				$this->assertFalse( Sitewright_Scopes::allows( $read, $method, $route ), "$method $route" );
			}
		}
	}

	public function test_a_token_with_every_scope_still_cannot_touch_users_plugins_or_batch_requests(): void {
		foreach ( array( '/wp/v2/users', '/wp/v2/users/1', '/wp/v2/users/1/application-passwords', '/wp/v2/plugins/akismet/akismet', '/batch/v1', '/other/v1/x' ) as $route ) {
			foreach ( self::WRITES as $method ) {
				$this->assertFalse( Sitewright_Scopes::allows( Sitewright_Scopes::ALL, $method, $route ), "$method $route" );
			}
		}
		$this->assertFalse( Sitewright_Scopes::allows( Sitewright_Scopes::ALL, 'GET', '/wp/v2/users' ) );
		$this->assertTrue( Sitewright_Scopes::allows( array( 'site:read' ), 'GET', '/wp/v2/users/me' ) );
	}

	public function test_each_write_needs_its_own_scope(): void {
		$cases = array(
			array( 'POST', '/wp/v2/pages', 'content:write' ),
			array( 'DELETE', '/wp/v2/posts/3', 'content:write' ),
			array( 'POST', '/wp/v2/media', 'media:write' ),
			array( 'POST', '/wp/v2/settings', 'settings:write' ),
			array( 'POST', '/wp/v2/global-styles/9', 'design:write' ),
			array( 'PUT', '/wp/v2/menu-items/4', 'design:write' ),
			array( 'POST', '/wp/v2/templates/' . get_stylesheet() . '//home', 'design:write' ),
		);
		foreach ( $cases as list( $method, $route, $scope ) ) {
			$this->assertTrue( Sitewright_Scopes::allows( array( $scope ), $method, $route ), "$method $route with $scope" );
			$others = array_values( array_diff( Sitewright_Scopes::ALL, array( $scope ) ) );
			$this->assertFalse( Sitewright_Scopes::allows( $others, $method, $route ), "$method $route without $scope" );
		}
	}

	public function test_reads_need_a_read_scope(): void {
		$this->assertTrue( Sitewright_Scopes::allows( array( 'site:read' ), 'GET', '/sitewright/v1/info' ) );
		$this->assertFalse( Sitewright_Scopes::allows( array( 'content:read' ), 'GET', '/sitewright/v1/info' ) );
		$this->assertTrue( Sitewright_Scopes::allows( array( 'content:read' ), 'GET', '/wp/v2/pages' ) );
		$this->assertFalse( Sitewright_Scopes::allows( array( 'site:read' ), 'GET', '/wp/v2/pages' ) );
		$this->assertTrue( Sitewright_Scopes::allows( array( 'content:read' ), 'HEAD', '/wp/v2/pages' ) );
		$this->assertFalse( Sitewright_Scopes::allows( array( 'content:read' ), 'GET', '/sitewright/v1/export' ) );
		$this->assertTrue( Sitewright_Scopes::allows( array( 'site:read', 'content:read' ), 'GET', '/sitewright/v1/export' ) );
	}

	public function test_routes_the_map_does_not_name_are_refused_to_every_token_for_every_method(): void {
		$unnamed = array(
			'/',
			'/wp-abilities/v1/abilities',
			'/wp-abilities/v1/abilities/core/get-site-info/run',
			'/another-plugin/v2/items',
			'/wc/v3/orders',
			'/wp/v2/comments',
			'/wp/v2/search',
			'/wp/v2/plugins',
			'/wp/v2/themes',
			'/wp/v2/widgets',
			'/wp/v2/font-families',
			'/wp/v2/a-route-from-wordpress-9',
			'/wp-site-health/v1/tests/background-updates',
			'/wp-block-editor/v1/url-details',
			'/oembed/1.0/proxy',
			'/sitewright/v1/a-future-route',
			'/sitewright/v2/info',
			'/wp/v2/pagesx',
		);
		foreach ( $unnamed as $route ) {
			foreach ( array( 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE' ) as $method ) {
				$this->assertNull( Sitewright_Scopes::required( $method, $route ), "$method $route" );
				$this->assertFalse( Sitewright_Scopes::allows( Sitewright_Scopes::ALL, $method, $route ), "$method $route" );
			}
		}
	}

	public function test_every_route_the_agent_and_service_call_is_named(): void {
		$cases = array(
			array( 'GET', '/sitewright/v1/info', array( 'site:read' ) ),
			array( 'GET', '/sitewright/v1/preflight', array( 'site:read' ) ),
			array( 'GET', '/sitewright/v1/custom-css', array( 'site:read' ) ),
			array( 'POST', '/sitewright/v1/custom-css', array( 'design:write' ) ),
			array( 'GET', '/wp/v2/pages', array( 'content:read' ) ),
			array( 'GET', '/wp/v2/posts/7', array( 'content:read' ) ),
			array( 'GET', '/wp/v2/pages/7/revisions', array( 'content:read' ) ),
			array( 'POST', '/wp/v2/pages/7', array( 'content:write' ) ),
			array( 'DELETE', '/wp/v2/pages/7', array( 'content:write' ) ),
			array( 'GET', '/wp/v2/media/4', array( 'content:read' ) ),
			array( 'GET', '/wp/v2/settings', array( 'site:read' ) ),
			array( 'POST', '/wp/v2/settings', array( 'settings:write' ) ),
			array( 'GET', '/wp/v2/menus', array( 'content:read' ) ),
			array( 'POST', '/wp/v2/menu-items/5', array( 'design:write' ) ),
			array( 'GET', '/wp/v2/navigation/9', array( 'content:read' ) ),
			array( 'POST', '/wp/v2/navigation/9', array( 'design:write' ) ),
			array( 'GET', '/wp/v2/global-styles/themes/' . get_stylesheet(), array( 'content:read' ) ),
			array( 'POST', '/wp/v2/template-parts/' . get_stylesheet() . '//header', array( 'design:write' ) ),
		);
		foreach ( $cases as list( $method, $route, $scopes ) ) {
			$this->assertSame( $scopes, Sitewright_Scopes::required( $method, $route ), "$method $route" );
		}
	}

	public function test_a_token_with_every_scope_is_refused_a_route_another_plugin_registers_at_runtime(): void {
		// A namespace no WordPress version has (core's own /wp-abilities/v1 exists from 6.9 and needs a login).
		$route = '/runtime-plugin/v1/abilities';
		register_rest_route(
			'runtime-plugin/v1',
			'/abilities',
			array(
				'methods'             => 'GET',
				'callback'            => static function () {
					return array( array( 'name' => 'core/get-site-info' ) );
				},
				'permission_callback' => '__return_true',
			)
		);
		$this->assertSame( 200, $this->dispatch( 'GET', $route )->get_status(), 'anonymous callers reach the fake route' );

		$creds = Sitewright_Credentials::create( Sitewright_Scopes::ALL );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', $route );
		$this->assertSame( 403, $response->get_status() );
		$this->assertSame( 'sitewright_scope', $response->get_data()['code'] );
		$this->assertNull( $response->get_data()['data']['required'] );
		if ( isset( rest_get_server()->get_routes()['/wp-abilities/v1/abilities'] ) ) {
			$this->assertSame( 'sitewright_scope', $this->dispatch( 'GET', '/wp-abilities/v1/abilities' )->get_data()['code'] ?? null );
		}
	}

	public function test_odd_spellings_of_a_route_get_the_same_answer_as_wordpress_would_route_them(): void {
		$read = array( 'site:read', 'content:read' );
		foreach ( array( '/WP/V2/USERS', '//wp/v2/users', '/wp/v2/users/', '/wp//v2/Users/1' ) as $route ) {
			$this->assertNull( Sitewright_Scopes::required( 'POST', $route ), $route );
		}
		$this->assertFalse( Sitewright_Scopes::allows( $read, 'post', '/WP/V2/PAGES' ) );
	}

	public function test_revoking_is_allowed_to_any_valid_token_but_only_with_post(): void {
		$this->assertTrue( Sitewright_Scopes::allows( array(), 'POST', '/sitewright/v1/revoke' ) );
		$this->assertFalse( Sitewright_Scopes::allows( Sitewright_Scopes::ALL, 'GET', '/sitewright/v1/revoke' ) );
	}

	public function test_import_needs_every_write_scope_it_touches(): void {
		$this->assertTrue( Sitewright_Scopes::allows( array( 'content:write', 'design:write', 'settings:write' ), 'POST', '/sitewright/v1/import' ) );
		$this->assertFalse( Sitewright_Scopes::allows( array( 'content:write', 'design:write' ), 'POST', '/sitewright/v1/import' ) );
	}

	public function test_no_scope_lends_unfiltered_html_or_user_and_plugin_management(): void {
		$caps = Sitewright_Scopes::capabilities( Sitewright_Scopes::ALL );
		foreach ( array( 'unfiltered_html', 'edit_users', 'create_users', 'delete_users', 'promote_users', 'install_plugins', 'activate_plugins', 'edit_plugins', 'edit_themes', 'switch_themes', 'update_core' ) as $cap ) {
			$this->assertNotContains( $cap, $caps );
		}
		$this->assertNotContains( 'publish_pages', Sitewright_Scopes::capabilities( array( 'site:read', 'content:read' ) ) );
		$this->assertNotContains( 'manage_options', Sitewright_Scopes::capabilities( array( 'content:write', 'design:write' ) ) );
		$this->assertContains( 'manage_options', Sitewright_Scopes::capabilities( array( 'settings:write' ) ) );
	}

	public function test_unknown_scopes_are_dropped(): void {
		$this->assertSame( array( 'site:read', 'content:write' ), Sitewright_Scopes::sanitize( array( 'content:write', 'admin', 'site:read', 'site:read' ) ) );
	}
}
