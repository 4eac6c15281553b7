<?php
/**
 * Export of chosen content and its import into a sandbox (this test site defines SITEWRIGHT_SANDBOX).
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Snapshots.
 */
final class SnapshotTest extends Sitewright_Test_Case {

	/**
	 * The export reads as the user it runs as (the route: the agent user of a signed request); these tests export
	 * as the site's administrator, who may read everything.
	 */
	protected function setUp(): void {
		parent::setUp();
		wp_set_current_user( (int) get_user_by( 'login', 'admin' )->ID );
	}

	/**
	 * A page with an image, private-looking meta, and a menu pointing at it.
	 *
	 * @return array{page: int, image: int, menu: int}
	 */
	private function make_content(): array {
		$image = wp_insert_attachment(
			array(
				'post_title'     => 'Logo',
				'post_mime_type' => 'image/png',
				'post_status'    => 'inherit',
				'guid'           => 'https://localhost/wp-content/uploads/logo.png',
			)
		);
		update_post_meta( $image, '_wp_attached_file', '2026/11/logo.png' );
		update_post_meta( $image, '_wp_attachment_image_alt', 'Our logo' );
		$page = wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'publish',
				'post_title'   => 'About us',
				'post_name'    => 'about-us',
				'post_content' => '<!-- wp:image {"id":' . $image . '} --><figure class="wp-block-image"><img src="x.png" class="wp-image-' . $image . '"/></figure><!-- /wp:image -->',
			)
		);
		update_post_meta( $page, 'subtitle', 'Who we are' );
		update_post_meta( $page, 'mailchimp_api_key', 'do-not-copy' );
		update_post_meta( $page, '_edit_lock', '123:1' );
		$menu = wp_create_nav_menu( 'Main ' . wp_generate_password( 6, false ) );
		wp_update_nav_menu_item(
			$menu,
			0,
			array(
				'menu-item-title'     => 'About',
				'menu-item-type'      => 'post_type',
				'menu-item-object'    => 'page',
				'menu-item-object-id' => $page,
				'menu-item-status'    => 'publish',
			)
		);
		update_option( 'show_on_front', 'page' );
		update_option( 'page_on_front', $page );
		return array(
			'page'  => (int) $page,
			'image' => (int) $image,
			'menu'  => (int) $menu,
		);
	}

	public function test_export_carries_the_chosen_pages_media_as_urls_menus_options_and_styles_but_no_users_or_secrets(): void {
		$made   = $this->make_content();
		$export = Sitewright_Snapshot::export( array( $made['page'], 999999 ) );
		$json   = (string) wp_json_encode( $export );

		$this->assertSame( Sitewright_Snapshot::FORMAT, $export['format'] );
		$this->assertSame( array( 999999 ), $export['skipped'] );
		$page = $export['posts'][0];
		$this->assertSame( 'About us', $page['title'] );
		$this->assertSame( array( 'Who we are' ), $page['meta']['subtitle'] );
		$this->assertArrayNotHasKey( 'mailchimp_api_key', $page['meta'] );
		$this->assertArrayNotHasKey( '_edit_lock', $page['meta'] );
		$this->assertSame( $made['image'], $export['media'][0]['id'] );
		$this->assertStringStartsWith( 'https://', $export['media'][0]['url'] );
		$this->assertSame( 'Our logo', $export['media'][0]['alt'] );
		$this->assertNotEmpty( array_filter( $export['menus'], static fn( array $m ): bool => (int) $m['id'] === $made['menu'] ) );
		$this->assertSame( $made['page'], (int) $export['options']['page_on_front'] );
		$this->assertArrayHasKey( 'globalStyles', $export );
		$this->assertArrayHasKey( 'themeMods', $export );
		$this->assertStringNotContainsString( 'do-not-copy', $json );
		$this->assertStringNotContainsString( 'user_pass', $json );
		$this->assertStringNotContainsString( 'admin@example.com', $json );
		$this->assertStringNotContainsString( 'swt_', $json );
	}

	public function test_import_recreates_the_content_keeping_ids_where_they_are_free(): void {
		$made   = $this->make_content();
		$export = Sitewright_Snapshot::export( array( $made['page'] ) );
		wp_delete_post( $made['page'], true );
		wp_delete_attachment( $made['image'], true );
		wp_delete_nav_menu( $made['menu'] );

		$result = Sitewright_Snapshot::import( $export );
		$this->assertIsArray( $result );
		$page = get_post( $made['page'] );
		$this->assertSame( 'About us', $page->post_title );
		$this->assertSame( 'Who we are', get_post_meta( $page->ID, 'subtitle', true ) );
		$this->assertSame( $export['media'][0]['url'], wp_get_attachment_url( $made['image'] ) );
		$this->assertSame( $made['page'], (int) get_option( 'page_on_front' ) );
		$menus = array_column( $export['menus'], 'name', 'id' );
		$items = wp_get_nav_menu_items( wp_get_nav_menu_object( $menus[ $made['menu'] ] ) );
		$this->assertSame( $made['page'], (int) $items[0]->object_id );
	}

	public function test_import_remaps_ids_that_are_taken_and_rewrites_image_references(): void {
		$made   = $this->make_content();
		$export = Sitewright_Snapshot::export( array( $made['page'] ) );
		$result = Sitewright_Snapshot::import( $export );
		$map    = (array) $result['idMap'];
		$this->assertNotSame( $made['page'], $map[ $made['page'] ] );
		$new_image = $map[ $made['image'] ];
		$content   = get_post( $map[ $made['page'] ] )->post_content;
		$this->assertStringContainsString( 'wp-image-' . $new_image, $content );
		$this->assertStringContainsString( '"id":' . $new_image, $content );
		$this->assertSame( $map[ $made['page'] ], (int) get_option( 'page_on_front' ) );
	}

	public function test_import_keeps_custom_css_byte_for_byte_and_drops_css_carrying_markup(): void {
		$made                = $this->make_content();
		$export              = Sitewright_Snapshot::export( array( $made['page'] ) );
		$export['customCss'] = 'nav > a { content: "\"x\""; }';
		Sitewright_Snapshot::import( $export );
		$this->assertSame( 'nav > a { content: "\"x\""; }', wp_get_custom_css() );

		$export['customCss'] = '</style><script>alert(1)</script>';
		Sitewright_Snapshot::import( $export );
		$this->assertSame( 'nav > a { content: "\"x\""; }', wp_get_custom_css() );
	}

	public function test_a_customised_template_part_travels_with_the_copy_and_the_import_names_its_theme(): void {
		$this->assertTrue( wp_is_block_theme(), 'The test WordPress runs a block theme.' );
		$slugs = wp_list_pluck( get_block_templates( array(), 'wp_template_part' ), 'slug' );
		$slug  = in_array( 'header', $slugs, true ) ? 'header' : (string) $slugs[0];
		$saved = Sitewright_Items::apply_batch(
			array(
				array(
					'ref'    => 'template_part:' . $slug,
					'expect' => Sitewright_Items::read( 'template_part:' . $slug )['version'],
					'action' => 'update',
					'fields' => array( 'content' => '<!-- wp:paragraph --><p>Our own header</p><!-- /wp:paragraph -->' ),
				),
			)
		);
		$this->assertIsArray( $saved, is_wp_error( $saved ) ? $saved->get_error_message() : '' );
		$part = get_block_template( get_stylesheet() . '//' . $slug, 'wp_template_part' );
		$this->assertSame( 'custom', $part->source );

		$made   = $this->make_content();
		$export = Sitewright_Snapshot::export( array( $made['page'] ) );
		$types  = array_column( $export['posts'], 'type', 'id' );
		$this->assertSame( 'wp_template_part', $types[ $part->wp_id ] ?? null, 'The customised part is exported.' );

		wp_delete_post( (int) $part->wp_id, true );
		$this->assertSame( 'theme', get_block_template( get_stylesheet() . '//' . $slug, 'wp_template_part' )->source );
		$result = Sitewright_Snapshot::import( $export );
		$this->assertIsArray( $result );
		$this->assertSame( get_stylesheet(), $result['theme'] );
		$copied = get_block_template( get_stylesheet() . '//' . $slug, 'wp_template_part' );
		$this->assertSame( 'custom', $copied->source );
		$this->assertStringContainsString( 'Our own header', $copied->content );
		wp_delete_post( (int) $copied->wp_id, true );
	}

	public function test_a_later_content_only_import_keeps_parents_and_images_that_an_earlier_import_copied(): void {
		$made   = $this->make_content();
		$child  = wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'draft',
				'post_title'   => 'Team',
				'post_parent'  => $made['page'],
				'post_content' => '<!-- wp:image {"id":' . $made['image'] . '} --><figure class="wp-block-image"><img class="wp-image-' . $made['image'] . '"/></figure><!-- /wp:image -->',
			)
		);
		$export = Sitewright_Snapshot::export( array( $child ) );
		$only   = array(
			'format'   => $export['format'],
			'posts'    => array_values( array_filter( $export['posts'], static fn( array $p ): bool => (int) $p['id'] === $child ) ),
			// The parent and the image were copied earlier, under other ids here.
			'knownIds' => array(
				$made['page']  => 4242,
				$made['image'] => 4343,
			),
		);
		$result = Sitewright_Snapshot::import( $only );
		$this->assertIsArray( $result );
		$copy = get_post( ( (array) $result['idMap'] )[ $child ] );
		$this->assertSame( 4242, (int) $copy->post_parent );
		$this->assertStringContainsString( 'wp-image-4343', $copy->post_content );
		$this->assertStringContainsString( '"id":4343', $copy->post_content );
		$this->assertSame( $made['page'], (int) get_option( 'page_on_front' ), 'Options are left alone.' );
	}

	public function test_the_copy_keeps_an_administrators_markup_and_a_page_password_exactly(): void {
		$content = '<!-- wp:paragraph --><p>Find us.</p><!-- /wp:paragraph --><!-- wp:html --><iframe src="https://maps.example.com/embed?pb=1"></iframe><form action="https://forms.example.com/s"><input name="e"></form><!-- /wp:html -->';
		wp_set_current_user( (int) get_user_by( 'login', 'admin' )->ID );
		$page   = (int) wp_insert_post(
			wp_slash(
				array(
					'post_type'     => 'page',
					'post_status'   => 'publish',
					'post_title'    => 'Members',
					'post_content'  => $content,
					'post_password' => 'open sesame',
				)
			)
		);
		$export = Sitewright_Snapshot::export( array( $page ) );
		wp_delete_post( $page, true );
		wp_set_current_user( 0 );

		// The import runs as whoever the sandbox's signed request acts as: no unfiltered_html.
		$this->assertFalse( current_user_can( 'unfiltered_html' ) );
		$this->assertIsArray( Sitewright_Snapshot::import( $export ) );
		$copy = get_post( $page );
		$this->assertSame( $content, $copy->post_content );
		$this->assertSame( 'open sesame', $copy->post_password );
		$this->assertTrue( post_password_required( $copy ) );
		wp_delete_post( $page, true );
	}

	public function test_import_refuses_something_that_is_not_a_snapshot(): void {
		$result = Sitewright_Snapshot::import( array( 'format' => 'other' ) );
		$this->assertRefused( $result, 'sitewright_bad_snapshot', 400 );
	}

	public function test_the_export_route_needs_ids_and_read_scopes(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'route' => '/sitewright/v1/export' ) ), $this->now_ms() ) );
		$this->assertSame( 400, $this->dispatch( 'GET', '/sitewright/v1/export' )->get_status() );
		$this->assertSame( 200, $this->dispatch( 'GET', '/sitewright/v1/export', array( 'ids' => '1,2' ) )->get_status() );
		$this->assertSame( 403, $this->dispatch( 'POST', '/sitewright/v1/import', array( 'format' => Sitewright_Snapshot::FORMAT ) )->get_status() );
	}

	public function test_the_export_leaves_out_what_the_reader_may_not_read_and_types_sitewright_does_not_handle(): void {
		register_post_type(
			'shop_order',
			array(
				'public'          => false,
				'capability_type' => 'shop_order',
				'map_meta_cap'    => true,
			)
		);
		$order   = (int) wp_insert_post(
			array(
				'post_type'    => 'shop_order',
				'post_status'  => 'publish',
				'post_title'   => 'Order 1001',
				'post_content' => 'ana@example.com, 1 Main Street',
			)
		);
		$request = (int) wp_insert_post(
			array(
				'post_type'   => 'user_request',
				'post_status' => 'request-pending',
				'post_title'  => 'ana@example.com',
			)
		);
		$page    = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'private',
				'post_title'  => 'Private notes',
			)
		);
		try {
			$export = Sitewright_Snapshot::export( array( $order, $request ) );
			$this->assertSame( array(), array_values( array_intersect( array( $order, $request ), array_column( $export['posts'], 'id' ) ) ) );
			wp_set_current_user( 0 ); // someone who may not read a private page
			$export = Sitewright_Snapshot::export( array( $page ) );
			$this->assertNotContains( $page, array_column( $export['posts'], 'id' ) );
		} finally {
			wp_delete_post( $order, true );
			wp_delete_post( $request, true );
			wp_delete_post( $page, true );
			unregister_post_type( 'shop_order' );
		}
	}
}
