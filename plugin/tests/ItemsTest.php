<?php
/**
 * GET and POST /sitewright/v1/items: versions change with any restorable field, batches are all or nothing, a
 * stale expect changes nothing, and each item kind needs its own scope and capability.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Items route.
 */
final class ItemsTest extends Sitewright_Test_Case {

	/**
	 * Original blog name, put back after each test.
	 *
	 * @var string
	 */
	private string $blogname = '';

	/**
	 * Remembers settings the tests change.
	 */
	protected function setUp(): void {
		parent::setUp();
		$this->blogname = (string) get_option( 'blogname' );
	}

	/**
	 * Puts them back.
	 */
	protected function tearDown(): void {
		update_option( 'blogname', $this->blogname );
		parent::tearDown();
	}

	/**
	 * Verifies a signed request for /items with a token holding $scopes.
	 *
	 * @param array<int, string> $scopes Token scopes.
	 * @param string             $method Method.
	 */
	private function sign_in( array $scopes, string $method = 'POST' ): void {
		$creds = Sitewright_Credentials::create( $scopes );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => $method, 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
	}

	/**
	 * A published page made by an administrator.
	 *
	 * @param string $title Title.
	 */
	private function page( string $title = 'About us' ): int {
		return (int) wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'publish',
				'post_title'   => $title,
				'post_content' => '<!-- wp:paragraph --><p>Hello</p><!-- /wp:paragraph -->',
			)
		);
	}

	/**
	 * Reads items through the route.
	 *
	 * @param array<int, string> $refs Refs.
	 * @return array<int, array<string, mixed>>
	 */
	private function read( array $refs ): array {
		$this->sign_in( array( 'site:read', 'content:read' ), 'GET' );
		$response = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => implode( ',', $refs ) ) );
		$this->assertSame( 200, $response->get_status() );
		return $response->get_data()['items'];
	}

	/**
	 * Posts a batch with a token holding $scopes.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 * @param array<int, string>               $scopes  Scopes.
	 */
	private function write( array $changes, array $scopes = array( 'site:read', 'content:read', 'content:write' ) ): WP_REST_Response {
		$this->sign_in( $scopes );
		return $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => $changes ) );
	}

	public function test_the_version_changes_when_any_restorable_field_changes_and_only_then(): void {
		$id      = $this->page();
		$version = $this->read( array( "post:$id" ) )[0]['version'];
		$this->assertMatchesRegularExpression( '/^[0-9a-f]{64}$/', $version );
		$this->assertSame( $version, $this->read( array( "post:$id" ) )[0]['version'] );
		foreach ( array( 'post_title' => 'Other', 'post_content' => 'x', 'post_excerpt' => 'e', 'post_name' => 'elsewhere', 'menu_order' => 3, 'post_status' => 'draft' ) as $field => $value ) {
			wp_update_post(
				array(
					'ID'   => $id,
					$field => $value,
				)
			);
			$next = $this->read( array( "post:$id" ) )[0]['version'];
			$this->assertNotSame( $version, $next, $field );
			$version = $next;
		}
		update_post_meta( $id, '_thumbnail_id', 77 );
		$this->assertNotSame( $version, $this->read( array( "post:$id" ) )[0]['version'], 'featured image' );
	}

	public function test_an_update_over_the_expected_version_writes_and_answers_before_after_and_the_revision(): void {
		$id      = $this->page();
		$current = $this->read( array( "post:$id" ) )[0];
		$saved   = $this->write(
			array(
				array(
					'ref'    => "post:$id",
					'expect' => $current['version'],
					'action' => 'update',
					'fields' => array( 'title' => 'About our bakery' ),
				),
			)
		);
		$this->assertSame( 200, $saved->get_status() );
		$item = $saved->get_data()['items'][0];
		$this->assertSame( 'About us', $item['before']['title'] );
		$this->assertSame( 'About our bakery', $item['after']['title'] );
		$this->assertSame( 'About our bakery', get_post( $id )->post_title );
		$this->assertSame( $this->read( array( "post:$id" ) )[0]['version'], $item['version'] );
		$this->assertSame( $id, wp_get_post_parent_id( $item['revisionId'] ) );
	}

	public function test_a_stale_expect_anywhere_in_the_batch_changes_nothing_and_names_the_item(): void {
		$a        = $this->page( 'A' );
		$b        = $this->page( 'B' );
		$versions = array_column( $this->read( array( "post:$a", "post:$b" ) ), 'version', 'ref' );
		wp_update_post(
			array(
				'ID'         => $b,
				'post_title' => 'B, edited by a person',
			)
		);
		$response = $this->write(
			array(
				array(
					'ref'    => "post:$a",
					'expect' => $versions[ "post:$a" ],
					'action' => 'update',
					'fields' => array( 'title' => 'A2' ),
				),
				array(
					'ref'    => "post:$b",
					'expect' => $versions[ "post:$b" ],
					'action' => 'update',
					'fields' => array( 'title' => 'B2' ),
				),
			)
		);
		$this->assertSame( 409, $response->get_status() );
		$this->assertSame( 'sitewright_stale', $response->get_data()['code'] );
		$this->assertSame( "post:$b", $response->get_data()['data']['items'][0]['ref'] );
		$this->assertSame( 'changed', $response->get_data()['data']['items'][0]['reason'] );
		$this->assertSame( 'A', get_post( $a )->post_title );
		$this->assertSame( 'B, edited by a person', get_post( $b )->post_title );
	}

	public function test_a_failure_in_the_middle_of_a_batch_rolls_back_the_writes_before_it(): void {
		$a       = $this->page( 'Kept' );
		$version = $this->read( array( "post:$a" ) )[0]['version'];
		$before  = (int) wp_count_posts( 'page' )->draft;
		$css     = $this->read_css_version();
		$this->sign_in( array( 'site:read', 'content:write', 'design:write' ) );
		$response = $this->dispatch(
			'POST',
			'/sitewright/v1/items',
			array(
				'changes' => array(
					array(
						'ref'    => "post:$a",
						'expect' => $version,
						'action' => 'update',
						'fields' => array( 'title' => 'Changed' ),
					),
					array(
						'ref'    => 'post:new',
						'expect' => null,
						'action' => 'create',
						'fields' => array(
							'type'  => 'page',
							'title' => 'New',
						),
					),
					array(
						'ref'    => 'custom_css:' . get_stylesheet(),
						'expect' => $css,
						'action' => 'update',
						'fields' => array( 'css' => 'a{}</style><script>x</script>' ),
					),
				),
			)
		);
		$this->assertSame( 400, $response->get_status() );
		wp_cache_flush();
		$this->assertSame( 'Kept', get_post( $a )->post_title );
		$this->assertSame( $before, (int) wp_count_posts( 'page' )->draft );
	}

	/**
	 * The version of the active theme's custom CSS.
	 */
	private function read_css_version(): string {
		$this->sign_in( array( 'site:read' ), 'GET' );
		return $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => 'custom_css:' . get_stylesheet() ) )->get_data()['items'][0]['version'];
	}

	public function test_create_trash_restore_and_delete_give_back_the_exact_previous_state(): void {
		$id      = $this->page( 'Opening hours' );
		$start   = $this->read( array( "post:$id" ) )[0];
		$trashed = $this->write(
			array(
				array(
					'ref'    => "post:$id",
					'expect' => $start['version'],
					'action' => 'trash',
				),
			)
		)->get_data()['items'][0];
		$this->assertSame( 'trash', get_post_status( $id ) );
		$restored = $this->write(
			array(
				array(
					'ref'    => "post:$id",
					'expect' => $trashed['version'],
					'action' => 'restore',
					'fields' => array_intersect_key( $start['state'], array_flip( Sitewright_Vocabulary::item_list( 'post', 'fields' ) ) ),
				),
			)
		);
		$this->assertSame( 200, $restored->get_status() );
		$this->assertSame( $start['state'], $this->read( array( "post:$id" ) )[0]['state'] );
		$this->assertSame( $start['state'], $restored->get_data()['items'][0]['after'] );
		$this->assertSame( $start['version'], $restored->get_data()['items'][0]['version'] );

		$created = $this->write(
			array(
				array(
					'ref'    => 'post:new',
					'expect' => null,
					'action' => 'create',
					'fields' => array(
						'type'    => 'page',
						'title'   => 'Draft by the agent',
						'content' => 'Hi',
					),
				),
			)
		)->get_data()['items'][0];
		$new_id  = (int) substr( $created['ref'], 5 );
		$this->assertSame( 'draft', get_post_status( $new_id ) );
		$deleted = $this->write(
			array(
				array(
					'ref'    => $created['ref'],
					'expect' => $created['version'],
					'action' => 'delete',
				),
			)
		);
		$this->assertSame( 200, $deleted->get_status() );
		$this->assertNull( get_post( $new_id ) );
	}

	public function test_each_kind_needs_its_own_scope_and_nothing_changes_without_it(): void {
		$css = $this->read_css_version();
		$this->sign_in( array( 'site:read' ), 'GET' );
		$option = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => 'option:blogname' ) )->get_data()['items'][0];
		$cases  = array(
			array( 'option:blogname', $option['version'], array( 'value' => 'Hacked' ), array( 'site:read', 'content:write', 'design:write' ), 'settings:write' ),
			array( 'custom_css:' . get_stylesheet(), $css, array( 'css' => 'body{display:none}' ), array( 'site:read', 'content:write', 'settings:write' ), 'design:write' ),
		);
		foreach ( $cases as list( $ref, $version, $fields, $scopes, $needed ) ) {
			$response = $this->write(
				array(
					array(
						'ref'    => $ref,
						'expect' => $version,
						'action' => 'update',
						'fields' => $fields,
					),
				),
				$scopes
			);
			$this->assertSame( 403, $response->get_status(), $ref );
			$this->assertSame( 'sitewright_scope', $response->get_data()['code'], $ref );
			$this->assertStringContainsString( $needed, $response->get_data()['message'], $ref );
		}
		$this->assertSame( $this->blogname, get_option( 'blogname' ) );

		$page     = $this->page();
		$version  = $this->read( array( "post:$page" ) )[0]['version'];
		$response = $this->write(
			array(
				array(
					'ref'    => "post:$page",
					'expect' => $version,
					'action' => 'update',
					'fields' => array( 'title' => 'x' ),
				),
			),
			array( 'site:read', 'design:write' )
		);
		$this->assertSame( 403, $response->get_status() );
		$this->assertSame( 'About us', get_post( $page )->post_title );

		$this->sign_in( array( 'site:read', 'content:read' ) );
		$this->assertSame( 403, $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => array() ) )->get_status() );
	}

	public function test_a_settings_token_changes_the_site_title_only_over_the_version_it_read(): void {
		$this->sign_in( array( 'site:read' ), 'GET' );
		$option = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => 'option:blogname' ) )->get_data()['items'][0];
		$this->assertSame( array( 'value' => $this->blogname ), $option['state'] );
		$change = array(
			'ref'    => 'option:blogname',
			'expect' => $option['version'],
			'action' => 'update',
			'fields' => array( 'value' => 'The Corner Bakery' ),
		);
		$this->assertSame( 200, $this->write( array( $change ), array( 'site:read', 'settings:write' ) )->get_status() );
		$this->assertSame( 'The Corner Bakery', get_option( 'blogname' ) );
		$again = $this->write( array( array_merge( $change, array( 'fields' => array( 'value' => 'Twice' ) ) ) ), array( 'site:read', 'settings:write' ) );
		$this->assertSame( 409, $again->get_status() );
		$this->assertSame( 'The Corner Bakery', get_option( 'blogname' ) );
	}

	public function test_capabilities_are_checked_per_item_even_with_the_scope(): void {
		$page    = $this->page( 'Locked by the site' );
		$version = $this->read( array( "post:$page" ) )[0]['version'];
		$forbid  = static function ( $caps, $cap, $user_id, $args ) use ( $page ) {
			return 'edit_post' === $cap && (int) ( $args[0] ?? 0 ) === $page ? array( 'do_not_allow' ) : $caps;
		};
		add_filter( 'map_meta_cap', $forbid, 10, 4 );
		try {
			$response = $this->write(
				array(
					array(
						'ref'    => "post:$page",
						'expect' => $version,
						'action' => 'update',
						'fields' => array( 'title' => 'x' ),
					),
				)
			);
		} finally {
			remove_filter( 'map_meta_cap', $forbid, 10 );
		}
		$this->assertSame( 403, $response->get_status() );
		$this->assertSame( 'rest_cannot_edit', $response->get_data()['code'] );
		$this->assertSame( 'Locked by the site', get_post( $page )->post_title );

		// Navigation is design: a content token cannot create it, a design token can.
		$navigation = array(
			'ref'    => 'post:new',
			'expect' => null,
			'action' => 'create',
			'fields' => array(
				'type'   => 'wp_navigation',
				'status' => 'publish',
				'title'  => 'Main',
			),
		);
		Sitewright_Agent_User::act_with( array( 'site:read', 'content:write' ) );
		$this->assertSame( 'sitewright_scope', Sitewright_Items::refuse_change( $navigation, array( 'site:read', 'content:write' ) )['code'] ?? null );
		Sitewright_Agent_User::act_with( array( 'site:read', 'design:write' ) );
		$this->assertNull( Sitewright_Items::refuse_change( $navigation, array( 'site:read', 'design:write' ) ) );
		$this->assertSame( 'rest_invalid_param', Sitewright_Items::refuse_change( array( 'ref' => 'option:siteurl', 'action' => 'update', 'expect' => 'x' ), array( 'settings:write' ) )['code'] ?? null );
	}

	public function test_an_unknown_ref_or_a_missing_expect_is_refused_before_anything_is_written(): void {
		$page     = $this->page();
		$response = $this->write(
			array(
				array(
					'ref'    => "post:$page",
					'action' => 'update',
					'fields' => array( 'title' => 'No expect' ),
				),
			)
		);
		$this->assertSame( 400, $response->get_status() );
		$this->assertSame( 400, $this->write( array( array( 'ref' => 'user:1', 'action' => 'update', 'expect' => 'x' ) ) )->get_status() );
		$this->assertSame( 'About us', get_post( $page )->post_title );
	}

	public function test_undoing_a_publication_gives_back_the_draft_with_no_date_and_no_address(): void {
		$draft     = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'draft',
				'post_title'  => 'Launch',
			)
		);
		$start     = $this->read( array( "post:$draft" ) )[0];
		$published = $this->write(
			array(
				array(
					'ref'    => "post:$draft",
					'expect' => $start['version'],
					'action' => 'update',
					'fields' => array( 'status' => 'publish' ),
				),
			)
		)->get_data()['items'][0];
		$this->assertSame( 'publish', $published['after']['status'] );
		$this->assertNotSame( '', $published['after']['slug'] );
		$back = array();
		foreach ( Sitewright_Vocabulary::item_list( 'post', 'fields' ) as $field ) {
			// A page has no categories, tags or alt text: only the fields its state holds.
			if ( array_key_exists( $field, $start['state'] ) && $start['state'][ $field ] !== $published['after'][ $field ] ) {
				$back[ $field ] = $start['state'][ $field ];
			}
		}
		$undone = $this->write(
			array(
				array(
					'ref'    => "post:$draft",
					'expect' => $published['version'],
					'action' => 'update',
					'fields' => $back,
				),
			)
		);
		$this->assertSame( 200, $undone->get_status() );
		$this->assertSame( $start['state'], $this->read( array( "post:$draft" ) )[0]['state'] );
		$this->assertSame( $start['version'], $undone->get_data()['items'][0]['version'] );
	}

	public function test_a_classic_menu_is_put_back_exactly_and_reads_the_same_version(): void {
		$menu = (int) wp_create_nav_menu( 'Main ' . wp_generate_password( 6, false ) );
		$page = $this->page( 'Contact' );
		$top  = wp_update_nav_menu_item(
			$menu,
			0,
			array(
				'menu-item-title'  => 'Home',
				'menu-item-url'    => 'https://example.com/',
				'menu-item-status' => 'publish',
			)
		);
		wp_update_nav_menu_item(
			$menu,
			0,
			array(
				'menu-item-title'     => 'Contact',
				'menu-item-type'      => 'post_type',
				'menu-item-object'    => 'page',
				'menu-item-object-id' => $page,
				'menu-item-parent-id' => $top,
				'menu-item-status'    => 'publish',
			)
		);
		$this->sign_in( array( 'site:read', 'content:read' ), 'GET' );
		$start = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => "menu:$menu" ) )->get_data()['items'][0];
		// A link to a page that keeps the page's title stores no title of its own (core's rule), and reads so.
		$this->assertSame( array( 'Home', '' ), array_column( $start['state']['items'], 'title' ) );
		$this->assertSame( $page, $start['state']['items'][1]['object_id'] );
		$this->assertSame( 1, $start['state']['items'][1]['parent'] );

		$changed = $this->write(
			array(
				array(
					'ref'    => "menu:$menu",
					'expect' => $start['version'],
					'action' => 'update',
					'fields' => array( 'items' => array( $start['state']['items'][0] ) ),
				),
			),
			array( 'site:read', 'design:write' )
		)->get_data()['items'][0];
		$this->assertCount( 1, $changed['after']['items'] );

		$restored = $this->write(
			array(
				array(
					'ref'    => "menu:$menu",
					'expect' => $changed['version'],
					'action' => 'update',
					'fields' => array( 'items' => $start['state']['items'] ),
				),
			),
			array( 'site:read', 'design:write' )
		);
		$this->assertSame( 200, $restored->get_status() );
		$this->assertSame( $start['state'], $restored->get_data()['items'][0]['after'] );
		$this->assertSame( $start['version'], $restored->get_data()['items'][0]['version'] );
		$this->assertSame( $start['state'], $restored->get_data()['items'][0]['after'] );
	}

	public function test_a_lock_left_by_a_crashed_request_is_taken_over_and_released_after_the_batch(): void {
		global $wpdb;
		$page    = $this->page( 'Locked' );
		$version = $this->read( array( "post:$page" ) )[0]['version'];
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$wpdb->query( $wpdb->prepare( "INSERT INTO {$wpdb->options} (option_name, option_value, autoload) VALUES ('_sitewright_items_lock', %s, 'no')", (string) ( time() - 120 ) ) );
		$response = $this->write(
			array(
				array(
					'ref'    => "post:$page",
					'expect' => $version,
					'action' => 'update',
					'fields' => array( 'title' => 'Unlocked' ),
				),
			)
		);
		$this->assertSame( 200, $response->get_status() );
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$this->assertNull( $wpdb->get_var( "SELECT option_value FROM {$wpdb->options} WHERE option_name = '_sitewright_items_lock'" ) );
	}
}
