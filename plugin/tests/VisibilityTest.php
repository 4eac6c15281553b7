<?php
/**
 * POST /sitewright/v1/items/visibility on the real WordPress: whether visitors would see each planned change and
 * where, decided from WordPress's own data (docs/visibility.md), and POST /items with requireInvisible refusing a
 * change that became visible between plan and write.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Visibility.
 */
final class VisibilityTest extends Sitewright_Test_Case {

	/**
	 * Options and theme mods a test changed, restored after it.
	 *
	 * @var array<string, mixed>
	 */
	private array $saved = array();

	/**
	 * Remembers the options the tests change.
	 */
	protected function setUp(): void {
		parent::setUp();
		foreach ( array( 'site_logo', 'site_icon', 'sidebars_widgets', 'widget_block', 'wp_attachment_pages_enabled' ) as $option ) {
			$this->saved[ $option ] = get_option( $option );
		}
		$this->saved['theme_mods'] = get_option( 'theme_mods_' . get_stylesheet() );
	}

	/**
	 * Puts them back.
	 */
	protected function tearDown(): void {
		foreach ( $this->saved as $option => $value ) {
			$name = 'theme_mods' === $option ? 'theme_mods_' . get_stylesheet() : $option;
			false === $value ? delete_option( $name ) : update_option( $name, $value );
		}
		remove_all_filters( 'sitewright_item_kinds' );
		Sitewright_Plugin::add_item_kinds();
		Sitewright_Item_Kinds::reset();
		parent::tearDown();
	}

	/**
	 * Asks where each change would be seen, as the service does (signed, read scopes only).
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 * @param array<int, string>               $scopes  The token's scopes.
	 */
	private function ask( array $changes, array $scopes = array( 'site:read', 'content:read' ) ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( $scopes );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items/visibility' ) ), $this->now_ms() ) );
		return $this->dispatch( 'POST', '/sitewright/v1/items/visibility', array( 'changes' => $changes ) );
	}

	/**
	 * The answer for one change.
	 *
	 * @param string               $ref    Ref.
	 * @param array<string, mixed> $fields Fields.
	 * @param string               $action Action.
	 * @return array<string, mixed>
	 */
	private function visibility( string $ref, array $fields, string $action = 'update' ): array {
		$response = $this->ask(
			array(
				array(
					'ref'    => $ref,
					'expect' => 'new' === explode( ':', $ref )[1] ? null : 'v',
					'action' => $action,
					'fields' => $fields,
				),
			)
		);
		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		$items = $response->get_data()['items'];
		$this->assertCount( 1, $items );
		$this->assertSame( $ref, $items[0]['ref'] );
		return $items[0];
	}

	/**
	 * The kinds and labels of an answer's places, as "kind: label" lines.
	 *
	 * @param array<string, mixed> $answer Answer.
	 * @return array<int, string>
	 */
	private function places( array $answer ): array {
		return array_map( static fn( array $place ): string => $place['kind'] . ': ' . $place['label'], $answer['places'] );
	}

	/**
	 * An image attached to a post (0: unattached).
	 *
	 * @param int $parent Parent post.
	 */
	private function image( int $parent = 0 ): int {
		$name = 'photo-' . wp_generate_password( 8, false ) . '.jpg';
		return (int) wp_insert_attachment(
			array(
				'post_mime_type' => 'image/jpeg',
				'post_title'     => 'The shop front',
				'post_excerpt'   => 'Our shop in the morning',
				'post_status'    => 'inherit',
			),
			gmdate( 'Y/m' ) . '/' . $name,
			$parent
		);
	}

	/**
	 * A post.
	 *
	 * @param string $status  Status.
	 * @param string $content Content.
	 * @param string $type    Type.
	 */
	private function post( string $status, string $content = 'We bake bread.', string $type = 'page' ): int {
		$args = array(
			'post_type'    => $type,
			'post_status'  => $status,
			'post_title'   => 'Our bakery ' . wp_generate_password( 4, false ),
			'post_content' => $content,
		);
		if ( 'future' === $status ) {
			$args['post_date'] = gmdate( 'Y-m-d H:i:s', time() + 86400 );
		}
		return (int) wp_insert_post( $args );
	}

	/**
	 * Turns attachment pages off where WordPress can (6.4+); before 6.4 they always exist.
	 */
	private function attachment_pages_off(): void {
		update_option( 'wp_attachment_pages_enabled', '0' );
	}

	public function test_an_images_caption_is_visible_in_a_published_posts_classic_gallery_by_ids_or_include(): void {
		$draft  = $this->post( 'draft' );
		$image  = $this->image( $draft );
		$other  = $this->image( $draft );
		$by_ids = $this->post( 'publish', "[gallery ids=\"$other,$image\" columns=\"2\"]" );
		$answer = $this->visibility( "post:$image", array( 'excerpt' => 'A <a href="https://spam.example">deal</a>' ) );
		$this->assertTrue( $answer['visible'] );
		$this->assertContains( 'gallery: page ' . $by_ids . ' “' . get_the_title( $by_ids ) . '” shows it in a [gallery]', $this->places( $answer ) );
		$this->assertSame( get_permalink( $by_ids ), $answer['places'][0]['url'] );

		wp_delete_post( $by_ids, true );
		$by_include = $this->post( 'publish', "Photos: [gallery include='$image']" );
		$this->assertContains( 'gallery', array_column( $this->visibility( "post:$image", array( 'title' => 'x' ) )['places'], 'kind' ) );
		wp_update_post(
			array(
				'ID'          => $by_include,
				'post_status' => 'draft',
			)
		);
		$this->attachment_pages_off();
		$this->assertFalse( $this->visibility( "post:$image", array( 'title' => 'x' ) )['visible'], 'a draft\'s gallery is not seen' );
	}

	public function test_a_gallery_without_ids_shows_the_images_attached_to_its_published_post_but_not_the_excluded(): void {
		$page  = $this->post( 'publish', 'Our shop: [gallery columns="3"]' );
		$image = $this->image( $page );
		$this->assertContains( 'gallery: page ' . $page . ' “' . get_the_title( $page ) . '” shows it in a [gallery]', $this->places( $this->visibility( "post:$image", array( 'excerpt' => 'x' ) ) ) );
		$other  = $this->post( 'publish', 'placeholder' );
		$hidden = $this->image( $other );
		wp_update_post(
			array(
				'ID'           => $other,
				'post_content' => "[gallery exclude=\"$hidden\"]",
			)
		);
		$this->assertNotContains( 'gallery', array_column( $this->visibility( "post:$hidden", array( 'excerpt' => 'x' ) )['places'], 'kind' ) );
	}

	public function test_an_image_in_a_gallery_block_or_an_image_block_of_a_published_post_is_visible(): void {
		$draft     = $this->post( 'draft' );
		$image     = $this->image( $draft );
		$gallery   = $this->post( 'publish', "<!-- wp:gallery {\"linkTo\":\"none\"} -->\n<figure class=\"wp-block-gallery\"><!-- wp:image {\"id\":$image} -->\n<figure class=\"wp-block-image\"><img src=\"x.jpg\" class=\"wp-image-$image\"/></figure>\n<!-- /wp:image --></figure>\n<!-- /wp:gallery -->" );
		$single    = $this->post( 'future', "<!-- wp:image {\"id\":$image,\"sizeSlug\":\"large\"} -->\n<figure class=\"wp-block-image\"><img src=\"x.jpg\"/></figure>\n<!-- /wp:image -->", 'post' );
		$lookalike = $this->post( 'publish', '<img class="wp-image-' . $image . '0"/> "id":' . $image . '1' );
		$places    = $this->places( $this->visibility( "post:$image", array( 'alt' => 'Fresh bread' ) ) );
		$this->assertContains( 'gallery: page ' . $gallery . ' “' . get_the_title( $gallery ) . '” shows it in a gallery block', $places );
		$this->assertContains( 'post: post ' . $single . ' “' . get_the_title( $single ) . '” shows it', $places, 'a scheduled post counts: it publishes itself' );
		$this->assertSame( array(), array_filter( $places, static fn( $label ) => str_contains( $label, (string) $lookalike ) ), 'wp-image-' . $image . '0 is another image' );
	}

	public function test_a_published_link_to_any_size_of_an_images_file_makes_it_visible(): void {
		$this->attachment_pages_off();
		$image = $this->image( $this->post( 'draft' ) );
		update_attached_file( $image, gmdate( 'Y/m' ) . '/shop_front_' . $image . '.jpg' );
		$file = (string) wp_get_attachment_url( $image );
		$post = $this->post( 'publish', '<p><a href="' . str_replace( '.jpg', '-300x200.jpg', $file ) . '">Our shop</a></p>' );
		$this->assertSame( array( 'post: page ' . $post . ' “' . get_the_title( $post ) . '” shows it' ), $this->places( $this->visibility( "post:$image", array( 'title' => 'x' ) ) ) );
	}

	public function test_an_image_a_published_post_shows_as_its_featured_image_is_visible(): void {
		$draft = $this->post( 'draft' );
		$image = $this->image( $draft );
		$post  = $this->post( 'publish', 'News.', 'post' );
		set_post_thumbnail( $post, $image );
		$this->assertContains( 'post: post ' . $post . ' “' . get_the_title( $post ) . '” shows it as its featured image', $this->places( $this->visibility( "post:$image", array( 'alt' => 'x' ) ) ) );
	}

	public function test_any_images_title_or_description_is_visible_on_its_attachment_page_while_those_are_on(): void {
		update_option( 'wp_attachment_pages_enabled', '1' );
		$image  = $this->image();
		$answer = $this->visibility( "post:$image", array( 'content' => 'A description with a <a href="https://spam.example">link</a>' ) );
		$this->assertTrue( $answer['visible'] );
		$this->assertSame(
			array(
				'kind'  => 'attachment_page',
				'label' => 'its attachment page',
				'url'   => get_attachment_link( $image ),
			),
			$answer['places'][0]
		);
	}

	public function test_attachment_pages_exist_before_6_4_and_follow_the_option_from_6_4_as_core_decides(): void {
		$this->assertTrue( Sitewright_Site_Places::attachment_pages_enabled( '6.1.9', '0' ) );
		$this->assertTrue( Sitewright_Site_Places::attachment_pages_enabled( '6.3.5', false ) );
		$this->assertFalse( Sitewright_Site_Places::attachment_pages_enabled( '6.4', '0' ) );
		$this->assertFalse( Sitewright_Site_Places::attachment_pages_enabled( '7.1', '' ) );
		$this->assertTrue( Sitewright_Site_Places::attachment_pages_enabled( '6.4.2', '1' ) );
		$this->assertTrue( Sitewright_Site_Places::attachment_pages_enabled( '7.1-RC1', '1' ) );
	}

	public function test_a_drafts_image_with_attachment_pages_off_is_not_visible(): void {
		$this->attachment_pages_off();
		$draft  = $this->post( 'draft', '' );
		$image  = $this->image( $draft );
		$answer = $this->visibility( "post:$image", array( 'excerpt' => 'New caption' ) );
		$this->assertFalse( $answer['visible'], (string) wp_json_encode( $answer ) );
		$this->assertSame( array(), $answer['places'] );
		$this->assertSame( 0, $answer['more'] );
	}

	public function test_the_alt_of_the_site_logo_or_the_site_icon_is_visible(): void {
		$this->attachment_pages_off();
		$draft = $this->post( 'draft' );
		$logo  = $this->image( $draft );
		$mod   = $this->image( $draft );
		$icon  = $this->image( $draft );
		set_theme_mod( 'custom_logo', $mod ); // A classic theme's logo (WordPress copies it to site_logo).
		update_option( 'site_icon', $icon );
		$this->assertSame( array( 'site_logo: the site logo' ), $this->places( $this->visibility( "post:$mod", array( 'alt' => 'x' ) ) ) );
		update_option( 'site_logo', $logo ); // The site logo block's own.
		$this->assertSame( array( 'site_logo: the site logo' ), $this->places( $this->visibility( "post:$logo", array( 'alt' => 'x' ) ) ) );
		$this->assertFalse( $this->visibility( "post:$mod", array( 'alt' => 'x' ) )['visible'], 'no longer the logo' );
		$this->assertSame( array( 'site_icon: the site icon' ), $this->places( $this->visibility( "post:$icon", array( 'alt' => 'x' ) ) ) );
	}

	/**
	 * A category no published post uses.
	 */
	private function unused_category(): WP_Term {
		$created = wp_insert_term( 'Seasonal ' . wp_generate_password( 6, false ), 'category' );
		$this->assertIsArray( $created );
		return get_term( (int) $created['term_id'] );
	}

	public function test_a_term_a_shown_classic_menu_names_is_visible_with_no_published_post(): void {
		$term = $this->unused_category();
		$this->post( 'draft', 'x', 'post' );
		$menu = wp_create_nav_menu( 'Main ' . $term->term_id );
		wp_update_nav_menu_item(
			$menu,
			0,
			array(
				'menu-item-type'      => 'taxonomy',
				'menu-item-object'    => 'category',
				'menu-item-object-id' => $term->term_id,
				'menu-item-status'    => 'publish',
			)
		);
		set_theme_mod( 'nav_menu_locations', array( 'primary' => $menu ) );
		$answer = $this->visibility( "term:{$term->term_id}", array( 'name' => 'Winter' ) );
		$this->assertSame( array( "menu: the classic menu Main {$term->term_id}" ), $this->places( $answer ) );
	}

	public function test_a_term_a_navigation_block_links_to_is_visible(): void {
		$term = $this->unused_category();
		$nav  = (int) wp_insert_post(
			array(
				'post_type'    => 'wp_navigation',
				'post_status'  => 'publish',
				'post_title'   => 'Header nav',
				'post_content' => '<!-- wp:navigation-link {"label":"Seasonal","type":"category","id":' . $term->term_id . ',"url":"https://localhost/?cat=' . $term->term_id . '","kind":"taxonomy","isTopLevelLink":true} /-->',
			)
		);
		$this->assertSame( array( 'navigation: the navigation block “Header nav”' ), $this->places( $this->visibility( "term:{$term->term_id}", array( 'description' => 'x' ) ) ) );
		wp_delete_post( $nav, true );

		$by_url = $this->unused_category();
		$page   = $this->post( 'publish', '<!-- wp:navigation --><!-- wp:navigation-link {"label":"S","url":"' . get_term_link( $by_url ) . '","kind":"custom"} /--><!-- /wp:navigation -->' );
		$this->assertSame( array( 'navigation: page ' . $page . ' “' . get_the_title( $page ) . '” links to it' ), $this->places( $this->visibility( "term:{$by_url->term_id}", array( 'name' => 'x' ) ) ) );
	}

	public function test_a_term_a_widget_links_to_is_visible_and_one_nobody_shows_is_not(): void {
		$term = $this->unused_category();
		update_option( 'widget_block', array( 7 => array( 'content' => '<!-- wp:paragraph --><p><a href="' . get_term_link( $term ) . '">Seasonal</a></p><!-- /wp:paragraph -->' ) ) );
		update_option(
			'sidebars_widgets',
			array(
				'wp_inactive_widgets' => array(),
				'sidebar-1'           => array( 'block-7' ),
				'array_version'       => 3,
			)
		);
		$this->assertSame( array( 'widget: a widget in sidebar-1' ), $this->places( $this->visibility( "term:{$term->term_id}", array( 'name' => 'x' ) ) ) );

		$nobody = $this->unused_category();
		$answer = $this->visibility( "term:{$nobody->term_id}", array( 'name' => 'x' ) );
		$this->assertFalse( $answer['visible'], (string) wp_json_encode( $answer ) );
		$this->assertFalse( $this->visibility( 'term:new', array( 'taxonomy' => 'category', 'name' => 'New' ), 'create' )['visible'] );
	}

	public function test_a_term_a_terms_list_showing_empty_ones_shows_is_visible_and_not_another_taxonomys(): void {
		$term = $this->unused_category();
		$tag  = wp_insert_term( 'Unused tag ' . $term->term_id, 'post_tag' );
		$page = $this->post( 'publish', '<!-- wp:categories {"showEmpty":true,"showHierarchy":true} /-->' );
		$this->assertSame( array( 'post: page ' . $page . ' “' . get_the_title( $page ) . '” lists it in a terms list that shows empty ones' ), $this->places( $this->visibility( "term:{$term->term_id}", array( 'name' => 'x' ) ) ) );
		$this->assertFalse( $this->visibility( 'term:' . $tag['term_id'], array( 'name' => 'x' ) )['visible'] );
		wp_update_post(
			array(
				'ID'           => $page,
				'post_content' => '<!-- wp:categories /-->',
			)
		);
		$this->assertFalse( $this->visibility( "term:{$term->term_id}", array( 'name' => 'x' ) )['visible'], 'without showEmpty only used terms are listed' );
	}

	public function test_a_term_published_posts_use_is_visible_on_its_archive_and_those_posts_with_the_rest_counted(): void {
		$term = $this->unused_category();
		for ( $i = 0; $i < 12; $i++ ) {
			wp_set_post_categories( $this->post( 'publish', 'x', 'post' ), array( $term->term_id ) );
		}
		$answer = $this->visibility( "term:{$term->term_id}", array( 'name' => 'x' ) );
		$this->assertSame( 'archive', $answer['places'][0]['kind'] );
		$this->assertSame( 'the archive of category ' . $term->name, $answer['places'][0]['label'] );
		$this->assertSame( get_term_link( $term ), $answer['places'][0]['url'] );
		$this->assertLessThanOrEqual( Sitewright_Places::MAX, count( $answer['places'] ) );
		$this->assertSame( 13, count( $answer['places'] ) + $answer['more'] );
	}

	public function test_a_synced_pattern_a_published_page_uses_is_visible_and_an_unused_one_is_not(): void {
		$pattern = (int) wp_insert_post(
			array(
				'post_type'    => 'wp_block',
				'post_status'  => 'publish',
				'post_title'   => 'Opening hours',
				'post_content' => '<!-- wp:paragraph --><p>9 to 5</p><!-- /wp:paragraph -->',
			)
		);
		$this->post( 'draft', "<!-- wp:block {\"ref\":$pattern} /-->" );
		$this->assertFalse( $this->visibility( "post:$pattern", array( 'content' => 'x' ) )['visible'], 'only a draft uses it' );
		$page = $this->post( 'publish', "<!-- wp:block {\"ref\":$pattern} /-->" );
		$this->post( 'publish', '<!-- wp:block {"ref":' . $pattern . '0} /-->' );
		$answer = $this->visibility( "post:$pattern", array( 'content' => 'x' ) );
		$this->assertSame( array( 'pattern: the synced pattern “Opening hours” used by page ' . $page . ' “' . get_the_title( $page ) . '”' ), $this->places( $answer ) );
	}

	public function test_a_synced_pattern_is_an_item_the_agent_reads_and_writes(): void {
		$pattern = (int) wp_insert_post(
			array(
				'post_type'   => 'wp_block',
				'post_status' => 'publish',
				'post_title'  => 'Footer note',
				'post_author' => Sitewright_Agent_User::id(),
			)
		);
		$creds   = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'GET', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$read = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => "post:$pattern" ) );
		$this->assertSame( 200, $read->get_status(), (string) wp_json_encode( $read->get_data() ) );
		$this->assertSame( 'wp_block', $read->get_data()['items'][0]['state']['type'] );
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$written = $this->dispatch(
			'POST',
			'/sitewright/v1/items',
			array(
				'changes' => array(
					array(
						'ref'    => "post:$pattern",
						'expect' => $read->get_data()['items'][0]['version'],
						'action' => 'update',
						'fields' => array( 'content' => '<!-- wp:paragraph --><p>Closed Sundays</p><!-- /wp:paragraph -->' ),
					),
				),
			)
		);
		$this->assertSame( 200, $written->get_status(), (string) wp_json_encode( $written->get_data() ) );
		$this->assertStringContainsString( 'Closed Sundays', get_post( $pattern )->post_content );
	}

	public function test_design_and_settings_are_visible_site_wide_and_posts_while_published_or_scheduled(): void {
		$this->assertSame( array( 'template_part: the header template part' ), $this->places( $this->visibility( 'template_part:header', array( 'content' => 'x' ) ) ) );
		$this->assertSame( array( 'design: the site-wide global styles' ), $this->places( $this->visibility( 'global_styles:' . get_stylesheet(), array( 'styles' => array() ) ) ) );
		$this->assertSame( array( 'setting: the site-wide setting “Site title”' ), $this->places( $this->visibility( 'option:blogname', array( 'value' => 'x' ) ) ) );
		$published = $this->post( 'publish', 'x', 'post' );
		$places    = $this->places( $this->visibility( "post:$published", array( 'title' => 'x' ) ) );
		$this->assertSame( 'post: post ' . $published . ' “' . get_the_title( $published ) . '”', $places[0] );
		$this->assertContains( 'feed: the site\'s feed', $places );
		$this->assertContains( 'archive: the archive of category Uncategorized', $places );
		$this->assertTrue( $this->visibility( 'post:' . $this->post( 'future' ), array( 'title' => 'x' ) )['visible'] );
		$draft = $this->post( 'draft' );
		$this->assertFalse( $this->visibility( "post:$draft", array( 'title' => 'x' ) )['visible'] );
		$this->assertFalse( $this->visibility( 'post:' . $this->post( 'private' ), array( 'title' => 'x' ) )['visible'] );
		$this->assertTrue( $this->visibility( "post:$draft", array( 'status' => 'publish' ) )['visible'], 'publishing is seen' );
		$this->assertTrue( $this->visibility( "post:$published", array(), 'trash' )['visible'], 'taking a page down is seen' );
		$this->assertFalse( $this->visibility( 'post:new', array( 'type' => 'page' ), 'create' )['visible'] );
		$this->assertTrue( $this->visibility( 'post:new', array( 'type' => 'page', 'status' => 'publish' ), 'create' )['visible'] );
	}

	public function test_when_the_plugin_cannot_tell_it_answers_visible(): void {
		add_filter(
			'sitewright_item_kinds',
			static function ( array $kinds ): array {
				$kinds['option'] = new class( 'option' ) extends Sitewright_Item_Kind {
					/**
					 * Any option name.
					 *
					 * @param string $key Key.
					 */
					public function valid_key( string $key ): bool {
						return true;
					}

					/**
					 * An option.
					 *
					 * @param string $key Key.
					 * @return array{0: array<string, mixed>|null, 1: string}
					 */
					public function read_item( string $key ): array {
						return array( array( 'value' => 'x' ), $key );
					}

					/**
					 * Allowed.
					 *
					 * @param string               $key    Key.
					 * @param string               $action Action.
					 * @param array<string, mixed> $fields Fields.
					 */
					public function can_write( string $key, string $action, array $fields ): bool {
						return true;
					}

					/**
					 * Writes nothing.
					 *
					 * @param string               $action Action.
					 * @param string               $key    Key.
					 * @param array<string, mixed> $fields Fields.
					 * @return string
					 */
					public function write_item( string $action, string $key, array $fields ) {
						return $key;
					}

					/**
					 * Fails, as a broken query would.
					 *
					 * @param string               $key    Key.
					 * @param string               $action Action.
					 * @param array<string, mixed> $fields Fields.
					 * @param Sitewright_Places    $places Places.
					 * @throws RuntimeException Always.
					 */
					public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
						throw new RuntimeException( 'database gone' );
					}
				};
				return $kinds;
			}
		);
		Sitewright_Item_Kinds::reset();
		$answer = $this->visibility( 'option:blogname', array( 'value' => 'x' ) );
		$this->assertTrue( $answer['visible'] );
		$this->assertSame( array( 'unknown: Sitewright could not tell where this shows, so it counts as visible' ), $this->places( $answer ) );
	}

	public function test_many_uses_are_bounded_to_ten_places_and_counted_in_more(): void {
		$this->attachment_pages_off();
		$image = $this->image( $this->post( 'draft' ) );
		for ( $i = 0; $i < 14; $i++ ) {
			$this->post( 'publish', "<img class=\"wp-image-$image\"/>" );
		}
		$answer = $this->visibility( "post:$image", array( 'alt' => 'x' ) );
		$this->assertCount( 10, $answer['places'] );
		$this->assertSame( 4, $answer['more'] );
	}

	public function test_one_answer_per_change_in_the_order_asked(): void {
		$draft     = $this->post( 'draft' );
		$published = $this->post( 'publish' );
		$response  = $this->ask(
			array(
				array(
					'ref'    => "post:$draft",
					'expect' => 'v',
					'action' => 'update',
					'fields' => array( 'title' => 'x' ),
				),
				array(
					'ref'    => 'option:blogdescription',
					'expect' => 'v',
					'action' => 'update',
					'fields' => array( 'value' => 'x' ),
				),
				array(
					'ref'    => "post:$published",
					'expect' => 'v',
					'action' => 'update',
					'fields' => array( 'title' => 'x' ),
				),
			)
		);
		$this->assertSame( 200, $response->get_status() );
		$items = $response->get_data()['items'];
		$this->assertSame( array( "post:$draft", 'option:blogdescription', "post:$published" ), array_column( $items, 'ref' ) );
		$this->assertSame( array( false, true, true ), array_column( $items, 'visible' ) );
		$this->assertSame( get_permalink( $published ), $items[2]['places'][0]['url'] );
	}

	public function test_a_long_title_is_shortened_in_its_label(): void {
		$long  = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'publish',
				'post_title'  => str_repeat( 'Fresh bread and pastries ', 30 ),
			)
		);
		$label = $this->visibility( "post:$long", array( 'title' => 'x' ) )['places'][0]['label'];
		$this->assertSame( Sitewright_Places::MAX_LABEL, mb_strlen( $label ) );
		$this->assertStringStartsWith( "page $long “Fresh bread", $label );
		$this->assertStringEndsWith( '…', $label );
	}

	public function test_the_place_kinds_are_the_vocabularys(): void {
		$vocabulary = json_decode( (string) file_get_contents( SITEWRIGHT_TEST_VOCABULARY ), true );
		$this->assertSame( $vocabulary['items']['placeKinds'], Sitewright_Places::KINDS );
	}

	public function test_bad_changes_are_refused_with_their_index_and_each_item_needs_its_read_scope(): void {
		$bad = $this->ask(
			array(
				array(
					'ref'    => 'option:blogname',
					'expect' => 'v',
					'action' => 'update',
				),
				array(
					'ref'    => 'user:1',
					'expect' => 'v',
					'action' => 'update',
				),
			)
		);
		$this->assertSame( 400, $bad->get_status() );
		$this->assertSame( 'rest_invalid_param', $bad->get_data()['code'] );
		$this->assertSame( 1, $bad->get_data()['data']['index'] );
		$this->assertSame( 400, $this->ask( array() )->get_status() );

		$scope = $this->ask(
			array(
				array(
					'ref'    => 'post:1',
					'expect' => 'v',
					'action' => 'update',
				),
			),
			array( 'site:read' )
		);
		$this->assertSame( 403, $scope->get_status() );
		$this->assertSame( 'sitewright_scope', $scope->get_data()['code'] );
		$this->assertSame( array( 'content:read' ), $scope->get_data()['data']['required'] );
	}

	/**
	 * Writes a batch.
	 *
	 * @param array<int, array<string, mixed>> $changes           Changes.
	 * @param bool                             $require_invisible The flag.
	 */
	private function write( array $changes, bool $require_invisible ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		return $this->dispatch(
			'POST',
			'/sitewright/v1/items',
			array(
				'changes'          => $changes,
				'requireInvisible' => $require_invisible,
			)
		);
	}

	public function test_a_change_planned_invisible_is_refused_when_a_page_was_published_before_the_write(): void {
		$this->attachment_pages_off();
		$page    = $this->post( 'draft' );
		$image   = $this->image( $page );
		$keep    = Sitewright_Items::read( "post:$page" );
		$changes = array(
			array(
				'ref'    => "post:$page",
				'expect' => $keep['version'],
				'action' => 'update',
				'fields' => array( 'menu_order' => 0 ),
			),
			array(
				'ref'    => "post:$image",
				'expect' => Sitewright_Items::read( "post:$image" )['version'],
				'action' => 'update',
				'fields' => array( 'excerpt' => 'A caption with a <a href="https://spam.example">link</a>' ),
			),
		);
		$this->assertFalse( Sitewright_Visibility::of_change( $changes[1] )['visible'] );
		wp_update_post(
			array(
				'ID'           => $page,
				'post_status'  => 'publish',
				'post_content' => "[gallery ids=\"$image\"]",
			)
		);
		$changes[0]['expect'] = Sitewright_Items::read( "post:$page" )['version'];
		$refused              = $this->write( $changes, true );
		$this->assertSame( 409, $refused->get_status(), (string) wp_json_encode( $refused->get_data() ) );
		$this->assertSame( 'sitewright_visible', $refused->get_data()['code'] );
		$data = $refused->get_data()['data'];
		$this->assertSame( 0, $data['index'], 'the published page itself is the first visible change' );
		$this->assertSame( "post:$page", $data['ref'] );
		$this->assertSame( 0, $data['more'] );
		$this->assertSame( 'Our shop in the morning', get_post( $image )->post_excerpt, 'nothing was written' );

		$only_image = $this->write( array( $changes[1] ), true );
		$this->assertSame( 409, $only_image->get_status() );
		$this->assertContains( 'gallery', array_column( $only_image->get_data()['data']['places'], 'kind' ) );
		$this->assertSame( 'Our shop in the morning', get_post( $image )->post_excerpt );

		$this->assertSame( 200, $this->write( array( $changes[1] ), false )->get_status(), 'without the flag it writes, as before' );
		$this->assertStringContainsString( 'spam.example', get_post( $image )->post_excerpt );
	}

	public function test_a_change_still_invisible_at_write_time_is_written_with_the_flag(): void {
		$this->attachment_pages_off();
		$image   = $this->image( $this->post( 'draft' ) );
		$written = $this->write(
			array(
				array(
					'ref'    => "post:$image",
					'expect' => Sitewright_Items::read( "post:$image" )['version'],
					'action' => 'update',
					'fields' => array( 'excerpt' => 'Fresh' ),
				),
			),
			true
		);
		$this->assertSame( 200, $written->get_status(), (string) wp_json_encode( $written->get_data() ) );
		$this->assertSame( 'Fresh', get_post( $image )->post_excerpt );
	}
}
