<?php
/**
 * Elementor's caches of a page: the generated CSS (`_elementor_css` and uploads/elementor/css/post-<id>.css), the
 * element cache (`_elementor_element_cache`, on by default for 24 hours: without clearing it a write to
 * `_elementor_data` does not show) and the page's asset list (`_elementor_page_assets`). Cleared after every builder
 * write and undo so the public page shows the change; kit changes clear them site-wide (docs/page-builders.md).
 * Works whether or not Elementor is loaded in this request: these are Elementor's own meta keys and file names.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Clears Elementor's generated caches.
 */
final class Sitewright_Elementor_Cache {

	/** The post meta Elementor derives from a page's data and rebuilds on the next view. */
	public const DERIVED_META = array( '_elementor_css', '_elementor_element_cache', '_elementor_page_assets' );

	/**
	 * Clears one page's Elementor caches. Returns what was cleared, in words.
	 *
	 * @param int $post_id Post id.
	 * @return array<int, string>
	 */
	public static function clear_page( int $post_id ): array {
		foreach ( self::DERIVED_META as $key ) {
			delete_post_meta( $post_id, $key );
		}
		$file = self::css_dir() . 'post-' . $post_id . '.css';
		if ( is_file( $file ) ) {
			wp_delete_file( $file );
		}
		return array( 'Elementor page cache' );
	}

	/**
	 * Clears every page's Elementor caches and the global CSS (after a kit change: colours and fonts show on every
	 * page). Elementor's own files manager when it is loaded, the same steps by hand otherwise.
	 *
	 * @return array<int, string>
	 */
	public static function clear_site(): array {
		if ( class_exists( '\Elementor\Plugin' ) && isset( \Elementor\Plugin::$instance->files_manager ) ) {
			\Elementor\Plugin::$instance->files_manager->clear_cache();
			return array( 'Elementor site cache' );
		}
		foreach ( self::DERIVED_META as $key ) {
			delete_post_meta_by_key( $key );
		}
		foreach ( (array) glob( self::css_dir() . '*.css' ) as $file ) {
			wp_delete_file( (string) $file );
		}
		delete_option( 'elementor-custom-breakpoints-files' );
		return array( 'Elementor site cache' );
	}

	/**
	 * Where Elementor writes its CSS files.
	 */
	private static function css_dir(): string {
		return trailingslashit( (string) wp_upload_dir( null, false )['basedir'] ) . 'elementor/css/';
	}
}
