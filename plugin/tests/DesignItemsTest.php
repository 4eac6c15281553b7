<?php
/**
 * Block-theme items: `global_styles:<stylesheet>` and `template_part:<slug>`. The first write creates what core
 * creates (the user's global styles post, a customised template part), `customised: false` removes it again and
 * gives back the very version read before, and both kinds keep the batch's version and scope rules. Nothing here
 * names a theme or a WordPress version: the test reads what the site runs.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Design items.
 */
final class DesignItemsTest extends Sitewright_Test_Case {

	/**
	 * Every test starts from the theme as shipped: no user global styles, no customised parts.
	 */
	protected function setUp(): void {
		parent::setUp();
		$this->assertTrue( wp_is_block_theme(), 'The test WordPress runs a block theme.' );
		$this->reset_design();
	}

	/**
	 * And leaves it so.
	 */
	protected function tearDown(): void {
		$this->reset_design();
		parent::tearDown();
	}

	/**
	 * Deletes user global styles and customised templates and template parts.
	 */
	private function reset_design(): void {
		foreach ( get_posts(
			array(
				'post_type'   => array( 'wp_global_styles', 'wp_template_part', 'wp_template' ),
				'post_status' => 'any',
				'numberposts' => -1,
			)
		) as $post ) {
			wp_delete_post( $post->ID, true );
		}
		WP_Theme_JSON_Resolver::clean_cached_data();
	}

	/**
	 * The slug of a template part the active theme ships (its header if it has one).
	 */
	private function theme_part_slug(): string {
		$slugs = wp_list_pluck( get_block_templates( array(), 'wp_template_part' ), 'slug' );
		$this->assertNotEmpty( $slugs );
		return in_array( 'header', $slugs, true ) ? 'header' : (string) $slugs[0];
	}

	/**
	 * Reads items through the signed route.
	 *
	 * @param array<int, string> $refs Refs.
	 * @return array<int, array<string, mixed>>
	 */
	private function read( array $refs ): array {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => implode( ',', $refs ) ) );
		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		return $response->get_data()['items'];
	}

	/**
	 * Posts a batch through the signed route.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 * @param array<int, string>               $scopes  Scopes.
	 */
	private function write( array $changes, array $scopes = array( 'site:read', 'content:read', 'design:write' ) ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( $scopes );
		$this->assertTrue(
			Sitewright_Auth::verify(
				$this->signed(
					$creds,
					array(
						'method' => 'POST',
						'route'  => '/sitewright/v1/items',
					)
				),
				$this->now_ms()
			)
		);
		return $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => $changes ) );
	}

	/**
	 * The palette's colours by slug, as WordPress resolves them now.
	 *
	 * @return array<string, string>
	 */
	private function resolved_palette(): array {
		WP_Theme_JSON_Resolver::clean_cached_data();
		$palette = wp_get_global_settings( array( 'color', 'palette' ) );
		$merged  = array();
		foreach ( array( 'default', 'theme', 'custom' ) as $origin ) {
			foreach ( (array) ( $palette[ $origin ] ?? array() ) as $entry ) {
				$merged[ $entry['slug'] ] = $entry['color'];
			}
		}
		return $merged;
	}

	public function test_global_styles_the_site_would_filter_are_refused_and_nothing_is_written(): void {
		$ref      = 'global_styles:' . get_stylesheet();
		$original = $this->read( array( $ref ) )[0];
		// Core's safety filter for styles drops this value while saving on every version (6.1 to 7.1): a CSS
		// function its allowlist does not know.
		$refused = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $original['version'],
					'action' => 'update',
					'fields' => array( 'styles' => array( 'color' => array( 'text' => 'color-mix(in srgb, currentColor 20%, transparent)' ) ) ),
				),
			)
		);
		$this->assertSame( 409, $refused->get_status(), (string) wp_json_encode( $refused->get_data() ) );
		$this->assertSame( 'sitewright_filtered', $refused->get_data()['code'] );
		$this->assertSame( $original['version'], $this->read( array( $ref ) )[0]['version'] );
	}

	/**
	 * Adds a colour to the theme's own palette whose value core's safety filter drops (as Twenty Twenty-Five's
	 * `accent-6` is), so the test holds on every version's default theme.
	 *
	 * @return callable The filter, to remove.
	 */
	private function theme_ships_a_filtered_colour(): callable {
		$filter = static function ( $theme_json ) {
			$data    = $theme_json->get_data();
			$palette = (array) ( $data['settings']['color']['palette']['theme'] ?? array() );
			if ( ! in_array( 'sitewright-mix', wp_list_pluck( $palette, 'slug' ), true ) ) {
				$palette[] = array(
					'slug'  => 'sitewright-mix',
					'name'  => 'Mix',
					'color' => 'color-mix(in srgb, currentColor 20%, transparent)',
				);
			}
			return $theme_json->update_with(
				array(
					'version'  => 2,
					'settings' => array( 'color' => array( 'palette' => $palette ) ),
				)
			);
		};
		add_filter( 'wp_theme_json_data_theme', $filter );
		$this->clean_theme_json();
		return $filter;
	}

	/**
	 * Forgets the resolved theme.json (6.3+ also keeps it in the object cache).
	 */
	private function clean_theme_json(): void {
		WP_Theme_JSON_Resolver::clean_cached_data();
		if ( function_exists( 'wp_clean_theme_json_cache' ) ) {
			wp_clean_theme_json_cache();
		}
	}

	public function test_a_colour_change_keeps_the_themes_own_values_the_filter_would_drop_and_refuses_planted_ones(): void {
		$filter = $this->theme_ships_a_filtered_colour();
		try {
			$ref      = 'global_styles:' . get_stylesheet();
			$original = $this->read( array( $ref ) )[0];
			// The palette as the Site Editor copies it into the user's styles: every theme colour, one changed.
			$palette = array_values( wp_get_global_settings( array( 'color', 'palette', 'theme' ) ) );
			$this->assertContains( 'sitewright-mix', wp_list_pluck( $palette, 'slug' ) );
			$changed             = $palette;
			$changed[0]['color'] = '#123456';
			$saved               = $this->write(
				array(
					array(
						'ref'    => $ref,
						'expect' => $original['version'],
						'action' => 'update',
						'fields' => array( 'settings' => array( 'color' => array( 'palette' => array( 'theme' => $changed ) ) ) ),
					),
				)
			);
			$this->assertSame( 200, $saved->get_status(), (string) wp_json_encode( $saved->get_data() ) );
			$css = wp_get_global_stylesheet();
			$this->assertStringContainsString( '--wp--preset--color--' . $changed[0]['slug'] . ': #123456', $css );
			$this->assertStringContainsString( '--wp--preset--color--sitewright-mix: color-mix(in srgb, currentColor 20%, transparent)', $css );
			$version = $saved->get_data()['items'][0]['version'];

			// A value of the same kind that is not the theme's own (here: planted on another colour) stays refused.
			$planted             = $changed;
			$planted[1]['color'] = 'color-mix(in srgb, currentColor 20%, transparent)';
			$refused             = $this->write(
				array(
					array(
						'ref'    => $ref,
						'expect' => $version,
						'action' => 'update',
						'fields' => array( 'settings' => array( 'color' => array( 'palette' => array( 'theme' => $planted ) ) ) ),
					),
				)
			);
			$this->assertSame( 409, $refused->get_status(), (string) wp_json_encode( $refused->get_data() ) );
			$this->assertSame( 'sitewright_filtered', $refused->get_data()['code'] );
			$this->assertSame( $version, $this->read( array( $ref ) )[0]['version'] );
			// The filter is back on for the next save: a later save by the agent user is filtered again.
			$this->assertNotFalse( has_filter( 'content_save_pre', 'wp_filter_global_styles_post' ) );
		} finally {
			remove_filter( 'wp_theme_json_data_theme', $filter );
			$this->clean_theme_json();
		}
	}

	public function test_global_styles_are_created_on_first_write_and_undo_removes_them_with_the_same_version(): void {
		$ref      = 'global_styles:' . get_stylesheet();
		$original = $this->read( array( $ref ) )[0];
		$this->assertTrue( $original['exists'] );
		$this->assertFalse( $original['state']['customised'] );
		$this->assertSame( 'wp_global_styles', $original['state']['type'] );
		$this->assertEquals( new stdClass(), $original['state']['settings'] );

		// The theme's plain colours: core's safety filter drops others (7.1's default theme has a color-mix()).
		$theme_palette = array_values(
			array_filter(
				wp_get_global_settings( array( 'color', 'palette', 'theme' ) ),
				static function ( array $entry ): bool {
					return 1 === preg_match( '/^#[0-9a-f]{3,8}$/i', (string) $entry['color'] );
				}
			)
		);
		$this->assertNotEmpty( $theme_palette );
		$palette             = $theme_palette;
		$palette[0]['color'] = '#123456';
		$saved               = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $original['version'],
					'action' => 'update',
					'fields' => array(
						'settings' => array( 'color' => array( 'palette' => array( 'theme' => $palette ) ) ),
						'styles'   => array( 'color' => array( 'text' => '#111111' ) ),
					),
				),
			)
		);
		$this->assertSame( 200, $saved->get_status(), (string) wp_json_encode( $saved->get_data() ) );
		$item = $saved->get_data()['items'][0];
		$this->assertTrue( $item['after']['customised'] );
		$this->assertFalse( $item['before']['customised'] );
		$this->assertSame( '#123456', $this->resolved_palette()[ $palette[0]['slug'] ] );
		$this->assertStringContainsString( '--wp--preset--color--' . $palette[0]['slug'] . ': #123456', wp_get_global_stylesheet() );
		$this->assertSame( $this->read( array( $ref ) )[0]['version'], $item['version'] );

		$undone = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $item['version'],
					'action' => 'update',
					'fields' => array(
						'customised' => false,
						'settings'   => array(),
						'styles'     => array(),
					),
				),
			)
		);
		$this->assertSame( 200, $undone->get_status() );
		$this->assertSame( $original['version'], $undone->get_data()['items'][0]['version'] );
		$this->assertSame( $theme_palette[0]['color'], $this->resolved_palette()[ $palette[0]['slug'] ] );
		$this->assertSame( array(), get_posts( array( 'post_type' => 'wp_global_styles' ) ) );
	}

	public function test_a_second_write_replaces_the_objects_it_names_and_keeps_the_others(): void {
		$ref    = 'global_styles:' . get_stylesheet();
		$swatch = array(
			'slug'  => 'sand',
			'color' => '#e0d5c0',
			'name'  => 'Sand',
		);
		$first  = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $this->read( array( $ref ) )[0]['version'],
					'action' => 'update',
					'fields' => array(
						'settings' => array( 'color' => array( 'palette' => array( 'custom' => array( $swatch ) ) ) ),
						'styles'   => array( 'color' => array( 'text' => '#222222' ) ),
					),
				),
			)
		)->get_data()['items'][0];
		$second = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $first['version'],
					'action' => 'update',
					'fields' => array( 'styles' => array( 'color' => array( 'background' => '#fafafa' ) ) ),
				),
			)
		)->get_data()['items'][0];
		$this->assertSame( array( 'color' => array( 'palette' => array( 'custom' => array( $swatch ) ) ) ), $second['after']['settings'] );
		$this->assertSame( array( 'color' => array( 'background' => '#fafafa' ) ), $second['after']['styles'] );
		$this->assertCount( 1, get_posts( array( 'post_type' => 'wp_global_styles' ) ) );
	}

	public function test_custom_css_in_global_styles_is_written_where_wordpress_has_it_and_refused_where_it_does_not(): void {
		$ref      = 'global_styles:' . get_stylesheet();
		$current  = $this->read( array( $ref ) )[0];
		$change   = array(
			'ref'    => $ref,
			'expect' => $current['version'],
			'action' => 'update',
			'fields' => array( 'styles' => array( 'css' => '.wp-site-blocks { outline: 0; }' ) ),
		);
		$response = $this->write( array( $change ) );
		$this->assertSame( $current['state']['css_supported'], version_compare( get_bloginfo( 'version' ), '6.2', '>=' ) );
		if ( $current['state']['css_supported'] ) {
			$this->assertSame( 200, $response->get_status() );
			// What core prints after the theme's styles: the user's global styles as resolved for this request.
			WP_Theme_JSON_Resolver::clean_cached_data();
			$this->assertSame( '.wp-site-blocks { outline: 0; }', WP_Theme_JSON_Resolver::get_user_data()->get_raw_data()['styles']['css'] ?? null );
		} else {
			$this->assertSame( 400, $response->get_status() );
			$this->assertStringContainsString( '6.2', $response->get_data()['message'] );
			$this->assertSame( $current['version'], $this->read( array( $ref ) )[0]['version'] );
		}
		$change['fields']['styles']['css'] = 'p{}</style><script>alert(1)</script>';
		$this->assertSame( 400, $this->write( array( $change ) )->get_status() );
	}

	public function test_a_theme_part_becomes_a_customised_post_on_first_write_and_undo_brings_the_theme_file_back(): void {
		$slug     = $this->theme_part_slug();
		$ref      = 'template_part:' . $slug;
		$original = $this->read( array( $ref ) )[0];
		$this->assertTrue( $original['exists'] );
		$this->assertFalse( $original['state']['customised'] );
		$this->assertSame( get_stylesheet(), $original['state']['theme'] );
		$this->assertNotSame( '', $original['state']['content'] );

		$content = $original['state']['content'] . "\n<!-- wp:paragraph -->\n<p>Open every day</p>\n<!-- /wp:paragraph -->";
		$saved   = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $original['version'],
					'action' => 'update',
					'fields' => array( 'content' => $content ),
				),
			)
		);
		$this->assertSame( 200, $saved->get_status(), (string) wp_json_encode( $saved->get_data() ) );
		$item = $saved->get_data()['items'][0];
		$this->assertTrue( $item['after']['customised'] );
		$this->assertSame( $original['state']['area'], $item['after']['area'] );
		$part = get_block_template( get_stylesheet() . '//' . $slug, 'wp_template_part' );
		$this->assertSame( 'custom', $part->source );
		$this->assertStringContainsString( 'Open every day', $part->content );
		$this->assertStringContainsString( 'Open every day', do_blocks( '<!-- wp:template-part {"slug":"' . $slug . '","theme":"' . get_stylesheet() . '"} /-->' ) );

		// A second write edits the same customised post.
		$again = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $item['version'],
					'action' => 'update',
					'fields' => array( 'content' => str_replace( 'every day', 'on Sundays', $content ) ),
				),
			)
		)->get_data()['items'][0];
		$this->assertCount( 1, get_posts( array( 'post_type' => 'wp_template_part' ) ) );

		$undone = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $again['version'],
					'action' => 'update',
					'fields' => array(
						'customised' => false,
						'content'    => $original['state']['content'],
					),
				),
			)
		);
		$this->assertSame( 200, $undone->get_status() );
		$this->assertSame( $original['version'], $undone->get_data()['items'][0]['version'] );
		$this->assertSame( 'theme', get_block_template( get_stylesheet() . '//' . $slug, 'wp_template_part' )->source );
		$this->assertSame( array(), get_posts( array( 'post_type' => 'wp_template_part' ) ) );
	}

	public function test_a_stale_expect_writes_nothing_and_a_part_the_theme_lacks_does_not_exist(): void {
		$slug = $this->theme_part_slug();
		$read = $this->read( array( 'template_part:' . $slug, 'template_part:no-such-part-here' ) );
		$this->assertFalse( $read[1]['exists'] );
		$response = $this->write(
			array(
				array(
					'ref'    => 'template_part:' . $slug,
					'expect' => str_repeat( '0', 64 ),
					'action' => 'update',
					'fields' => array( 'content' => '<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->' ),
				),
			)
		);
		$this->assertSame( 409, $response->get_status() );
		$this->assertSame( 'sitewright_stale', $response->get_data()['code'] );
		$this->assertSame( 'theme', get_block_template( get_stylesheet() . '//' . $slug, 'wp_template_part' )->source );
	}

	public function test_a_theme_template_becomes_a_customised_post_on_first_write_and_undo_brings_the_theme_file_back(): void {
		$slugs = wp_list_pluck( get_block_templates( array(), 'wp_template' ), 'slug' );
		$this->assertContains( 'index', $slugs, 'A block theme ships an index template.' );
		$ref      = 'template:index';
		$original = $this->read( array( $ref ) )[0];
		$this->assertTrue( $original['exists'] );
		$this->assertSame( 'wp_template', $original['state']['type'] );
		$this->assertFalse( $original['state']['customised'] );
		$this->assertArrayNotHasKey( 'area', $original['state'] );
		$this->assertNotSame( '', $original['state']['content'] );

		$content = $original['state']['content'] . "\n<!-- wp:paragraph -->\n<p>Whole template line</p>\n<!-- /wp:paragraph -->";
		$saved   = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $original['version'],
					'action' => 'update',
					'fields' => array( 'content' => $content ),
				),
			)
		);
		$this->assertSame( 200, $saved->get_status(), (string) wp_json_encode( $saved->get_data() ) );
		$item = $saved->get_data()['items'][0];
		$this->assertTrue( $item['after']['customised'] );
		$template = get_block_template( get_stylesheet() . '//index', 'wp_template' );
		$this->assertSame( 'custom', $template->source );
		$this->assertStringContainsString( 'Whole template line', $template->content );
		$this->assertCount( 1, get_posts( array( 'post_type' => 'wp_template' ) ) );

		// A person's edit after ours makes our expect stale: undo is refused and their edit stays.
		wp_update_post(
			array(
				'ID'           => $template->wp_id,
				'post_content' => str_replace( 'Whole template line', 'Person line', $content ),
			)
		);
		$refused = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $item['version'],
					'action' => 'update',
					'fields' => array( 'customised' => false ),
				),
			)
		);
		$this->assertSame( 409, $refused->get_status() );
		$this->assertSame( 'sitewright_stale', $refused->get_data()['code'] );
		$this->assertStringContainsString( 'Person line', get_block_template( get_stylesheet() . '//index', 'wp_template' )->content );

		$now    = $this->read( array( $ref ) )[0];
		$undone = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $now['version'],
					'action' => 'update',
					'fields' => array(
						'customised' => false,
						'content'    => $original['state']['content'],
					),
				),
			)
		);
		$this->assertSame( 200, $undone->get_status() );
		$this->assertSame( $original['version'], $undone->get_data()['items'][0]['version'] );
		$this->assertSame( 'theme', get_block_template( get_stylesheet() . '//index', 'wp_template' )->source );
		$this->assertSame( array(), get_posts( array( 'post_type' => 'wp_template' ) ) );
		$this->assertFalse( $this->read( array( 'template:no-such-template' ) )[0]['exists'] );
	}

	public function test_global_styles_list_the_theme_style_variations_outside_the_version(): void {
		$item     = $this->read( array( 'global_styles:' . get_stylesheet() ) )[0];
		$expected = wp_list_pluck( WP_Theme_JSON_Resolver::get_style_variations(), 'title' );
		$this->assertNotEmpty( $expected, 'The test theme has style variations.' );
		$this->assertSame( $expected, wp_list_pluck( $item['info']['variations'], 'title' ) );
		$this->assertArrayHasKey( 'settings', $item['info']['variations'][0] );
		$this->assertArrayNotHasKey( 'variations', $item['state'] );
	}

	public function test_design_items_need_design_write_and_only_the_active_theme_is_written(): void {
		$ref      = 'global_styles:' . get_stylesheet();
		$version  = $this->read( array( $ref ) )[0]['version'];
		$response = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $version,
					'action' => 'update',
					'fields' => array( 'styles' => array( 'color' => array( 'text' => '#000000' ) ) ),
				),
			),
			array( 'site:read', 'content:read', 'content:write', 'settings:write' )
		);
		$this->assertSame( 403, $response->get_status() );
		$this->assertSame( 'sitewright_scope', $response->get_data()['code'] );
		$this->assertSame( array(), get_posts( array( 'post_type' => 'wp_global_styles' ) ) );

		$this->assertFalse( $this->read( array( 'global_styles:some-other-theme' ) )[0]['exists'] );
		$this->assertNull( Sitewright_Items::parse_ref( 'template_part:../header' ) );
		$refused = Sitewright_Items::refuse_change(
			array(
				'ref'    => $ref,
				'expect' => $version,
				'action' => 'update',
				'fields' => array( 'theme' => 'x' ),
			),
			array( 'design:write' )
		);
		$this->assertSame( 400, $refused['status'] ?? null );
	}

	public function test_on_a_classic_theme_neither_kind_exists_and_nothing_can_be_written(): void {
		$block_theme = get_stylesheet();
		$dir         = get_theme_root() . '/sitewright-classic-test';
		// phpcs:disable WordPress.WP.AlternativeFunctions -- a throwaway theme for this test only.
		mkdir( $dir );
		file_put_contents( $dir . '/style.css', "/*\nTheme Name: Sitewright Classic Test\n*/\n" );
		file_put_contents( $dir . '/index.php', "<?php\n" );
		// phpcs:enable
		wp_clean_themes_cache();
		switch_theme( 'sitewright-classic-test' );
		try {
			$this->assertFalse( wp_is_block_theme() );
			$this->assertFalse( Sitewright_Site_Info::collect()['theme']['isBlockTheme'] ?? true );
			$read = $this->read( array( 'global_styles:sitewright-classic-test', 'template_part:header' ) );
			$this->assertFalse( $read[0]['exists'] );
			$this->assertFalse( $read[1]['exists'] );
			$response = $this->write(
				array(
					array(
						'ref'    => 'template_part:header',
						'expect' => str_repeat( '0', 64 ),
						'action' => 'update',
						'fields' => array( 'content' => '<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->' ),
					),
				)
			);
			$this->assertSame( 409, $response->get_status() );
			$this->assertSame( 'missing', $response->get_data()['data']['items'][0]['reason'] );
			$this->assertSame( array(), get_posts( array( 'post_type' => 'wp_template_part' ) ) );
		} finally {
			switch_theme( $block_theme );
			unlink( $dir . '/style.css' );
			unlink( $dir . '/index.php' );
			rmdir( $dir );
			delete_option( 'theme_mods_sitewright-classic-test' );
			wp_clean_themes_cache();
		}
	}
}
