<?php
/**
 * The v1.2 item kinds through /sitewright/v1/items: categories and tags (`term:<id>`, a post's `categories` and
 * `tags`), an image's alt text, and the SEO fields of each supported SEO plugin in that plugin's own storage. Each
 * is versioned, written only over the version read, refused over a newer edit, and undone to the same bytes.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * New item kinds.
 */
final class ReachItemsTest extends Sitewright_Test_Case {

	/**
	 * The SEO plugin the test pretends is active (the filter the plugin offers for sites that load one differently).
	 *
	 * @var array{id: string, version: string}|null
	 */
	private ?array $seo = null;

	/**
	 * Installs the SEO filter.
	 */
	protected function setUp(): void {
		parent::setUp();
		$this->seo = null;
		add_filter( 'sitewright_seo_plugin', array( $this, 'seo_plugin' ) );
	}

	/**
	 * Removes it.
	 */
	protected function tearDown(): void {
		remove_filter( 'sitewright_seo_plugin', array( $this, 'seo_plugin' ) );
		parent::tearDown();
	}

	/**
	 * The filter.
	 *
	 * @param mixed $found What was detected.
	 * @return mixed
	 */
	public function seo_plugin( $found ) {
		return $this->seo ?? $found;
	}

	/**
	 * Reads items.
	 *
	 * @param array<int, string> $refs Refs.
	 * @return array<int, array<string, mixed>>
	 */
	private function read( array $refs ): array {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'GET', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => implode( ',', $refs ) ) );
		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		return $response->get_data()['items'];
	}

	/**
	 * Writes a batch.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private function write( array $changes ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		return $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => $changes ) );
	}

	/**
	 * One update of one item over its current version; asserts it was written and answers the written item.
	 *
	 * @param string               $ref    Ref.
	 * @param array<string, mixed> $fields Fields.
	 * @return array<string, mixed>
	 */
	private function update( string $ref, array $fields ): array {
		$current  = $this->read( array( $ref ) )[0];
		$response = $this->write(
			array(
				array(
					'ref'    => $ref,
					'expect' => $current['version'],
					'action' => 'update',
					'fields' => $fields,
				),
			)
		);
		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		return $response->get_data()['items'][0];
	}

	/**
	 * A published post.
	 */
	private function post(): int {
		return (int) wp_insert_post(
			array(
				'post_type'    => 'post',
				'post_status'  => 'publish',
				'post_title'   => 'Opening hours',
				'post_content' => 'We open at nine.',
			)
		);
	}

	public function test_a_term_is_created_renamed_and_deleted_as_an_item_and_reads_back_as_planned(): void {
		$created = $this->write(
			array(
				array(
					'ref'    => 'term:new',
					'expect' => null,
					'action' => 'create',
					'fields' => array(
						'taxonomy'    => 'category',
						'name'        => 'News',
						'description' => 'What is new.',
					),
				),
			)
		);
		$this->assertSame( 200, $created->get_status(), (string) wp_json_encode( $created->get_data() ) );
		$item = $created->get_data()['items'][0];
		$this->assertMatchesRegularExpression( '/^term:\d+$/', $item['ref'] );
		$this->assertSame( 'news', $item['after']['slug'] );
		$this->assertSame( '', $item['after']['parent'] );

		$renamed = $this->update( $item['ref'], array( 'name' => 'Latest news' ) );
		$this->assertSame( 'News', $renamed['before']['name'] );
		$this->assertSame( 'Latest news', get_term( (int) substr( $item['ref'], 5 ) )->name );

		$read = $this->read( array( $item['ref'] ) )[0];
		$this->assertSame( 0, $read['info']['publishedUses'] );
		$deleted = $this->write(
			array(
				array(
					'ref'    => $item['ref'],
					'expect' => $read['version'],
					'action' => 'delete',
				),
			)
		);
		$this->assertSame( 200, $deleted->get_status() );
		$this->assertNull( get_term( (int) substr( $item['ref'], 5 ) ) );
	}

	public function test_a_posts_categories_and_tags_are_state_and_written_by_slug(): void {
		$id = $this->post();
		wp_insert_term( 'News', 'category' );
		wp_insert_term( 'Bakery', 'post_tag' );
		$before = $this->read( array( "post:$id" ) )[0];
		$this->assertSame( array( 'uncategorized' ), $before['state']['categories'] );
		$this->assertSame( array(), $before['state']['tags'] );

		$written = $this->update(
			"post:$id",
			array(
				'categories' => array( 'news' ),
				'tags'       => array( 'bakery' ),
			)
		);
		$this->assertSame( array( 'news' ), $written['after']['categories'] );
		$this->assertSame( array( 'bakery' ), wp_get_object_terms( $id, 'post_tag', array( 'fields' => 'slugs' ) ) );
		$this->assertNotSame( $before['version'], $written['version'] );

		// A person's change of the terms makes the version stale: nothing is written over it.
		wp_set_object_terms( $id, array( 'uncategorized' ), 'category' );
		$stale = $this->write(
			array(
				array(
					'ref'    => "post:$id",
					'expect' => $written['version'],
					'action' => 'update',
					'fields' => array( 'tags' => array() ),
				),
			)
		);
		$this->assertSame( 409, $stale->get_status() );
		$this->assertSame( array( 'bakery' ), wp_get_object_terms( $id, 'post_tag', array( 'fields' => 'slugs' ) ) );

		// A slug that names no term is refused: the term is created first, as its own item.
		$unknown = $this->write(
			array(
				array(
					'ref'    => "post:$id",
					'expect' => $this->read( array( "post:$id" ) )[0]['version'],
					'action' => 'update',
					'fields' => array( 'categories' => array( 'no-such-category' ) ),
				),
			)
		);
		$this->assertSame( 400, $unknown->get_status() );
		$this->assertStringContainsString( 'create it first', $unknown->get_data()['message'] );
	}

	public function test_a_version_recorded_before_terms_were_state_still_matches_while_the_rest_is_unchanged(): void {
		$id    = $this->post();
		$state = $this->read( array( "post:$id" ) )[0]['state'];
		// What the plugin before v1.2 recorded: the version of the state without the added fields.
		$earlier = Sitewright_Items::version( array_diff_key( $state, array_flip( Sitewright_Items::ADDED_POST_FIELDS ) ) );
		$this->assertTrue( Sitewright_Items::matches( $state, (string) $earlier ) );
		$response = $this->write(
			array(
				array(
					'ref'    => "post:$id",
					'expect' => $earlier,
					'action' => 'update',
					'fields' => array( 'title' => 'Hours' ),
				),
			)
		);
		$this->assertSame( 200, $response->get_status() );
		// Once the rest of the state changed, the earlier version no longer matches.
		$this->assertFalse( Sitewright_Items::matches( $this->read( array( "post:$id" ) )[0]['state'], (string) $earlier ) );
	}

	public function test_an_images_alt_text_is_state_written_as_plain_text_only(): void {
		$image = (int) wp_insert_attachment(
			array(
				'post_title'     => 'Storefront',
				'post_mime_type' => 'image/jpeg',
				'post_status'    => 'inherit',
			)
		);
		$this->assertSame( '', $this->read( array( "post:$image" ) )[0]['state']['alt'] );
		$written = $this->update(
			"post:$image",
			array(
				'alt'     => 'The bakery’s blue door at dawn',
				'excerpt' => 'Our shop on Main Street',
			)
		);
		$this->assertSame( 'The bakery’s blue door at dawn', get_post_meta( $image, '_wp_attachment_image_alt', true ) );
		$this->assertSame( '', $written['before']['alt'] );
		$markup = $this->write(
			array(
				array(
					'ref'    => "post:$image",
					'expect' => $written['version'],
					'action' => 'update',
					'fields' => array( 'alt' => '<script>x</script>' ),
				),
			)
		);
		$this->assertSame( 400, $markup->get_status() );
		$this->assertSame( 'The bakery’s blue door at dawn', get_post_meta( $image, '_wp_attachment_image_alt', true ) );
	}

	public function test_an_image_counts_as_visible_once_published_content_shows_it(): void {
		$image = (int) wp_insert_attachment(
			array(
				'post_title'     => 'Door',
				'post_mime_type' => 'image/jpeg',
				'post_status'    => 'inherit',
			)
		);
		$this->assertSame( 0, $this->read( array( "post:$image" ) )[0]['info']['publishedUses'] );
		$draft = (int) wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'draft',
				'post_content' => '<!-- wp:image {"id":' . $image . '} --><figure class="wp-block-image"><img class="wp-image-' . $image . '"/></figure><!-- /wp:image -->',
			)
		);
		$this->assertSame( 0, $this->read( array( "post:$image" ) )[0]['info']['publishedUses'] );
		wp_update_post(
			array(
				'ID'          => $draft,
				'post_status' => 'publish',
			)
		);
		update_post_meta( $this->post(), '_thumbnail_id', (string) $image ); // set_post_thumbnail wants a real image file.
		$this->assertSame( 2, $this->read( array( "post:$image" ) )[0]['info']['publishedUses'] );
	}

	public function test_without_an_seo_plugin_seo_items_do_not_exist_and_writes_say_why(): void {
		$id = $this->post();
		$this->assertNull( Sitewright_Site_Info::collect()['seo'] );
		$this->assertFalse( $this->read( array( "seo:$id" ) )[0]['exists'] );
		$response = $this->write(
			array(
				array(
					'ref'    => "seo:$id",
					'expect' => 'x',
					'action' => 'update',
					'fields' => array( 'title' => 'Hours | Bakery' ),
				),
			)
		);
		$this->assertSame( 400, $response->get_status() );
		$this->assertStringContainsString( 'No SEO plugin', $response->get_data()['message'] );
	}

	/**
	 * Each supported plugin, with the raw meta it keeps for the fields we write (its own format).
	 *
	 * @return array<string, array{0: string, 1: array<string, mixed>}>
	 */
	public static function seo_plugins(): array {
		return array(
			'Yoast SEO'         => array(
				'yoast',
				array(
					'_yoast_wpseo_title'               => 'Hours | Bakery',
					'_yoast_wpseo_metadesc'            => 'When we open.',
					'_yoast_wpseo_focuskw'             => 'bakery hours',
					'_yoast_wpseo_canonical'           => 'https://example.com/hours/',
					'_yoast_wpseo_meta-robots-noindex' => '1',
				),
			),
			'Rank Math'         => array(
				'rank-math',
				array(
					'rank_math_title'         => 'Hours | Bakery',
					'rank_math_description'   => 'When we open.',
					'rank_math_focus_keyword' => 'bakery hours',
					'rank_math_canonical_url' => 'https://example.com/hours/',
					'rank_math_robots'        => array( 'noindex', 'nofollow' ),
				),
			),
			'SEOPress'          => array(
				'seopress',
				array(
					'_seopress_titles_title'       => 'Hours | Bakery',
					'_seopress_titles_desc'        => 'When we open.',
					'_seopress_analysis_target_kw' => 'bakery hours',
					'_seopress_robots_canonical'   => 'https://example.com/hours/',
					'_seopress_robots_index'       => 'yes',
				),
			),
			'The SEO Framework' => array(
				'seo-framework',
				array(
					'_genesis_title'         => 'Hours | Bakery',
					'_genesis_description'   => 'When we open.',
					'_genesis_canonical_uri' => 'https://example.com/hours/',
					'_genesis_noindex'       => '1',
				),
			),
		);
	}

	/**
	 * The plugin's own storage is what we write, and undo (the before values written back) leaves no trace.
	 *
	 * @dataProvider seo_plugins
	 * @param string               $plugin Plugin id.
	 * @param array<string, mixed> $meta   Raw meta the plugin keeps after the write.
	 */
	public function test_seo_fields_are_written_in_the_plugins_own_storage_and_undone_without_a_trace( string $plugin, array $meta ): void {
		$this->seo = array(
			'id'      => $plugin,
			'version' => '1.0',
		);
		$id        = $this->post();
		if ( 'rank-math' === $plugin ) {
			update_post_meta( $id, 'rank_math_robots', array( 'nofollow' ) ); // The site's own robots tokens stay.
		}
		$this->assertSame( $plugin, Sitewright_Site_Info::collect()['seo']['plugin'] );
		$before = $this->read( array( "seo:$id" ) )[0];
		$this->assertTrue( $before['exists'] );
		$fields = array(
			'title'       => 'Hours | Bakery',
			'description' => 'When we open.',
			'canonical'   => 'https://example.com/hours/',
			'noindex'     => true,
		);
		if ( 'seo-framework' !== $plugin ) {
			$fields['focusKeyword'] = 'bakery hours';
		}
		$written = $this->update( "seo:$id", $fields );
		foreach ( $meta as $key => $value ) {
			$this->assertSame( $value, get_post_meta( $id, $key, true ), $key );
		}
		$this->assertSame( 'Hours | Bakery', $written['after']['title'] );

		$undo     = array_intersect_key( $before['state'], $fields );
		$response = $this->write(
			array(
				array(
					'ref'    => "seo:$id",
					'expect' => $written['version'],
					'action' => 'update',
					'fields' => $undo,
				),
			)
		);
		$this->assertSame( 200, $response->get_status() );
		$this->assertSame( $before['version'], $response->get_data()['items'][0]['version'] );
		foreach ( array_keys( $meta ) as $key ) {
			$expected = 'rank_math_robots' === $key ? array( 'nofollow' ) : '';
			$this->assertSame( $expected, get_post_meta( $id, $key, true ), $key );
		}
	}

	public function test_seo_text_is_plain_and_a_field_the_plugin_lacks_is_refused(): void {
		$this->seo = array(
			'id'      => 'seo-framework',
			'version' => '5.1',
		);
		$id        = $this->post();
		$version   = $this->read( array( "seo:$id" ) )[0]['version'];
		foreach ( array( array( 'title' => '<b>Hours</b>' ), array( 'focusKeyword' => 'hours' ), array( 'canonical' => 'javascript:alert(1)' ) ) as $fields ) {
			$response = $this->write(
				array(
					array(
						'ref'    => "seo:$id",
						'expect' => $version,
						'action' => 'update',
						'fields' => $fields,
					),
				)
			);
			$this->assertSame( 400, $response->get_status(), (string) wp_json_encode( $fields ) );
		}
		$this->assertSame( '', get_post_meta( $id, '_genesis_title', true ) );
	}

	public function test_all_in_one_seo_is_reported_but_not_written(): void {
		$this->seo = array(
			'id'      => 'aioseo',
			'version' => '4.7',
		);
		$info      = Sitewright_Site_Info::collect()['seo'];
		$this->assertSame( 'All in One SEO', $info['name'] );
		$this->assertFalse( $info['writable'] );
		$this->assertFalse( $this->read( array( 'seo:' . $this->post() ) )[0]['exists'] );
	}
}
