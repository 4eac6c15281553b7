<?php
/**
 * Elementor's global colours and fonts as the design item `elementor_kit:active` (docs/page-builders.md, "Kit"):
 * read as tokens from the active kit's settings, a change sets exactly the named tokens and clears Elementor's caches
 * site-wide, undo gives the stored settings back byte for byte, and a person's save in Site Settings in between makes
 * the write or the undo refuse.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Kit items.
 */
final class ElementorKitItemsTest extends Sitewright_Test_Case {

	/**
	 * The kit post made for the test.
	 *
	 * @var int
	 */
	private int $kit = 0;

	/**
	 * A kit as Elementor makes one: an `elementor_library` post of type kit, named by `elementor_active_kit`.
	 */
	protected function setUp(): void {
		parent::setUp();
		$this->kit = (int) wp_insert_post(
			array(
				'post_type'   => 'elementor_library',
				'post_status' => 'publish',
				'post_title'  => 'Default Kit',
			)
		);
		update_post_meta( $this->kit, '_elementor_template_type', 'kit' );
		update_post_meta( $this->kit, '_elementor_edit_mode', 'builder' );
		update_post_meta( $this->kit, '_elementor_page_settings', wp_slash( $this->settings() ) );
		update_option( 'elementor_active_kit', $this->kit );
	}

	/**
	 * Removes the kit.
	 */
	protected function tearDown(): void {
		wp_delete_post( $this->kit, true );
		delete_option( 'elementor_active_kit' );
		parent::tearDown();
	}

	/**
	 * Kit settings as Elementor saves them: system and custom tokens, one font token without a family, other
	 * settings of every type (numbers, floats, nested lists, strings that need slashes).
	 *
	 * @return array<string, mixed>
	 */
	private function settings(): array {
		return array(
			'system_colors'     => array(
				array(
					'_id'   => 'primary',
					'title' => 'Primary',
					'color' => '#6EC1E4',
				),
				array(
					'_id'   => 'text',
					'title' => 'Text',
					'color' => '#7A7A7A',
				),
			),
			'custom_colors'     => array(
				array(
					'_id'   => 'c0ffee1',
					'title' => 'Crust \\ "brown"',
					'color' => 'rgba(120,80,40,0.9)',
				),
			),
			'system_typography' => array(
				array(
					'_id'                    => 'primary',
					'title'                  => 'Primary',
					'typography_typography'  => 'custom',
					'typography_font_family' => 'Roboto',
					'typography_font_weight' => '600',
				),
				array(
					'_id'                   => 'accent',
					'title'                 => 'Accent',
					'typography_typography' => 'custom',
				),
			),
			'custom_typography' => array(),
			'container_width'   => array(
				'unit'  => 'px',
				'size'  => 1140,
				'sizes' => array(),
			),
			'body_line_height'  => 1.5,
			'site_name'         => 'Bakery \\ “home”',
		);
	}

	/**
	 * Writes changes as the signed service, with design:write.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private function write( array $changes ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'design:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		return $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => $changes ) );
	}

	/**
	 * The kit settings' stored bytes.
	 */
	private function stored(): string {
		global $wpdb;
		return (string) $wpdb->get_var( $wpdb->prepare( "SELECT meta_value FROM $wpdb->postmeta WHERE post_id = %d AND meta_key = '_elementor_page_settings'", $this->kit ) ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
	}

	/**
	 * One kit change.
	 *
	 * @param string               $expect Version expected.
	 * @param array<string, mixed> $fields Fields.
	 * @return array<string, mixed>
	 */
	private function change( string $expect, array $fields ): array {
		return array(
			'ref'    => 'elementor_kit:active',
			'action' => 'update',
			'expect' => $expect,
			'fields' => $fields,
		);
	}

	public function test_the_active_kits_colours_and_fonts_read_as_tokens_with_their_names(): void {
		$item = Sitewright_Items::read( 'elementor_kit:active' );
		$this->assertTrue( $item['exists'] );
		$this->assertSame( $this->kit, $item['state']['kit'] );
		$this->assertSame(
			array(
				'primary' => '#6EC1E4',
				'text'    => '#7A7A7A',
				'c0ffee1' => 'rgba(120,80,40,0.9)',
			),
			$item['state']['colors']
		);
		$this->assertSame(
			array(
				'primary' => 'Roboto',
				'accent'  => null,
			),
			$item['state']['fonts']
		);
		$this->assertSame( 'Crust \\ "brown"', $item['state']['labels']['c0ffee1'] );
		$this->assertNull( Sitewright_Items::parse_ref( 'elementor_kit:' . $this->kit ) );

		delete_option( 'elementor_active_kit' );
		$this->assertFalse( Sitewright_Items::read( 'elementor_kit:active' )['exists'] );
	}

	public function test_a_change_sets_only_the_named_tokens_clears_elementors_caches_site_wide_and_undo_restores_the_bytes(): void {
		$page = (int) wp_insert_post( array( 'post_type' => 'page', 'post_title' => 'Uses the kit' ) );
		update_post_meta( $page, '_elementor_css', array( 'status' => 'file' ) );
		$css = wp_upload_dir()['basedir'] . '/elementor/css/post-' . $this->kit . '.css';
		wp_mkdir_p( dirname( $css ) );
		file_put_contents( $css, '.elementor-kit-' . $this->kit . '{--e-global-color-primary:#6EC1E4}' ); // phpcs:ignore WordPress.WP.AlternativeFunctions
		$bytes = $this->stored();
		$read  = Sitewright_Items::read( 'elementor_kit:active' );

		$response = $this->write(
			array(
				$this->change(
					$read['version'],
					array(
						'colors' => array( 'c0ffee1' => '#c0ffee' ),
						'fonts'  => array(
							'primary' => 'Lora',
							'accent'  => 'Inter',
						),
					)
				),
			)
		);

		$this->assertSame( 200, $response->get_status(), (string) wp_json_encode( $response->get_data() ) );
		$settings                              = get_post_meta( $this->kit, '_elementor_page_settings', true );
		$expected                              = $this->settings();
		$expected['custom_colors'][0]['color'] = '#c0ffee';
		$expected['system_typography'][0]['typography_font_family'] = 'Lora';
		$expected['system_typography'][1]['typography_font_family'] = 'Inter';
		$this->assertSame( $expected, $settings );
		$this->assertArrayNotHasKey( '_elementor_css', get_post_meta( $page ) );
		$this->assertFileDoesNotExist( $css );

		$written = $response->get_data()['items'][0];
		$undo    = $this->change(
			$written['version'],
			array(
				'colors' => $written['before']['colors'],
				'fonts'  => $written['before']['fonts'],
			)
		);
		$this->assertSame( 200, $this->write( array( $undo ) )->get_status() );
		$this->assertSame( $bytes, $this->stored() );
		$this->assertSame( $read['version'], Sitewright_Items::read( 'elementor_kit:active' )['version'] );
		wp_delete_post( $page, true );
	}

	public function test_a_save_in_site_settings_since_the_read_makes_the_write_and_the_undo_refuse(): void {
		$read     = Sitewright_Items::read( 'elementor_kit:active' );
		$settings = $this->settings();
		// A person changes the content width in Elementor's Site Settings after our read.
		$settings['container_width']['size'] = 1200;
		update_post_meta( $this->kit, '_elementor_page_settings', wp_slash( $settings ) );
		$theirs = $this->stored();

		$refused = $this->write( array( $this->change( $read['version'], array( 'colors' => array( 'primary' => '#000000' ) ) ) ) );
		$this->assertSame( 409, $refused->get_status() );
		$this->assertSame( 'sitewright_stale', $refused->get_data()['code'] );
		$this->assertSame( $theirs, $this->stored() );

		$again   = Sitewright_Items::read( 'elementor_kit:active' );
		$written = $this->write( array( $this->change( $again['version'], array( 'colors' => array( 'primary' => '#000000' ) ) ) ) )->get_data()['items'][0];
		// The person then picks another primary colour in Site Settings.
		$settings['system_colors'][0]['color'] = '#123456';
		update_post_meta( $this->kit, '_elementor_page_settings', wp_slash( $settings ) );
		$undo = $this->write( array( $this->change( $written['version'], array( 'colors' => $written['before']['colors'] ) ) ) );
		$this->assertSame( 409, $undo->get_status() );
		$this->assertSame( 'elementor_kit:active', $undo->get_data()['data']['items'][0]['ref'] );
		$this->assertSame( '#123456', get_post_meta( $this->kit, '_elementor_page_settings', true )['system_colors'][0]['color'] );
	}

	public function test_unknown_tokens_and_values_elementor_would_not_take_are_refused(): void {
		$read = Sitewright_Items::read( 'elementor_kit:active' );
		foreach (
			array(
				array( 'colors' => array( 'nope' => '#ffffff' ) ),
				array( 'colors' => array( 'primary' => 'red; background:url(x)' ) ),
				array( 'fonts' => array( 'primary' => 'Lora</style>' ) ),
				array( 'colors' => array( '#ffffff' ) ),
				array(),
			) as $fields
		) {
			$response = $this->write( array( $this->change( $read['version'], $fields ) ) );
			$this->assertSame( 400, $response->get_status(), (string) wp_json_encode( $fields ) );
		}
		$this->assertSame( $this->settings(), get_post_meta( $this->kit, '_elementor_page_settings', true ) );
	}

	public function test_a_kit_change_needs_design_write(): void {
		$read  = Sitewright_Items::read( 'elementor_kit:active' );
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read', 'content:write' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => 'POST', 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
		$response = $this->dispatch( 'POST', '/sitewright/v1/items', array( 'changes' => array( $this->change( (string) $read['version'], array( 'colors' => array( 'primary' => '#000000' ) ) ) ) ) );
		$this->assertSame( 403, $response->get_status() );
		$this->assertSame( '#6EC1E4', get_post_meta( $this->kit, '_elementor_page_settings', true )['system_colors'][0]['color'] );
	}
}
