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

	public function test_the_agent_is_refused_every_ability_another_plugin_registers(): void {
		Sitewright_Agent_User::act_with( Sitewright_Scopes::ALL );
		$refused = apply_filters( 'wp_ability_permission_result', true, 'other-plugin/export-orders', null, null );
		$this->assertInstanceOf( WP_Error::class, $refused );
		$this->assertSame( 'sitewright_agent_ability', $refused->get_error_code() );
		if ( class_exists( 'WP_Ability' ) && version_compare( get_bloginfo( 'version' ), '7.1', '>=' ) ) {
			// Core applies the filter to an ability's own answer from 7.1 on.
			$ability = new WP_Ability(
				'other-plugin/export-orders',
				array(
					'label'               => 'Export orders',
					'description'         => 'Exports every order.',
					'category'            => 'site',
					'execute_callback'    => '__return_empty_array',
					'permission_callback' => '__return_true',
				)
			);
			$this->assertInstanceOf( WP_Error::class, $ability->check_permissions() );
			wp_set_current_user( (int) get_user_by( 'login', 'admin' )->ID );
			$this->assertTrue( $ability->check_permissions() );
		}

		wp_set_current_user( (int) get_user_by( 'login', 'admin' )->ID );
		$this->assertTrue( apply_filters( 'wp_ability_permission_result', true, 'other-plugin/export-orders', null, null ) );
		$this->assertFalse( apply_filters( 'wp_ability_permission_result', false, 'other-plugin/export-orders', null, null ) );
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
