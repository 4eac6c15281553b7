<?php
/**
 * The plugin follows plugin/vocabulary.json, which the app imports too (lib/vocabulary.ts): the items route accepts
 * exactly the kinds, actions, fields, options and post types the file lists, and the constants PHP keeps for its
 * own use (scopes, refusals, limits) have the file's values.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * One vocabulary for PHP and TypeScript.
 */
final class VocabularyTest extends Sitewright_Test_Case {

	/**
	 * The shared file, read the way a reader outside the plugin would.
	 *
	 * @return array<string, mixed>
	 */
	private function vocabulary(): array {
		$data = json_decode( (string) file_get_contents( SITEWRIGHT_TEST_VOCABULARY ), true ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents
		$this->assertIsArray( $data );
		return $data;
	}

	/**
	 * A change as the items route gets it.
	 *
	 * @param string               $ref    Ref.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @return array<string, mixed>
	 */
	private function change( string $ref, string $action, array $fields = array() ): array {
		return array(
			'ref'    => $ref,
			'action' => $action,
			'expect' => 'create' === $action ? null : 'v',
			'fields' => $fields,
		);
	}

	/**
	 * Sets the vocabulary the plugin has read (null: read the file again).
	 *
	 * @param array<string, mixed>|null $data Data.
	 */
	private function use_vocabulary( ?array $data ): void {
		$property = new ReflectionProperty( Sitewright_Vocabulary::class, 'data' );
		$property->setAccessible( true );
		$property->setValue( null, $data );
	}

	/**
	 * The file as read by the plugin again after each test.
	 */
	protected function tearDown(): void {
		$this->use_vocabulary( null );
		parent::tearDown();
	}

	public function test_the_plugin_reads_the_file_it_ships(): void {
		$this->assertSame( $this->vocabulary(), Sitewright_Vocabulary::data() );
		$this->assertJsonFileEqualsJsonFile( SITEWRIGHT_TEST_VOCABULARY, SITEWRIGHT_PLUGIN_DIR . '/vocabulary.json' );
		$this->assertSame( $this->vocabulary()['limits']['itemsMaxBatch'], Sitewright_Items::max_batch() );
	}

	public function test_every_listed_option_is_an_item_and_no_other(): void {
		$options = array_keys( $this->vocabulary()['items']['options'] );
		$this->assertContains( 'blogname', $options );
		foreach ( $options as $option ) {
			$this->assertSame( array( 'option', $option ), Sitewright_Items::parse_ref( "option:$option" ), $option );
		}
		foreach ( array( 'siteurl', 'home', 'admin_email', 'active_plugins', 'users_can_register', 'default_role', 'sitewright_db_version' ) as $option ) {
			$this->assertNotContains( $option, $options );
			$this->assertNull( Sitewright_Items::parse_ref( "option:$option" ), $option );
			$this->assertSame( 'rest_invalid_param', Sitewright_Items::refuse_change( $this->change( "option:$option", 'update', array( 'value' => 'x' ) ), Sitewright_Scopes::ALL )['code'] ?? null, $option );
		}
	}

	public function test_each_kind_allows_exactly_its_listed_actions_and_fields(): void {
		Sitewright_Agent_User::act_with( Sitewright_Scopes::ALL );
		$refs  = array(
			'post'          => 'post:' . wp_insert_post(
				array(
					'post_type'   => 'page',
					'post_status' => 'draft',
					'post_title'  => 'Vocabulary',
				)
			),
			'option'        => 'option:blogname',
			'custom_css'    => 'custom_css:' . get_stylesheet(),
			'menu'          => 'menu:1',
			'global_styles' => 'global_styles:' . get_stylesheet(),
			'template_part' => 'template_part:header',
			'template'      => 'template:index',
			'term'          => 'term:' . (int) wp_insert_term( 'Vocabulary ' . wp_generate_password( 6, false ), 'category' )['term_id'],
			'seo'           => 'seo:' . wp_insert_post(
				array(
					'post_type'   => 'post',
					'post_status' => 'draft',
					'post_title'  => 'Vocabulary SEO',
				)
			),
			'elementor'     => 'elementor:' . wp_insert_post(
				array(
					'post_type'   => 'page',
					'post_status' => 'draft',
					'post_title'  => 'Vocabulary Elementor',
				)
			),
			'elementor_kit' => 'elementor_kit:active',
		);
		$kinds = $this->vocabulary()['items']['kinds'];
		$this->assertSame( array_keys( $refs ), array_keys( $kinds ) );
		$this->assertNull( Sitewright_Items::parse_ref( 'widget:1' ) );
		foreach ( $kinds as $kind => $spec ) {
			foreach ( array( 'update', 'create', 'delete', 'trash', 'restore', 'replace' ) as $action ) {
				$creates = 'post' === $kind && 'create' === $action;
				$refused = Sitewright_Items::refuse_change( $this->change( $creates ? 'post:new' : $refs[ $kind ], $action, $creates ? array( 'type' => 'page' ) : array() ), Sitewright_Scopes::ALL );
				$allowed = 'This action is not possible for this kind of item.' !== ( $refused['message'] ?? '' );
				$this->assertSame( in_array( $action, $spec['actions'], true ), $allowed, "$kind $action" );
			}
			$unknown = Sitewright_Items::refuse_change( $this->change( $refs[ $kind ], 'update', array( 'not_a_field' => 1 ) ), Sitewright_Scopes::ALL );
			$this->assertSame( 'Unknown fields: not_a_field.', $unknown['message'] ?? null, $kind );
			foreach ( $spec['fields'] as $field ) {
				$refused = Sitewright_Items::refuse_change( $this->change( $refs[ $kind ], 'update', array( $field => null ) ), Sitewright_Scopes::ALL );
				$this->assertStringNotContainsString( 'Unknown fields', $refused['message'] ?? '', "$kind $field" );
			}
			$this->assertSame( $spec['readScope'], Sitewright_Items::read_scope( $kind ), $kind );
			$this->assertSame( $spec['writeScope'], Sitewright_Items::write_scope( $kind, 'page' ), $kind );
		}
		// A post's type is given when creating it, never changed by an update.
		$retype = Sitewright_Items::refuse_change( $this->change( $refs['post'], 'update', array( 'type' => 'wp_global_styles' ) ), Sitewright_Scopes::ALL );
		$this->assertSame( 'Unknown fields: type.', $retype['message'] ?? null );
		wp_delete_post( (int) substr( $refs['post'], 5 ), true );
	}

	public function test_only_the_listed_post_types_are_read_or_written_and_the_design_ones_need_design_write(): void {
		$items = $this->vocabulary()['items'];
		foreach ( $items['postTypes'] as $type ) {
			$this->assertNull( Sitewright_Items::refuse_type( $type ), $type );
		}
		foreach ( array( 'user_request', 'customize_changeset', 'shop_order', 'revision' ) as $type ) {
			$this->assertInstanceOf( WP_Error::class, Sitewright_Items::refuse_type( $type ), $type );
		}
		foreach ( array_keys( $items['designPostTypes'] ) as $type ) {
			$this->assertContains( $type, $items['postTypes'] );
			$this->assertSame( 'design:write', Sitewright_Items::write_scope( 'post', $type ), $type );
		}
		$this->assertSame( 'content:write', Sitewright_Items::write_scope( 'post', 'page' ) );
	}

	public function test_without_a_readable_vocabulary_every_item_is_refused(): void {
		$this->use_vocabulary( array() );
		$this->assertNull( Sitewright_Items::parse_ref( 'post:1' ) );
		$this->assertNull( Sitewright_Items::parse_ref( 'option:blogname' ) );
		$this->assertSame( 0, Sitewright_Items::max_batch() );
		$this->assertInstanceOf( WP_Error::class, Sitewright_Items::refuse_type( 'page' ) );
		$this->assertSame( '', Sitewright_Items::write_scope( 'option' ) );
	}

	public function test_the_six_scopes_are_the_same_in_the_same_order(): void {
		$this->assertSame( $this->vocabulary()['scopes'], Sitewright_Scopes::ALL );
		foreach ( $this->vocabulary()['items']['kinds'] as $kind => $spec ) {
			$this->assertContains( $spec['readScope'], Sitewright_Scopes::ALL, $kind );
			$this->assertContains( $spec['writeScope'], Sitewright_Scopes::ALL, $kind );
		}
	}

	public function test_each_scope_has_the_words_the_app_repeats_and_the_place_to_change_it(): void {
		require_once SITEWRIGHT_PLUGIN_DIR . '/admin/class-sitewright-admin.php';
		$vocabulary = $this->vocabulary();
		$labels     = array();
		$explains   = array();
		foreach ( $vocabulary['scopeWords'] as $scope => $words ) {
			$labels[ $scope ]   = $words['label'];
			$explains[ $scope ] = $words['explains'];
		}
		$this->assertSame( $labels, Sitewright_Admin::scope_labels() );
		$this->assertSame( $explains, Sitewright_Admin::scope_explanations() );
		// The chat tells the owner to go to this screen and press this button: both must be what the plugin shows.
		// Settings is options-general.php; the screen is registered there under the plugin's name.
		$this->assertStringEndsWith( 'options-general.php?page=sitewright', Sitewright_Admin::page_url() );
		$this->assertSame( 'Settings → Sitewright', $vocabulary['permissionsPlace'] );
		$admin = (string) file_get_contents( SITEWRIGHT_PLUGIN_DIR . '/admin/class-sitewright-admin.php' ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents
		$this->assertStringContainsString( "__( '" . $vocabulary['savePermissionsButton'] . "'", $admin );
	}

	public function test_page_builder_ids_and_names_are_the_ones_the_app_shows(): void {
		$expected = array();
		foreach ( $this->vocabulary()['pageBuilders'] as $builder ) {
			$expected[ $builder['id'] ] = $builder['name'];
		}
		$this->assertSame( $expected, array_map( static fn( array $b ): string => $b['label'], Sitewright_Site_Info::builders() ) );
	}

	public function test_limits_window_and_snapshot_format_match(): void {
		$vocabulary = $this->vocabulary();
		$this->assertSame( $vocabulary['limits']['signatureWindowMs'], Sitewright_Auth::WINDOW_MS );
		$this->assertSame( $vocabulary['limits']['exportMaxIds'], Sitewright_REST_Snapshot_Controller::MAX_IDS );
		$this->assertSame( $vocabulary['limits']['customCssMaxBytes'], Sitewright_REST_Custom_CSS_Controller::MAX_BYTES );
		$this->assertSame( $vocabulary['snapshotFormat'], Sitewright_Snapshot::FORMAT );
		$this->assertSame( $vocabulary['features'], Sitewright_Site_Info::FEATURES );
	}

	public function test_the_signed_channels_refusals_have_the_same_codes_and_statuses(): void {
		$this->assertSame( $this->vocabulary()['signedRequestErrors'], Sitewright_Auth::ERRORS );
	}

	public function test_every_refusal_the_plugin_source_names_is_in_the_list(): void {
		$codes = array();
		foreach ( array( 'class-sitewright-auth.php', 'rest/class-sitewright-rest-controller.php' ) as $file ) {
			$source = (string) file_get_contents( SITEWRIGHT_PLUGIN_DIR . '/includes/' . $file ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents
			preg_match_all( "/error\\(\\s*'(sitewright_[a-z_]+)'/", $source, $matches );
			$codes = array_merge( $codes, $matches[1] );
		}
		$this->assertNotEmpty( $codes );
		$this->assertSame( array(), array_values( array_diff( array_unique( $codes ), array_keys( $this->vocabulary()['signedRequestErrors'] ) ) ) );
	}
}
