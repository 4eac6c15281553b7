<?php
/**
 * The plugin agrees with test/vectors/vocabulary.json, which the app's tests load too (lib/vocabulary.test.ts).
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * One vocabulary for PHP and TypeScript.
 */
final class VocabularyTest extends Sitewright_Test_Case {

	/**
	 * The shared file.
	 *
	 * @return array<string, mixed>
	 */
	private function vocabulary(): array {
		$data = json_decode( (string) file_get_contents( SITEWRIGHT_TEST_VOCABULARY ), true ); // phpcs:ignore WordPress.WP.AlternativeFunctions.file_get_contents_file_get_contents
		$this->assertIsArray( $data );
		return $data;
	}

	public function test_the_six_scopes_are_the_same_in_the_same_order(): void {
		$this->assertSame( $this->vocabulary()['scopes'], Sitewright_Scopes::ALL );
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
