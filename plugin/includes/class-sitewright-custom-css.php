<?php
/**
 * The active theme's Additional CSS, saved exactly as given: used by POST /sitewright/v1/custom-css and by the
 * sandbox import.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Additional CSS.
 */
final class Sitewright_Custom_CSS {

	/**
	 * Saves the active theme's custom CSS exactly as given. Refuses CSS carrying markup (core's Customizer rule, so
	 * nothing can close the `<style>` it is printed in); kses would turn `a > b` into `a &gt; b`, so it is off for
	 * this one save.
	 *
	 * @param string $css The new CSS.
	 * @return WP_Post|WP_Error
	 */
	public static function save( string $css ) {
		if ( preg_match( '#</?\w+#', $css ) ) {
			return new WP_Error( 'sitewright_css_markup', __( 'CSS must not contain HTML tags.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		kses_remove_filters();
		try {
			return wp_update_custom_css_post( $css );
		} finally {
			kses_init();
		}
	}
}
