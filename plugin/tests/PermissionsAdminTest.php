<?php
/**
 * Settings → Sitewright's permissions: every scope ticked on the Connect form, each in plain words, and "Save
 * permissions" widening or narrowing the existing token (same token, no new pairing), behind a nonce and
 * manage_options; /info reports what the calling token holds now.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Thrown instead of wp_die() and the redirect's exit, so a handler can be run in the test process.
 */
final class Sitewright_Test_Stop extends RuntimeException {
}

/**
 * Permissions on the admin screen.
 */
final class PermissionsAdminTest extends Sitewright_Test_Case {

	/**
	 * A handler runs in the test: wp_die and the redirect throw instead of ending the process.
	 */
	protected function setUp(): void {
		parent::setUp();
		require_once ABSPATH . 'wp-admin/includes/template.php';
		require_once SITEWRIGHT_PLUGIN_DIR . '/admin/class-sitewright-admin.php';
		add_filter( 'wp_die_handler', array( $this, 'die_handler' ) );
		add_filter( 'wp_redirect', array( $this, 'stop_at_redirect' ) );
	}

	/**
	 * Restores the hooks and the request.
	 */
	protected function tearDown(): void {
		remove_filter( 'wp_die_handler', array( $this, 'die_handler' ) );
		remove_filter( 'wp_redirect', array( $this, 'stop_at_redirect' ) );
		$_POST    = array();
		$_REQUEST = array();
		parent::tearDown();
	}

	/**
	 * The wp_die handler used in tests.
	 */
	public function die_handler(): callable {
		return static function ( $message ): void {
			throw new Sitewright_Test_Stop( 'died: ' . ( is_string( $message ) ? $message : 'wp_die' ) );
		};
	}

	/**
	 * Stops the handler where it would redirect.
	 *
	 * @param string $location Location.
	 */
	public function stop_at_redirect( $location ): string {
		throw new Sitewright_Test_Stop( 'redirect: ' . $location );
	}

	/**
	 * The admin screen as HTML.
	 */
	private function render(): string {
		ob_start();
		Sitewright_Admin::render();
		return (string) ob_get_clean();
	}

	/**
	 * Posts "Save permissions" for a token, as the form does, and returns how the handler stopped.
	 *
	 * @param int                $token_id Token id.
	 * @param array<int, string> $scopes   Ticked scopes.
	 * @param string|null        $nonce    The form's nonce (null = a fresh valid one).
	 */
	private function save( int $token_id, array $scopes, ?string $nonce = null ): string {
		$_POST    = array(
			'action'              => Sitewright_Admin::SAVE_SCOPES,
			'sitewright_token_id' => (string) $token_id,
			'sitewright_scopes'   => $scopes,
			'_wpnonce'            => $nonce ?? wp_create_nonce( Sitewright_Admin::SAVE_SCOPES ),
		);
		$_REQUEST = $_POST;
		try {
			Sitewright_Admin::handle_save_scopes();
		} catch ( Sitewright_Test_Stop $stop ) {
			return $stop->getMessage();
		}
		return 'returned';
	}

	/**
	 * The administrator the installer made.
	 */
	private function as_admin(): void {
		wp_set_current_user( (int) get_user_by( 'login', 'admin' )->ID );
	}

	/**
	 * Scopes of a stored token.
	 *
	 * @param int $id Token id.
	 * @return array<int, string>
	 */
	private function scopes_of( int $id ): array {
		foreach ( Sitewright_Credentials::all() as $token ) {
			if ( $token['id'] === $id ) {
				return $token['scopes'];
			}
		}
		return array();
	}

	public function test_the_connect_form_ticks_every_scope_and_explains_each_in_plain_words(): void {
		$this->assertSame( Sitewright_Scopes::ALL, Sitewright_Admin::DEFAULT_SCOPES );
		$this->as_admin();
		$html = $this->render();
		$this->assertStringContainsString( 'id="sitewright-connect"', $html );
		foreach ( Sitewright_Scopes::ALL as $scope ) {
			$id = 'sitewright-scope-new-' . str_replace( ':', '-', $scope );
			$this->assertMatchesRegularExpression( '/<input type="checkbox" id="' . preg_quote( $id, '/' ) . '"[^>]*checked=\'checked\'/', $html, $scope );
			$this->assertStringContainsString( esc_html( Sitewright_Admin::scope_labels()[ $scope ] ), $html );
			$this->assertStringContainsString( esc_html( Sitewright_Admin::scope_explanations()[ $scope ] ), $html );
		}
		$this->assertStringContainsString( 'Change the design', $html );
		$this->assertStringContainsString( 'still waits for your approval in Sitewright', $html );
		// Not connected yet: no permissions form to save.
		$this->assertStringNotContainsString( 'Save permissions', $html );
	}

	public function test_a_connection_lists_its_permissions_with_a_save_button(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->as_admin();
		$html = $this->render();
		$this->assertStringContainsString( 'id="sitewright-permissions-' . $creds['id'] . '"', $html );
		$this->assertStringContainsString( 'value="Save permissions"', $html );
		$prefix = 'sitewright-scope-' . $creds['id'] . '-';
		$this->assertMatchesRegularExpression( '/id="' . $prefix . 'content-read"[^>]*checked=\'checked\'/', $html );
		$this->assertDoesNotMatchRegularExpression( '/id="' . $prefix . 'design-write"[^>]*checked=\'checked\'/', $html );
		$this->assertStringContainsString( 'data-scopes="site:read content:read"', $html );
	}

	public function test_saving_permissions_widens_and_narrows_the_same_token_and_info_reports_them(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->as_admin();

		$this->assertStringStartsWith( 'redirect: ', $this->save( $creds['id'], array( 'content:read', 'content:write', 'design:write' ) ) );
		// site:read is kept even when the form leaves it out: the connection cannot work without it.
		$this->assertSame( array( 'site:read', 'content:read', 'content:write', 'design:write' ), $this->scopes_of( $creds['id'] ) );
		$this->assertCount( 1, Sitewright_Credentials::all(), 'no new token' );
		$notice = get_transient( 'sitewright_notice_' . get_current_user_id() );
		$this->assertSame( 'scopes_saved', $notice['code'] );
		$this->assertStringContainsString( 'Change the design', $notice['message'] );

		// The same token, signed as before, now reports the wider scopes and may write the design.
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$info = $this->dispatch( 'GET', '/sitewright/v1/info' )->get_data();
		$this->assertSame( array( 'site:read', 'content:read', 'content:write', 'design:write' ), $info['token']['scopes'] );
		$this->assertContains( 'edit_theme_options', $info['token']['capabilities'] );
		$this->assertTrue( Sitewright_Scopes::allows( $info['token']['scopes'], 'POST', '/wp/v2/global-styles/9' ) );

		// Narrowed again: the next signed request sees it.
		$this->as_admin();
		$this->save( $creds['id'], array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$info = $this->dispatch( 'GET', '/sitewright/v1/info' )->get_data();
		$this->assertSame( array( 'site:read', 'content:read', 'content:write' ), $info['token']['scopes'] );
		$this->assertNotContains( 'edit_theme_options', $info['token']['capabilities'] );
		$this->assertSame( 403, $this->dispatch( 'POST', '/wp/v2/global-styles/9' )->get_status() );
	}

	public function test_saving_needs_the_nonce(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->as_admin();
		$this->assertStringStartsWith( 'died: ', $this->save( $creds['id'], Sitewright_Scopes::ALL, 'not-a-nonce' ) );
		$this->assertSame( array( 'site:read' ), $this->scopes_of( $creds['id'] ) );
		// A nonce made for another action does not do either.
		$this->assertStringStartsWith( 'died: ', $this->save( $creds['id'], Sitewright_Scopes::ALL, wp_create_nonce( 'sitewright_connect' ) ) );
		$this->assertSame( array( 'site:read' ), $this->scopes_of( $creds['id'] ) );
	}

	public function test_saving_needs_manage_options(): void {
		$creds  = Sitewright_Credentials::create( array( 'site:read' ) );
		$editor = wp_insert_user(
			array(
				'user_login' => 'editor' . wp_rand(),
				'user_pass'  => wp_generate_password(),
				'role'       => 'editor',
			)
		);
		wp_set_current_user( (int) $editor );
		$this->assertStringStartsWith( 'died: ', $this->save( $creds['id'], Sitewright_Scopes::ALL ) );
		$this->assertSame( array( 'site:read' ), $this->scopes_of( $creds['id'] ) );
		wp_set_current_user( 0 );
		$this->assertStringStartsWith( 'died: ', $this->save( $creds['id'], Sitewright_Scopes::ALL ) );
		$this->assertSame( array( 'site:read' ), $this->scopes_of( $creds['id'] ) );
		require_once ABSPATH . 'wp-admin/includes/user.php';
		wp_delete_user( (int) $editor );
	}

	public function test_a_revoked_token_or_no_valid_scope_changes_nothing(): void {
		$this->assertNull( Sitewright_Credentials::set_scopes( 999999, array( 'site:read' ) ) );
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertNull( Sitewright_Credentials::set_scopes( $creds['id'], array( 'root:everything' ) ) );
		$this->assertSame( array( 'site:read' ), $this->scopes_of( $creds['id'] ) );
		$outcome = Sitewright_Admin::save_scopes( 999999, array( 'site:read' ) );
		$this->assertFalse( $outcome['ok'] );
		$this->assertSame( 'no_such_token', $outcome['code'] );
	}
}
