<?php
/**
 * The agent user: capabilities only while a verified token is in use, bounded by its scopes; no login.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Agent user.
 */
final class AgentUserTest extends Sitewright_Test_Case {

	public function test_the_agent_has_no_capabilities_outside_a_signed_request(): void {
		$user = get_user_by( 'id', Sitewright_Agent_User::ensure() );
		foreach ( array( 'read', 'edit_posts', 'manage_options', 'upload_files' ) as $cap ) {
			$this->assertFalse( user_can( $user, $cap ), $cap );
		}
	}

	public function test_capabilities_follow_the_tokens_scopes(): void {
		$id = Sitewright_Agent_User::ensure();
		Sitewright_Agent_User::act_with( array( 'site:read', 'content:read' ) );
		$this->assertSame( $id, get_current_user_id() );
		$this->assertTrue( current_user_can( 'read_private_pages' ) );
		$this->assertFalse( current_user_can( 'publish_pages' ) );
		$this->assertFalse( current_user_can( 'upload_files' ) );
		$this->assertFalse( current_user_can( 'manage_options' ) );

		Sitewright_Agent_User::act_with( array( 'content:write', 'media:write' ) );
		$this->assertTrue( current_user_can( 'publish_pages' ) );
		$this->assertTrue( current_user_can( 'upload_files' ) );
		$this->assertFalse( current_user_can( 'edit_theme_options' ) );
		$this->assertFalse( current_user_can( 'unfiltered_html' ) );
		$this->assertFalse( current_user_can( 'edit_users' ) );

		Sitewright_Agent_User::act_with( Sitewright_Scopes::ALL );
		$this->assertTrue( current_user_can( 'manage_options' ) );
		$this->assertTrue( current_user_can( 'edit_theme_options' ) );
		$this->assertFalse( current_user_can( 'install_plugins' ) );
		$this->assertFalse( current_user_can( 'unfiltered_html' ) );
	}

	public function test_nobody_can_log_in_as_the_agent(): void {
		$user = get_user_by( 'id', Sitewright_Agent_User::ensure() );
		$this->assertInstanceOf( WP_Error::class, Sitewright_Agent_User::refuse_login( $user, Sitewright_Agent_User::LOGIN ) );
		$this->assertFalse( wp_is_application_passwords_available_for_user( $user ) );
		$admin = get_user_by( 'login', 'admin' );
		$this->assertSame( $admin, Sitewright_Agent_User::refuse_login( $admin, 'admin' ) );
	}

	public function test_ensure_recreates_the_user_when_it_was_deleted(): void {
		require_once ABSPATH . 'wp-admin/includes/user.php';
		$first = Sitewright_Agent_User::ensure();
		wp_delete_user( $first );
		$second = Sitewright_Agent_User::ensure();
		$this->assertNotSame( $first, $second );
		$this->assertSame( Sitewright_Agent_User::LOGIN, get_userdata( $second )->user_login );
	}
}
