<?php
/**
 * The Abilities API door (WordPress 6.9+; run on 7.1 by scripts/check-plugin.sh): our operations are listed with
 * their schemas only while paired and only for the pairing's scopes, a read runs here as the caller, a write is sent
 * signed to the service and answers its pending change set without writing, a caller without the capability is
 * refused. On 6.1 the plugin registers nothing and hooks nothing.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Abilities.
 */
final class AbilitiesTest extends Sitewright_Test_Case {

	/**
	 * Requests the service received, and its answer.
	 *
	 * @var array<int, array<string, mixed>>
	 */
	private array $calls = array();

	/**
	 * What the stand-in service answers: [status, body].
	 *
	 * @var array{0: int, 1: array<string, mixed>}
	 */
	private array $answer = array( 202, array() );

	protected function setUp(): void {
		parent::setUp();
		$this->calls = array();
		add_filter( 'pre_http_request', array( $this, 'service' ), 10, 3 );
		delete_option( Sitewright_Abilities::EXPOSE_OPTION );
	}

	protected function tearDown(): void {
		remove_filter( 'pre_http_request', array( $this, 'service' ), 10 );
		$this->reset_registries();
		parent::tearDown();
	}

	/**
	 * Stands in for the service's POST /sites/plugin/calls.
	 *
	 * @param mixed                $pre  Short-circuit value.
	 * @param array<string, mixed> $args Request arguments.
	 * @param string               $url  URL.
	 * @return array<string, mixed>
	 */
	public function service( $pre, array $args, string $url ): array {
		$this->calls[] = array(
			'url'  => $url,
			'args' => $args,
		);
		return array(
			'headers'  => array( 'content-type' => 'application/json' ),
			'body'     => (string) wp_json_encode( $this->answer[1] ),
			'response' => array(
				'code'    => $this->answer[0],
				'message' => 'x',
			),
			'cookies'  => array(),
			'filename' => null,
		);
	}

	/**
	 * WordPress builds its ability registries once per request; a test starts a new "request".
	 */
	private function reset_registries(): void {
		foreach ( array( 'WP_Abilities_Registry', 'WP_Ability_Categories_Registry' ) as $class ) {
			if ( class_exists( $class ) ) {
				$property = new ReflectionProperty( $class, 'instance' );
				$property->setAccessible( true );
				$property->setValue( null, null );
			}
		}
	}

	private function has_api(): bool {
		return function_exists( 'wp_register_ability' );
	}

	/**
	 * Pairs the site as the Connect form leaves it.
	 *
	 * @param array<int, string> $scopes Scopes.
	 * @return array<string, mixed>
	 */
	private function pair( array $scopes ): array {
		$credentials = Sitewright_Credentials::create( $scopes, Sitewright_Credentials::STATUS_ACTIVE, 'https://app.example.test' );
		$this->reset_registries();
		return $credentials;
	}

	private function as_user( string $role ): int {
		$id = (int) wp_insert_user(
			array(
				'user_login' => $role . '-' . wp_generate_password( 6, false ),
				'user_pass'  => wp_generate_password(),
				'role'       => $role,
			)
		);
		wp_set_current_user( $id );
		return $id;
	}

	/**
	 * Runs an ability through core's REST route.
	 *
	 * @param string               $name  Ability name.
	 * @param array<string, mixed> $input Input.
	 */
	private function run_ability( string $name, array $input ): WP_REST_Response {
		// Core wants GET for read-only abilities (input in the query) and POST for the others (input in JSON).
		$ability = wp_get_ability( $name );
		$read    = null !== $ability && ! empty( $ability->get_meta()['annotations']['readonly'] );
		$request = new WP_REST_Request( $read ? 'GET' : 'POST', '/wp-abilities/v1/abilities/' . $name . '/run' );
		if ( $read ) {
			$request->set_query_params( array( 'input' => $input ) );
		} else {
			$request->set_header( 'content-type', 'application/json' );
			$request->set_body( (string) wp_json_encode( array( 'input' => $input ) ) );
		}
		$response = rest_do_request( $request );
		return is_wp_error( $response ) ? rest_convert_error_to_response( $response ) : $response;
	}

	/**
	 * Our abilities as the REST list shows them, by name.
	 *
	 * @return array<string, array<string, mixed>>
	 */
	private function listed(): array {
		$response = $this->dispatch( 'GET', '/wp-abilities/v1/abilities', array( 'per_page' => 100 ) );
		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		$ours = array();
		foreach ( (array) $response->get_data() as $ability ) {
			if ( 0 === strpos( (string) $ability['name'], 'sitewright/' ) ) {
				$ours[ $ability['name'] ] = $ability;
			}
		}
		return $ours;
	}

	public function test_before_6_9_nothing_is_hooked_and_from_6_9_the_api_is_used(): void {
		global $wp_version;
		$hooked = false !== has_action( 'wp_abilities_api_init', array( Sitewright_Abilities::class, 'register_abilities' ) );
		$this->assertSame( version_compare( $wp_version, '6.9', '>=' ), $this->has_api() );
		$this->assertSame( $this->has_api(), $hooked );
	}

	public function test_an_unpaired_site_registers_no_ability_and_no_category(): void {
		if ( ! $this->has_api() ) {
			$this->assertFalse( has_action( 'wp_abilities_api_init', array( Sitewright_Abilities::class, 'register_abilities' ) ) );
			return;
		}
		// A token made on the command line is not a pairing either.
		Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->reset_registries();
		$this->as_user( 'administrator' );
		$this->assertSame( array(), $this->listed() );
		$this->assertNull( wp_get_ability_category( 'sitewright' ) );
		$this->assertNotEmpty( wp_get_abilities(), 'core registers its own abilities' );
	}

	public function test_a_paired_site_lists_the_allowed_operations_with_schemas_and_annotations(): void {
		if ( ! $this->has_api() ) {
			$this->assertFalse( function_exists( 'wp_get_abilities' ) );
			return;
		}
		$this->pair( array( 'site:read', 'content:read', 'content:write' ) );
		$this->as_user( 'administrator' );
		$ours = $this->listed();

		$this->assertArrayHasKey( 'sitewright/get-site-info', $ours );
		$this->assertArrayHasKey( 'sitewright/read-page', $ours );
		$this->assertArrayHasKey( 'sitewright/update-page', $ours );
		$this->assertArrayHasKey( 'sitewright/publish-page', $ours );
		// design:write and settings:write are not in the pairing.
		$this->assertArrayNotHasKey( 'sitewright/update-global-styles', $ours );
		$this->assertArrayNotHasKey( 'sitewright/set-site-identity', $ours );

		$update = $ours['sitewright/update-page'];
		$this->assertSame( 'sitewright', $update['category'] );
		$this->assertSame( array( 'id' ), $update['input_schema']['required'] );
		$this->assertSame( 'integer', $update['input_schema']['properties']['id']['type'] );
		$this->assertSame( array( 'status', 'changeSetId', 'reviewUrl' ), $update['output_schema']['required'] );
		$this->assertFalse( $update['meta']['annotations']['readonly'] );
		$this->assertFalse( $update['meta']['annotations']['destructive'] );
		$this->assertTrue( $ours['sitewright/publish-page']['meta']['annotations']['destructive'] );
		$read = $ours['sitewright/read-page'];
		$this->assertTrue( $read['meta']['annotations']['readonly'] );
		$this->assertTrue( $read['meta']['annotations']['idempotent'] );

		// Only reads are public to MCP unless the owner exposes the proposing ones.
		$this->assertTrue( $read['meta']['mcp']['public'] );
		$this->assertFalse( $update['meta']['mcp']['public'] );
		update_option( Sitewright_Abilities::EXPOSE_OPTION, true );
		$this->reset_registries();
		$this->assertTrue( $this->listed()['sitewright/update-page']['meta']['mcp']['public'] );
		$this->assertNotNull( wp_get_ability_category( 'sitewright' ) );
	}

	public function test_a_read_runs_in_wordpress_as_the_caller(): void {
		if ( ! $this->has_api() ) {
			$this->assertFalse( class_exists( 'WP_Ability' ) );
			return;
		}
		$this->pair( array( 'site:read', 'content:read' ) );
		$this->as_user( 'administrator' );
		$id = (int) wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'draft',
				'post_title'   => 'Ability draft',
				'post_content' => '<!-- wp:paragraph --><p>Hello</p><!-- /wp:paragraph -->',
			)
		);

		$read = $this->run_ability( 'sitewright/read-page', array( 'id' => $id ) );
		$this->assertSame( 200, $read->get_status(), (string) wp_json_encode( $read->get_data() ) );
		$this->assertSame( 'Ability draft', $read->get_data()['data']['title'] );
		$this->assertStringContainsString( '<p>Hello</p>', $read->get_data()['data']['content'] );

		$list = $this->run_ability( 'sitewright/list-pages', array( 'search' => 'Ability draft' ) );
		$this->assertSame( 200, $list->get_status() );
		$this->assertSame( array( $id ), array_column( $list->get_data()['data']['items'], 'id' ) );
		$this->assertSame( array(), $this->calls, 'a read never calls the service' );
	}

	public function test_update_page_on_a_published_page_answers_pending_signed_by_the_site_and_writes_nothing(): void {
		if ( ! $this->has_api() ) {
			$this->assertFalse( function_exists( 'wp_register_ability' ) );
			return;
		}
		$credentials  = $this->pair( array( 'site:read', 'content:read', 'content:write' ) );
		$admin        = $this->as_user( 'administrator' );
		$id           = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'publish',
				'post_title'  => 'Opening hours',
			)
		);
		$before       = get_post( $id );
		$this->answer = array(
			202,
			array(
				'status'      => 'pending',
				'changeSetId' => 'cs_123',
				'reviewUrl'   => 'https://app.example.test/sites/s1/changes/cs_123',
			),
		);

		$result = $this->run_ability( 'sitewright/update-page', array( 'id' => $id, 'title' => 'Open late' ) );
		$this->assertSame( 200, $result->get_status(), (string) wp_json_encode( $result->get_data() ) );
		$this->assertSame( $this->answer[1], $result->get_data() );
		$this->assertSame( 'Opening hours', get_post( $id )->post_title );
		$this->assertSame( $before->post_modified_gmt, get_post( $id )->post_modified_gmt );

		$this->assertCount( 1, $this->calls );
		$call = $this->calls[0];
		$this->assertSame( 'https://app.example.test/sites/plugin/calls', $call['url'] );
		$this->assertSame( 'POST', $call['args']['method'] );
		$headers = $call['args']['headers'];
		$this->assertSame( 'SitewrightSite ' . hash( 'sha256', $credentials['token'] ), $headers['Authorization'] );
		$expected = Sitewright_Signature::sign(
			$credentials['secret'],
			Sitewright_Signature::string_to_sign( $headers['X-Sitewright-Timestamp'], 'POST', '/sites/plugin/calls', array(), $call['args']['body'] )
		);
		$this->assertSame( $expected, $headers['X-Sitewright-Signature'] );
		$sent = json_decode( $call['args']['body'], true );
		$this->assertSame( home_url(), $sent['siteUrl'] );
		$this->assertSame( 'update_page', $sent['operation'] );
		$this->assertSame( array( 'id' => $id, 'title' => 'Open late' ), $sent['input'] );
		$this->assertSame( $admin, $sent['actor']['wpUserId'] );
	}

	public function test_a_refusal_of_the_service_is_the_abilitys_error_and_nothing_is_written(): void {
		if ( ! $this->has_api() ) {
			$this->assertFalse( function_exists( 'wp_register_ability' ) );
			return;
		}
		$this->pair( array( 'site:read', 'content:read', 'content:write' ) );
		$this->as_user( 'administrator' );
		$id           = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'publish',
				'post_title'  => 'Kept',
			)
		);
		$this->answer = array(
			403,
			array(
				'error' => array(
					'code'    => 'operation_not_allowed',
					'message' => 'This site does not allow that operation.',
				),
			),
		);
		$result       = $this->run_ability( 'sitewright/update-page', array( 'id' => $id, 'title' => 'Changed' ) );
		$this->assertSame( 403, $result->get_status() );
		$this->assertSame( 'sitewright_operation_not_allowed', $result->get_data()['code'] );
		$this->assertSame( 'Kept', get_post( $id )->post_title );
	}

	public function test_a_user_without_the_capability_is_refused_before_anything_is_sent(): void {
		if ( ! $this->has_api() ) {
			$this->assertFalse( function_exists( 'wp_register_ability' ) );
			return;
		}
		$this->pair( array( 'site:read', 'content:read', 'content:write' ) );
		$this->as_user( 'administrator' );
		$id = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'publish',
				'post_title'  => 'Not yours',
			)
		);
		$this->as_user( 'subscriber' );
		$write = $this->run_ability( 'sitewright/update-page', array( 'id' => $id, 'title' => 'Mine now' ) );
		$this->assertSame( 403, $write->get_status() );
		$read = $this->run_ability( 'sitewright/read-page', array( 'id' => $id ) );
		$this->assertSame( 403, $read->get_status() );
		// An author may edit pages of their own only: another's published page is refused too.
		$this->as_user( 'author' );
		$this->assertSame( 403, $this->run_ability( 'sitewright/update-page', array( 'id' => $id, 'title' => 'x' ) )->get_status() );
		$this->assertSame( array(), $this->calls );
		$this->assertSame( 'Not yours', get_post( $id )->post_title );
	}
	public function test_the_owner_exposes_the_proposing_abilities_on_the_settings_page(): void {
		require_once ABSPATH . 'wp-admin/includes/template.php';
		require_once SITEWRIGHT_PLUGIN_DIR . '/admin/class-sitewright-admin.php';
		$this->pair( array( 'site:read', 'content:read', 'content:write' ) );
		$this->as_user( 'administrator' );
		ob_start();
		Sitewright_Admin::render();
		$html = (string) ob_get_clean();
		if ( ! $this->has_api() ) {
			$this->assertStringNotContainsString( 'id="sitewright-abilities"', $html );
			return;
		}
		$this->assertStringContainsString( 'id="sitewright-abilities"', $html );
		$this->assertStringNotContainsString( 'name="sitewright_expose_proposing" value="1"  checked', $html );

		$_POST    = array(
			'action'                      => Sitewright_Admin::SAVE_ABILITIES,
			'sitewright_expose_proposing' => '1',
			'_wpnonce'                    => wp_create_nonce( Sitewright_Admin::SAVE_ABILITIES ),
		);
		$_REQUEST = $_POST;
		$stop     = static function (): void {
			throw new RuntimeException( 'redirected' );
		};
		add_filter( 'wp_redirect', $stop );
		try {
			Sitewright_Admin::handle_save_abilities();
			$this->fail( 'the handler redirects back to the settings page' );
		} catch ( RuntimeException $redirected ) {
			$this->assertSame( 'redirected', $redirected->getMessage() );
		} finally {
			remove_filter( 'wp_redirect', $stop );
			$_POST    = array();
			$_REQUEST = array();
		}
		$this->assertTrue( (bool) get_option( Sitewright_Abilities::EXPOSE_OPTION ) );
		$this->reset_registries();
		$this->assertTrue( $this->listed()['sitewright/update-page']['meta']['mcp']['public'] );

		// An editor cannot change it.
		$this->as_user( 'editor' );
		$_POST    = array( '_wpnonce' => wp_create_nonce( Sitewright_Admin::SAVE_ABILITIES ) );
		$_REQUEST = $_POST;
		$died     = static function (): callable {
			return static function (): void {
				throw new RuntimeException( 'died' );
			};
		};
		add_filter( 'wp_die_handler', $died );
		try {
			Sitewright_Admin::handle_save_abilities();
			$this->fail( 'an editor is refused' );
		} catch ( RuntimeException $refused ) {
			$this->assertSame( 'died', $refused->getMessage() );
		} finally {
			remove_filter( 'wp_die_handler', $died );
			$_POST    = array();
			$_REQUEST = array();
		}
		$this->assertTrue( (bool) get_option( Sitewright_Abilities::EXPOSE_OPTION ) );
	}
}
