<?php
/**
 * Elementor pages as builder items (`elementor:<id>`, docs/page-builders.md): read exactly as stored, written exactly
 * as planned (slashes, escapes and every other meta kept), refused over a person's newer save in Elementor, undone to
 * the same bytes, and the page's Elementor caches cleared after each write so the public page shows it.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Builder items.
 */
final class ElementorItemsTest extends Sitewright_Test_Case {

	/**
	 * Pages made by a test, deleted after it (other tests detect the site's page builder from its pages).
	 *
	 * @var array<int, int>
	 */
	private array $pages = array();

	/**
	 * Deletes the test's pages.
	 */
	protected function tearDown(): void {
		foreach ( $this->pages as $id ) {
			wp_delete_post( $id, true );
		}
		$this->pages = array();
		parent::tearDown();
	}

	/**
	 * A page written as Elementor writes one: the JSON text of its elements, slashed, in `_elementor_data`.
	 *
	 * @param array<int, mixed> $elements Elements.
	 */
	private function elementor_page( array $elements ): int {
		$id            = (int) wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'publish',
				'post_title'  => 'Builder page',
			)
		);
		$this->pages[] = $id;
		update_post_meta( $id, '_elementor_edit_mode', 'builder' );
		update_post_meta( $id, '_elementor_template_type', 'wp-page' );
		update_post_meta( $id, '_elementor_version', '4.2.2' );
		update_post_meta( $id, '_elementor_page_settings', array( 'hide_title' => 'yes' ) );
		update_post_meta( $id, '_elementor_data', wp_slash( (string) wp_json_encode( $elements ) ) );
		return $id;
	}

	/**
	 * A hero container with a heading and a button whose texts need escaping.
	 *
	 * @return array<int, mixed>
	 */
	private function hero(): array {
		return array(
			array(
				'id'       => 'a1b2c3d',
				'elType'   => 'container',
				'settings' => array( '_title' => 'Hero' ),
				'elements' => array(
					array(
						'id'         => 'h1h1h1h',
						'elType'     => 'widget',
						'widgetType' => 'heading',
						'settings'   => array( 'title' => 'Café / “Home” \\ <b>bold</b>' ),
						'elements'   => array(),
					),
					array(
						'id'         => 'b1b1b1b',
						'elType'     => 'widget',
						'widgetType' => 'button',
						'settings'   => array(
							'text' => 'Get in touch',
							'link' => array( 'url' => '/about' ),
						),
						'elements'   => array(),
					),
				),
				'isInner'  => false,
			),
		);
	}

	/**
	 * Writes one batch as the agent.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private function write( array $changes ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		return $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => $changes ) );
	}

	/**
	 * Every meta of a post, as stored.
	 *
	 * @param int $id Post id.
	 * @return array<string, mixed>
	 */
	private function meta( int $id ): array {
		wp_cache_delete( $id, 'post_meta' );
		return get_post_meta( $id );
	}

	public function test_an_elementor_page_reads_as_its_stored_json_with_elementors_metadata(): void {
		$id   = $this->elementor_page( $this->hero() );
		$item = Sitewright_Items::read( 'elementor:' . $id );
		$this->assertTrue( $item['exists'] );
		$this->assertSame( 'elementor', $item['kind'] );
		$this->assertSame( get_post_meta( $id, '_elementor_data', true ), $item['state']['data'] );
		$this->assertStringContainsString( 'Caf\u00e9 \/ \u201cHome\u201d \\\\ <b>', $item['state']['data'] );
		$this->assertSame( '4.2.2', $item['state']['elementorVersion'] );
		$this->assertSame( array( 'hide_title' => 'yes' ), $item['state']['pageSettings'] );

		$plain         = (int) wp_insert_post(
			array(
				'post_type'  => 'page',
				'post_title' => 'Plain',
			)
		);
		$this->pages[] = $plain;
		$this->assertFalse( Sitewright_Items::read( 'elementor:' . $plain )['exists'] );
		$this->assertNull( Sitewright_Items::parse_ref( 'elementor:home' ) );
	}

	public function test_a_write_stores_exactly_the_planned_json_and_keeps_every_other_meta(): void {
		$id     = $this->elementor_page( $this->hero() );
		$before = Sitewright_Items::read( 'elementor:' . $id );
		$meta   = $this->meta( $id );
		$data   = str_replace( '"Get in touch"', '"Write to us \u00e9 \/ \\\\ \"now\""', (string) $before['state']['data'] );

		$response = $this->write(
			array(
				array(
					'ref'    => 'elementor:' . $id,
					'action' => 'update',
					'expect' => $before['version'],
					'fields' => array( 'data' => $data ),
				),
			)
		);

		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		$this->assertSame( $data, get_post_meta( $id, '_elementor_data', true ) );
		$after = $this->meta( $id );
		$this->assertSame( array_diff_key( $meta, array( '_elementor_data' => 1 ) ), array_diff_key( $after, array( '_elementor_data' => 1 ) ) );
		$this->assertSame( 'Write to us é / \\ "now"', json_decode( $data, true )[0]['elements'][1]['settings']['text'] );
	}

	public function test_a_write_over_a_newer_save_in_elementor_is_refused_and_writes_nothing(): void {
		$id   = $this->elementor_page( $this->hero() );
		$read = Sitewright_Items::read( 'elementor:' . $id );
		$mine = str_replace( 'Get in touch', 'Ours', (string) $read['state']['data'] );
		// A person saves the page in Elementor after our read.
		$theirs = str_replace( 'Get in touch', 'Theirs', (string) $read['state']['data'] );
		update_post_meta( $id, '_elementor_data', wp_slash( $theirs ) );

		$response = $this->write(
			array(
				array(
					'ref'    => 'elementor:' . $id,
					'action' => 'update',
					'expect' => $read['version'],
					'fields' => array( 'data' => $mine ),
				),
			)
		);

		$this->assertSame( 409, $response->get_status() );
		$this->assertSame( 'sitewright_stale', $response->get_data()['code'] );
		$this->assertSame( $theirs, get_post_meta( $id, '_elementor_data', true ) );
	}

	public function test_a_write_clears_the_pages_elementor_caches_so_visitors_see_it(): void {
		$id = $this->elementor_page( $this->hero() );
		update_post_meta( $id, '_elementor_css', array( 'status' => 'file' ) );
		update_post_meta( $id, '_elementor_element_cache', '{"timeout":9999999999,"value":"old"}' );
		update_post_meta( $id, '_elementor_page_assets', array( 'styles' => array( 'widget-heading' ) ) );
		$css = wp_upload_dir()['basedir'] . '/elementor/css/post-' . $id . '.css';
		wp_mkdir_p( dirname( $css ) );
		file_put_contents( $css, '.elementor-' . $id . '{}' ); // phpcs:ignore WordPress.WP.AlternativeFunctions
		$read = Sitewright_Items::read( 'elementor:' . $id );

		$response = $this->write(
			array(
				array(
					'ref'    => 'elementor:' . $id,
					'action' => 'update',
					'expect' => $read['version'],
					'fields' => array( 'data' => str_replace( 'Get in touch', 'Book now', (string) $read['state']['data'] ) ),
				),
			)
		);

		$this->assertSame( 200, $response->get_status() );
		$meta = $this->meta( $id );
		foreach ( array( '_elementor_css', '_elementor_element_cache', '_elementor_page_assets' ) as $key ) {
			$this->assertArrayNotHasKey( $key, $meta );
		}
		$this->assertFileDoesNotExist( $css );
		$this->assertNotSame( $read['version'], Sitewright_Items::read( 'elementor:' . $id )['version'] );
	}

	public function test_undo_writes_the_recorded_bytes_back_and_refuses_over_a_persons_edit(): void {
		$id       = $this->elementor_page( $this->hero() );
		$original = Sitewright_Items::read( 'elementor:' . $id );
		$written  = $this->write(
			array(
				array(
					'ref'    => 'elementor:' . $id,
					'action' => 'update',
					'expect' => $original['version'],
					'fields' => array( 'data' => str_replace( 'Get in touch', 'Book now', (string) $original['state']['data'] ) ),
				),
			)
		)->get_data()['items'][0];
		$undo     = array(
			'ref'    => 'elementor:' . $id,
			'action' => 'update',
			'expect' => $written['version'],
			'fields' => array( 'data' => $written['before']['data'] ),
		);

		$this->assertSame( 200, $this->write( array( $undo ) )->get_status() );
		$this->assertSame( $original['state']['data'], get_post_meta( $id, '_elementor_data', true ) );
		$this->assertSame( $original['version'], Sitewright_Items::read( 'elementor:' . $id )['version'] );

		$again = Sitewright_Items::read( 'elementor:' . $id );
		$this->write(
			array(
				array(
					'ref'    => 'elementor:' . $id,
					'action' => 'update',
					'expect' => $again['version'],
					'fields' => array( 'data' => str_replace( 'Get in touch', 'Book now', (string) $again['state']['data'] ) ),
				),
			)
		);
		$edited = Sitewright_Items::read( 'elementor:' . $id );
		update_post_meta( $id, '_elementor_version', '4.2.3' ); // A person saved it in a newer Elementor.
		$refused = $this->write( array( array_merge( $undo, array( 'expect' => $edited['version'] ) ) ) );
		$this->assertSame( 409, $refused->get_status() );
		$this->assertSame( 'elementor:' . $id, $refused->get_data()['data']['items'][0]['ref'] );
	}

	public function test_data_that_is_not_a_list_of_elements_is_refused(): void {
		$id   = $this->elementor_page( $this->hero() );
		$read = Sitewright_Items::read( 'elementor:' . $id );
		foreach ( array( array( 'data' => '{"id":"x"' ), array( 'data' => '"text"' ), array( 'data' => 3 ), array( 'content' => 'x' ) ) as $fields ) {
			$response = $this->write(
				array(
					array(
						'ref'    => 'elementor:' . $id,
						'action' => 'update',
						'expect' => $read['version'],
						'fields' => $fields,
					),
				)
			);
			$this->assertSame( 400, $response->get_status(), (string) wp_json_encode( $fields ) );
		}
		$this->assertSame( $read['state']['data'], get_post_meta( $id, '_elementor_data', true ) );
	}
}
