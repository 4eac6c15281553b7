<?php
/**
 * Write = plan (Sitewright_Exact_Write): an agent's one-paragraph edit leaves an administrator's iframe, form and
 * script byte for byte; undo writes them back; new markup the agent may not write is refused with
 * `409 sitewright_filtered` and nothing changes; a hook that changes the write rolls the batch back.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Exactness of post writes through /sitewright/v1/items.
 */
final class ExactnessTest extends Sitewright_Test_Case {

	private const MAP  = '<!-- wp:html --><iframe src="https://maps.example.com/embed?pb=1" width="600" height="450"></iframe><!-- /wp:html -->';
	private const FORM = '<!-- wp:html --><form action="https://forms.example.com/subscribe" method="post"><input type="email" name="email"><button>Join</button></form><!-- /wp:html -->';
	private const JS   = '<!-- wp:html --><script>window.dataLayer = window.dataLayer || []; if (1 < 2 && 3 > 2) { dataLayer.push({x: 1}); }</script><!-- /wp:html -->';

	/**
	 * A published page an administrator wrote (with unfiltered_html, as on any single site); or a post in `$status`.
	 *
	 * @param string $content Content.
	 * @param string $status  Status (a post rather than a page when not 'publish').
	 */
	private function admin_page( string $content, string $status = 'publish' ): int {
		wp_set_current_user( (int) get_user_by( 'login', 'admin' )->ID );
		$id = (int) wp_insert_post(
			wp_slash(
				array(
					'post_type'    => 'publish' === $status ? 'page' : 'post',
					'post_status'  => $status,
					'post_title'   => 'Contact',
					'post_content' => $content,
				)
			)
		);
		wp_set_current_user( 0 );
		return $id;
	}

	/**
	 * The item as the route reads it.
	 *
	 * @param int $id Post id.
	 * @return array<string, mixed>
	 */
	private function item( int $id ): array {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => "post:$id" ) );
		Sitewright_Auth::reset();
		wp_set_current_user( 0 );
		return $response->get_data()['items'][0];
	}

	/**
	 * Writes fields as the agent (content:write), expecting the current version.
	 *
	 * @param int                  $id     Post id.
	 * @param array<string, mixed> $fields Fields.
	 */
	private function agent_write( int $id, array $fields ): WP_REST_Response {
		$expect = $this->item( $id )['version'];
		$creds  = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$this->assertFalse( current_user_can( 'unfiltered_html' ), 'the agent user has no unfiltered_html' );
		$response = $this->dispatch(
			'POST',
			'/sitewright/v1/items',
			array(
				'changes' => array(
					array(
						'ref'    => "post:$id",
						'expect' => $expect,
						'action' => 'update',
						'fields' => $fields,
					),
				),
			)
		);
		Sitewright_Auth::reset();
		wp_set_current_user( 0 );
		return $response;
	}

	/**
	 * The stored content.
	 *
	 * @param int $id Post id.
	 */
	private function content( int $id ): string {
		clean_post_cache( $id );
		return (string) get_post( $id )->post_content;
	}

	public function test_a_one_paragraph_edit_keeps_the_administrators_iframe_form_and_script_and_undo_restores_every_byte(): void {
		$original = '<!-- wp:paragraph --><p>Call us.</p><!-- /wp:paragraph -->' . self::MAP . self::FORM . self::JS;
		$id       = $this->admin_page( $original );
		$this->assertSame( $original, $this->content( $id ) );
		$edited = str_replace( 'Call us.', 'Call us on Monday &amp; Tuesday.', $original );

		$this->assertSame( 200, $this->agent_write( $id, array( 'content' => $edited ) )->get_status() );
		$this->assertSame( $edited, $this->content( $id ) );

		// Undo: the recorded before-state, written back as the agent user, byte for byte.
		$this->assertSame( 200, $this->agent_write( $id, array( 'content' => $original ) )->get_status() );
		$this->assertSame( $original, $this->content( $id ) );
		wp_delete_post( $id, true );
	}

	public function test_new_markup_the_agent_may_not_write_is_refused_by_name_and_nothing_changes(): void {
		$original = '<!-- wp:paragraph --><p>Hello.</p><!-- /wp:paragraph -->';
		$id       = $this->admin_page( $original );
		foreach (
			array(
				'iframe'  => $original . self::MAP,
				'onclick' => '<!-- wp:paragraph --><p><a href="https://example.com" onclick="steal()">Hello.</a></p><!-- /wp:paragraph -->',
				'script'  => str_replace( 'Hello.', 'Hello.<script>alert(1)</script>', $original ),
			) as $what => $content
		) {
			$response = $this->agent_write( $id, array( 'content' => $content ) );
			$this->assertSame( 409, $response->get_status(), $what );
			$data = $response->get_data();
			$this->assertSame( 'sitewright_filtered', $data['code'], $what );
			$this->assertStringContainsString( $what, $data['data']['lost'][0]['lost'], $what );
			$this->assertSame( $original, $this->content( $id ), $what );
		}
		wp_delete_post( $id, true );
	}

	public function test_an_edit_inside_an_administrators_script_is_refused_as_a_change_of_the_whole_script(): void {
		$original = self::JS;
		$id       = $this->admin_page( $original );
		$response = $this->agent_write( $id, array( 'content' => str_replace( 'x: 1', 'x: 2', $original ) ) );
		$this->assertSame( 409, $response->get_status() );
		$this->assertSame( $original, $this->content( $id ) );
		wp_delete_post( $id, true );
	}

	public function test_the_agent_cannot_smuggle_markup_through_an_undo_shaped_write_of_a_value_the_site_never_held(): void {
		$id       = $this->admin_page( '<!-- wp:paragraph --><p>Hi.</p><!-- /wp:paragraph -->' );
		$response = $this->agent_write( $id, array( 'content' => self::JS ) );
		$this->assertSame( 409, $response->get_status() );
		$this->assertStringNotContainsString( '<script', $this->content( $id ) );
		wp_delete_post( $id, true );
	}

	public function test_a_save_post_hook_that_changes_the_content_rolls_the_write_back_and_names_the_field(): void {
		$id   = $this->admin_page( '<!-- wp:paragraph --><p>Hello.</p><!-- /wp:paragraph -->' );
		$hook = static function ( array $data ): array {
			$data['post_content'] = str_replace( 'Goodbye', 'Farewell', $data['post_content'] );
			return $data;
		};
		add_filter( 'wp_insert_post_data', $hook );
		try {
			$response = $this->agent_write( $id, array( 'content' => '<!-- wp:paragraph --><p>Goodbye.</p><!-- /wp:paragraph -->' ) );
		} finally {
			remove_filter( 'wp_insert_post_data', $hook );
		}
		$this->assertSame( 409, $response->get_status() );
		$data = $response->get_data();
		$this->assertSame( 'sitewright_filtered', $data['code'] );
		$this->assertSame( 'content', $data['data']['lost'][0]['field'] );
		$this->assertStringContainsString( 'Farewell', $data['data']['lost'][0]['lost'] );
		$this->assertSame( '<!-- wp:paragraph --><p>Hello.</p><!-- /wp:paragraph -->', $this->content( $id ) );
		wp_delete_post( $id, true );
	}

	public function test_a_slug_the_site_would_change_to_keep_it_unique_is_refused(): void {
		$first    = $this->admin_page( 'One' );
		$second   = $this->admin_page( 'Two' );
		$taken    = (string) get_post( $first )->post_name;
		$before   = (string) get_post( $second )->post_name;
		$response = $this->agent_write( $second, array( 'slug' => $taken ) );
		$this->assertSame( 409, $response->get_status() );
		$this->assertSame( 'slug', $response->get_data()['data']['lost'][0]['field'] );
		clean_post_cache( $second );
		$this->assertSame( $before, (string) get_post( $second )->post_name );
		wp_delete_post( $first, true );
		wp_delete_post( $second, true );
	}

	/**
	 * A draft that never had a date of its own ("publish immediately": post_date_gmt 0000-00-00 00:00:00), whose local
	 * date is an old one, so that "now" cannot pass for it.
	 */
	private function floating_draft(): int {
		global $wpdb;
		$id = $this->admin_page( '<!-- wp:paragraph --><p>Soup.</p><!-- /wp:paragraph -->', 'draft' );
		$wpdb->update( $wpdb->posts, array( 'post_date' => '2025-03-04 05:06:07' ), array( 'ID' => $id ) );
		clean_post_cache( $id );
		$this->assertSame( '0000-00-00 00:00:00', get_post( $id )->post_date_gmt );
		return $id;
	}

	public function test_an_edit_of_a_floating_draft_keeps_its_date_and_leaves_it_floating(): void {
		$id = $this->floating_draft();
		$this->assertSame( 200, $this->agent_write( $id, array( 'title' => 'Winter hours' ) )->get_status() );
		clean_post_cache( $id );
		$post = get_post( $id );
		$this->assertSame( 'Winter hours', $post->post_title );
		$this->assertSame( 'draft', $post->post_status );
		// Without the plugin's care WordPress dates it "now" on this save: a change the owner's card never showed.
		$this->assertSame( '2025-03-04 05:06:07', $post->post_date );
		$this->assertSame( '0000-00-00 00:00:00', $post->post_date_gmt );

		// Sent for review (still floating): the same.
		$this->assertSame( 200, $this->agent_write( $id, array( 'status' => 'pending' ) )->get_status() );
		clean_post_cache( $id );
		$this->assertSame( '2025-03-04 05:06:07', get_post( $id )->post_date );
		$this->assertSame( '0000-00-00 00:00:00', get_post( $id )->post_date_gmt );
		wp_delete_post( $id, true );
	}

	public function test_publishing_a_floating_draft_dates_it_at_its_publication_not_at_the_drafts_date(): void {
		$id     = $this->floating_draft();
		$before = time();
		$this->assertSame( 200, $this->agent_write( $id, array( 'status' => 'publish' ) )->get_status() );
		clean_post_cache( $id );
		$post = get_post( $id );
		$this->assertSame( 'publish', $post->post_status );
		$this->assertNotSame( '0000-00-00 00:00:00', $post->post_date_gmt );
		$published = (int) strtotime( $post->post_date_gmt . ' UTC' );
		$this->assertGreaterThanOrEqual( $before - 1, $published, 'dated at its publication' );
		$this->assertLessThanOrEqual( time() + 1, $published );
		wp_delete_post( $id, true );
	}

	public function test_a_planned_date_on_a_floating_draft_is_written_as_planned(): void {
		$id = $this->floating_draft();
		$this->assertSame( 200, $this->agent_write( $id, array( 'date_local' => '2025-09-10 11:12:13' ) )->get_status() );
		clean_post_cache( $id );
		$this->assertSame( '2025-09-10 11:12:13', get_post( $id )->post_date );
		$this->assertSame( '0000-00-00 00:00:00', get_post( $id )->post_date_gmt );
		wp_delete_post( $id, true );
	}
}
