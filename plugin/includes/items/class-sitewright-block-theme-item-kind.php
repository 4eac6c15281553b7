<?php
/**
 * What the block-theme design kinds share (`global_styles:<stylesheet>`, `template_part:<slug>`, `template:<slug>`):
 * keys that are a theme directory name or a slug, the Site Editor's capabilities, the rule that only the active
 * block theme's design is read and written, and clearing WordPress's theme.json caches after a write. The version is
 * a hash over the state and writes run inside Sitewright_Item_Batch, as for every kind.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * A design kind of a block theme.
 */
abstract class Sitewright_Block_Theme_Item_Kind extends Sitewright_Item_Kind {

	/** The largest template, template part or global styles document we write. */
	protected const MAX_BYTES = 262144;

	/**
	 * A theme directory name or a template (part) slug.
	 *
	 * @param string $key Key.
	 */
	public function valid_key( string $key ): bool {
		return 1 === preg_match( '/^[a-z0-9][a-z0-9_-]*$/i', $key );
	}

	/**
	 * The capabilities core asks for: edit_theme_options, and edit_css for CSS inside global styles.
	 *
	 * @param string               $key    Key.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		if ( ! current_user_can( 'edit_theme_options' ) ) {
			return false;
		}
		return 'global_styles' !== $this->name || ! isset( $fields['styles']['css'] ) || current_user_can( 'edit_css' );
	}

	/**
	 * The newest revision of the post behind the item.
	 *
	 * @param string $action Action.
	 * @param string $key    Key.
	 */
	public function revision( string $action, string $key ): ?int {
		return self::latest_revision( $this->post_id( $key ) );
	}

	/**
	 * The post id behind an item, if there is one (for revisions).
	 *
	 * @param string $key Key.
	 */
	abstract public function post_id( string $key ): int;

	/**
	 * Why `customised` is not a boolean, or null.
	 *
	 * @param array<string, mixed> $fields Fields.
	 */
	protected static function refuse_customised( array $fields ): ?string {
		if ( array_key_exists( 'customised', $fields ) && ! is_bool( $fields['customised'] ) ) {
			return __( 'customised must be true or false.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Forgets WordPress's theme.json caches after a write, so the next read (and the live site) sees it.
	 */
	protected static function clean_theme_json(): void {
		if ( class_exists( 'WP_Theme_JSON_Resolver' ) ) {
			WP_Theme_JSON_Resolver::clean_cached_data();
		}
		if ( function_exists( 'wp_clean_theme_json_cache' ) ) {
			wp_clean_theme_json_cache();
		}
	}

	/**
	 * Whether a block theme is active and, for global styles, the key names it (we only write the active theme's).
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 */
	protected static function applies( string $kind, string $key ): bool {
		if ( ! function_exists( 'wp_is_block_theme' ) || ! wp_is_block_theme() ) {
			return false;
		}
		return 'global_styles' !== $kind || get_stylesheet() === $key;
	}
}
