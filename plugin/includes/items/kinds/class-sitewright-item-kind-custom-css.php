<?php
/**
 * `custom_css:<stylesheet>`: the Customizer's Additional CSS of a theme. State: `{css}`.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Custom CSS as an item.
 */
final class Sitewright_Item_Kind_Custom_Css extends Sitewright_Item_Kind {

	/**
	 * Any theme directory name (a theme that does not exist reads as missing).
	 *
	 * @param string $key Theme.
	 */
	public function valid_key( string $key ): bool {
		return true;
	}

	/**
	 * Reads the theme's custom CSS.
	 *
	 * @param string $key Theme.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		$post = wp_get_custom_css_post( $key );
		if ( $post instanceof WP_Post ) {
			clean_post_cache( $post->ID );
		}
		return array( wp_get_theme( $key )->exists() ? array( 'css' => wp_get_custom_css( $key ) ) : null, $key );
	}

	/**
	 * The edit_css capability.
	 *
	 * @param string               $key    Theme.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		return current_user_can( 'edit_css' );
	}

	/**
	 * Saves the CSS.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Theme.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write_css( $key, (string) ( $fields['css'] ?? '' ) );
		return is_wp_error( $saved ) ? $saved : $key;
	}

	/**
	 * Design is site-wide: always seen.
	 *
	 * @param string               $key    Theme.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$places->add( 'design', __( 'the site-wide custom CSS', 'sitewright-connector' ), home_url( '/' ) );
	}

	/**
	 * Saves the custom CSS of a theme (markup refused, kses off for this save only, as the custom-css route does).
	 *
	 * @param string $stylesheet Theme.
	 * @param string $css        CSS.
	 * @return true|WP_Error
	 */
	private static function write_css( string $stylesheet, string $css ) {
		if ( strlen( $css ) > Sitewright_REST_Custom_CSS_Controller::MAX_BYTES || preg_match( '#</?\w+#', $css ) ) {
			return new WP_Error( 'rest_invalid_param', __( 'CSS must be plain CSS of at most 64 KiB.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		kses_remove_filters();
		try {
			$saved = wp_update_custom_css_post( $css, array( 'stylesheet' => $stylesheet ) );
		} finally {
			kses_init();
		}
		return is_wp_error( $saved ) ? $saved : true;
	}
}
