<?php
/**
 * GET and POST /sitewright/v1/custom-css: the Customizer's Additional CSS through the signed channel, only with
 * design:write for changes, never with markup.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Custom CSS route.
 */
final class CustomCssTest extends Sitewright_Test_Case {

	/**
	 * The CSS before each test, put back after it.
	 *
	 * @var string
	 */
	private string $original = '';

	/**
	 * Remembers the site's CSS.
	 */
	protected function setUp(): void {
		parent::setUp();
		$this->original = wp_get_custom_css();
	}

	/**
	 * Puts the site's CSS back.
	 */
	protected function tearDown(): void {
		wp_update_custom_css_post( $this->original );
		parent::tearDown();
	}

	/**
	 * Verifies a signed request for the route with a token holding $scopes.
	 *
	 * @param array<int, string> $scopes Token scopes.
	 * @param string             $method Method.
	 */
	private function sign_in( array $scopes, string $method ): void {
		$creds = Sitewright_Credentials::create( $scopes );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => $method, 'route' => '/sitewright/v1/custom-css' ) ), $this->now_ms() ) );
	}

	public function test_anonymous_and_administrator_calls_are_refused(): void {
		$admin = get_user_by( 'login', 'admin' );
		foreach ( array( 0, $admin->ID ) as $user_id ) {
			wp_set_current_user( $user_id );
			$this->assertSame( 401, $this->dispatch( 'GET', '/sitewright/v1/custom-css' )->get_status() );
			$response = $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => 'body { color: red; }' ) );
			$this->assertSame( 401, $response->get_status() );
			$this->assertSame( 'sitewright_bad_token', $response->get_data()['code'] );
		}
		$this->assertSame( $this->original, wp_get_custom_css() );
	}

	public function test_a_read_scoped_token_reads_the_css_but_cannot_change_it(): void {
		wp_update_custom_css_post( '.site-title { letter-spacing: 1px; }' );
		$this->sign_in( array( 'site:read', 'content:read', 'content:write' ), 'POST' );
		$response = $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => 'body { display: none; }' ) );
		$this->assertSame( 403, $response->get_status() );
		$this->assertSame( 'sitewright_scope', $response->get_data()['code'] );
		$this->assertSame( array( 'design:write' ), $response->get_data()['data']['required'] );
		$this->assertFalse( current_user_can( 'edit_css' ) );

		$this->sign_in( array( 'site:read' ), 'GET' );
		$read = $this->dispatch( 'GET', '/sitewright/v1/custom-css' );
		$this->assertSame( 200, $read->get_status() );
		$this->assertSame(
			array(
				'css'        => '.site-title { letter-spacing: 1px; }',
				'stylesheet' => get_stylesheet(),
			),
			$read->get_data()
		);
	}

	public function test_a_design_write_token_replaces_the_css_byte_for_byte_and_it_reads_back(): void {
		$css = ".entry-content > p::before { content: \"→ \\201C\"; }\n@media (min-width: 600px) { a[href^='https'] { color: #c00 !important; } }";
		$this->sign_in( array( 'site:read', 'design:write' ), 'POST' );
		$this->assertTrue( current_user_can( 'edit_css' ) );
		$this->assertFalse( current_user_can( 'unfiltered_html' ) );
		$saved = $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => $css ) );
		$this->assertSame( 200, $saved->get_status() );
		$this->assertSame( $css, $saved->get_data()['css'] );
		$this->assertSame( $css, wp_get_custom_css() );

		$this->sign_in( array( 'site:read' ), 'GET' );
		$this->assertSame( $css, $this->dispatch( 'GET', '/sitewright/v1/custom-css' )->get_data()['css'] );
		// Content saved after the CSS is still filtered: kses is back on for the agent.
		$this->assertNotFalse( has_filter( 'content_save_pre', 'wp_filter_post_kses' ) );
	}

	public function test_markup_that_could_close_the_style_element_is_refused_and_nothing_changes(): void {
		wp_update_custom_css_post( 'body { margin: 0; }' );
		$this->sign_in( array( 'site:read', 'design:write' ), 'POST' );
		foreach ( array( 'a{}</style><script>alert(1)</script>', "a{}</STYLE\n>", 'a{} <img src=x onerror=alert(1)>' ) as $css ) {
			$response = $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => $css ) );
			$this->assertSame( 400, $response->get_status(), $css );
			$this->assertSame( 'rest_invalid_param', $response->get_data()['code'], $css );
		}
		$this->assertSame( 'body { margin: 0; }', wp_get_custom_css() );
	}

	public function test_css_over_64_kib_or_not_a_string_is_refused(): void {
		$this->sign_in( array( 'site:read', 'design:write' ), 'POST' );
		$too_long = str_repeat( 'a{}', 21846 );
		$this->assertSame( 400, $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => $too_long ) )->get_status() );
		$this->assertSame( 400, $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => array( 'a{}' ) ) )->get_status() );
		$this->assertSame( 400, $this->dispatch( 'POST', '/sitewright/v1/custom-css' )->get_status() );
		$this->assertSame( 200, $this->dispatch( 'POST', '/sitewright/v1/custom-css', array( 'css' => substr( $too_long, 0, Sitewright_REST_Custom_CSS_Controller::MAX_BYTES ) ) )->get_status() );
	}

	public function test_the_agent_may_edit_css_only_during_a_signed_request_with_design_write(): void {
		$agent = get_user_by( 'id', Sitewright_Agent_User::ensure() );
		$this->assertFalse( user_can( $agent, 'edit_css' ) );
		Sitewright_Agent_User::act_with( array( 'site:read', 'content:write', 'settings:write' ) );
		$this->assertFalse( current_user_can( 'edit_css' ) );
		Sitewright_Agent_User::act_with( array( 'design:write' ) );
		$this->assertTrue( current_user_can( 'edit_css' ) );
		$this->assertSame( array( 'edit_theme_options' ), map_meta_cap( 'edit_css', $agent->ID ) );
		$this->assertSame( array( 'unfiltered_html' ), map_meta_cap( 'edit_css', (int) get_user_by( 'login', 'admin' )->ID ) );
	}

	public function test_info_reports_the_custom_css_feature(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$this->assertSame( array( 'custom_css', 'terms', 'media_alt', 'media_upload' ), $this->dispatch( 'GET', '/sitewright/v1/info' )->get_data()['features'] );
	}
}
