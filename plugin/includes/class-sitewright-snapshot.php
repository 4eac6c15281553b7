<?php
/**
 * Export of chosen content for a sandbox, and its import into one.
 *
 * The export carries the chosen posts with their meta, the menus, referenced media as URLs, a whitelist of
 * options, theme mods, custom CSS and global styles. Never users, tokens, secrets or post passwords.
 * Import runs only on a site that declares itself a sandbox (SITEWRIGHT_SANDBOX in wp-config.php).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Export, and the entry point of import (Sitewright_Snapshot_Import).
 */
final class Sitewright_Snapshot {

	public const FORMAT = 'sitewright-snapshot/1';

	/** Options copied to a sandbox; ids among them are remapped on import. */
	public const OPTIONS = array(
		'blogname',
		'blogdescription',
		'show_on_front',
		'page_on_front',
		'page_for_posts',
		'posts_per_page',
		'date_format',
		'time_format',
		'timezone_string',
		'gmt_offset',
		'start_of_week',
		'site_icon',
	);

	/** Options that hold a post id. */
	public const ID_OPTIONS = array( 'page_on_front', 'page_for_posts', 'site_icon' );

	/** Post types a copy carries (media and global styles travel their own way); any other type is left out. */
	public const COPIED_TYPES = array( 'page', 'post', 'wp_navigation', 'wp_template', 'wp_template_part', 'wp_block' );

	/** Post types never imported (they hold private or derived data). */
	public const EXCLUDED_TYPES = array( 'revision', 'user_request', 'customize_changeset', 'oembed_cache', 'wp_global_styles', 'attachment' );

	/** Meta keys never exported: editing bookkeeping, or anything that looks like a credential. */
	public const EXCLUDED_META = '/^(_edit_lock|_edit_last|_wp_old_slug|_wp_old_date|_encloseme|_pingme|_wp_trash_meta_.*)$|token|secret|passw|api[_-]?key|nonce/i';

	/**
	 * Builds the export for the given post ids (unknown or excluded ids are reported, not fatal).
	 *
	 * @param array<int, int> $ids Post ids.
	 * @return array<string, mixed>
	 */
	public static function export( array $ids ): array {
		$posts    = array();
		$skipped  = array();
		$wanted   = array_values( array_unique( array_map( 'intval', $ids ) ) );
		$navs     = get_posts(
			array(
				'post_type'   => 'wp_navigation',
				'post_status' => 'publish',
				'numberposts' => 50,
				'fields'      => 'ids',
			)
		);
		$theme    = wp_get_theme();
		$wanted   = array_values( array_unique( array_merge( $wanted, array_map( 'intval', $navs ), self::customised_template_parts( $theme->get_stylesheet() ) ) ) );
		$media_id = array();

		foreach ( $wanted as $id ) {
			$post = get_post( $id );
			// Only the types Sitewright's operations use, and only what this token may read: a content:read token
			// never exports a shop order or a privacy request, nor a post its user may not read.
			if ( ! $post instanceof WP_Post || ! in_array( $post->post_type, self::COPIED_TYPES, true ) || ! current_user_can( 'read_post', $post->ID ) ) {
				$skipped[] = $id;
				continue;
			}
			$thumbnail = (int) get_post_thumbnail_id( $post );
			if ( $thumbnail > 0 ) {
				$media_id[] = $thumbnail;
			}
			$media_id = array_merge( $media_id, self::referenced_media( (string) $post->post_content ) );
			$posts[]  = self::post_export( $post );
		}

		$mods = get_theme_mods();
		$mods = is_array( $mods ) ? $mods : array();
		unset( $mods['nav_menu_locations'], $mods['custom_css_post_id'] );
		if ( ! empty( $mods['custom_logo'] ) ) {
			$media_id[] = (int) $mods['custom_logo'];
		}
		$options = array();
		foreach ( self::OPTIONS as $name ) {
			$options[ $name ] = get_option( $name );
		}
		if ( ! empty( $options['site_icon'] ) ) {
			$media_id[] = (int) $options['site_icon'];
		}

		return array(
			'format'       => self::FORMAT,
			'exportedAt'   => gmdate( 'c' ),
			'source'       => array(
				'homeUrl' => home_url(),
				'name'    => get_bloginfo( 'name' ),
			),
			'theme'        => array(
				'stylesheet' => $theme->get_stylesheet(),
				'template'   => $theme->get_template(),
			),
			'posts'        => $posts,
			'skipped'      => $skipped,
			'media'        => self::media_export( $media_id ),
			'menus'        => self::menus(),
			'options'      => $options,
			'themeMods'    => $mods,
			'customCss'    => wp_get_custom_css(),
			'globalStyles' => self::global_styles_content( $theme->get_stylesheet() ),
		);
	}

	/**
	 * One post as the export carries it: its fields, terms and meta (less EXCLUDED_META).
	 *
	 * @param WP_Post $post Post.
	 * @return array<string, mixed>
	 */
	private static function post_export( WP_Post $post ): array {
		$meta = array();
		foreach ( (array) get_post_meta( $post->ID ) as $key => $values ) {
			if ( preg_match( self::EXCLUDED_META, (string) $key ) ) {
				continue;
			}
			$meta[ $key ] = array_map( 'maybe_unserialize', (array) $values );
		}
		return array(
			'id'        => $post->ID,
			'type'      => $post->post_type,
			'status'    => $post->post_status,
			'title'     => $post->post_title,
			'slug'      => $post->post_name,
			'content'   => $post->post_content,
			'excerpt'   => $post->post_excerpt,
			'parent'    => (int) $post->post_parent,
			'menuOrder' => (int) $post->menu_order,
			'dateGmt'   => $post->post_date_gmt,
			'protected' => '' !== $post->post_password,
			// A protected page stays protected in the copy (the preview is the owner's, but exact is exact).
			'password'  => $post->post_password,
			'terms'     => self::terms( $post ),
			'meta'      => $meta,
		);
	}

	/**
	 * The attachments the export names (featured images, images in content, the logo, the icon), once each.
	 *
	 * @param array<int, int> $ids Attachment ids.
	 * @return array<int, array<string, mixed>>
	 */
	private static function media_export( array $ids ): array {
		$media = array();
		foreach ( array_unique( $ids ) as $attachment_id ) {
			$url = wp_get_attachment_url( $attachment_id );
			if ( ! $url ) {
				continue;
			}
			$media[] = array(
				'id'       => $attachment_id,
				'url'      => $url,
				'mimeType' => (string) get_post_mime_type( $attachment_id ),
				'title'    => get_the_title( $attachment_id ),
				'alt'      => (string) get_post_meta( $attachment_id, '_wp_attachment_image_alt', true ),
			);
		}
		return $media;
	}

	/**
	 * The ids of the active theme's customised template parts (header, footer...): a copy without them shows the
	 * theme's own parts, not the site's.
	 *
	 * @param string $stylesheet Theme.
	 * @return array<int, int>
	 */
	private static function customised_template_parts( string $stylesheet ): array {
		if ( ! function_exists( 'wp_is_block_theme' ) || ! wp_is_block_theme() ) {
			return array();
		}
		$ids = get_posts(
			array(
				'post_type'   => 'wp_template_part',
				'post_status' => 'publish',
				'numberposts' => 50,
				'fields'      => 'ids',
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_tax_query -- at most 50 rows, once per copy.
				'tax_query'   => array(
					array(
						'taxonomy' => 'wp_theme',
						'field'    => 'name',
						'terms'    => $stylesheet,
					),
				),
			)
		);
		return array_map( 'intval', $ids );
	}

	/**
	 * Imports an export into this (sandbox) site (Sitewright_Snapshot_Import does the work).
	 *
	 * @param array<string, mixed> $data From export().
	 * @return array<string, mixed>|WP_Error
	 */
	public static function import( array $data ) {
		return ( new Sitewright_Snapshot_Import() )->run( $data );
	}

	/**
	 * Attachment ids referenced by post content (image classes and block attributes).
	 *
	 * @param string $content Post content.
	 * @return array<int, int>
	 */
	public static function referenced_media( string $content ): array {
		$ids = array();
		if ( preg_match_all( '/wp-image-(\d+)/', $content, $matches ) ) {
			$ids = array_merge( $ids, $matches[1] );
		}
		if ( preg_match_all( '/<!-- wp:(?:image|cover|media-text|video|audio|file|gallery)\s+\{[^}]*?"(?:id|mediaId)":(\d+)/', $content, $matches ) ) {
			$ids = array_merge( $ids, $matches[1] );
		}
		return array_values( array_unique( array_map( 'intval', $ids ) ) );
	}

	/**
	 * Term names by taxonomy.
	 *
	 * @param WP_Post $post Post.
	 * @return array<string, array<int, string>>
	 */
	private static function terms( WP_Post $post ): array {
		$out = array();
		foreach ( get_object_taxonomies( $post->post_type ) as $taxonomy ) {
			$names = wp_get_object_terms( $post->ID, $taxonomy, array( 'fields' => 'names' ) );
			if ( ! is_wp_error( $names ) && $names ) {
				$out[ $taxonomy ] = array_values( $names );
			}
		}
		return $out;
	}

	/**
	 * Classic menus with their items and locations.
	 *
	 * @return array<int, array<string, mixed>>
	 */
	private static function menus(): array {
		$locations = get_nav_menu_locations();
		$out       = array();
		foreach ( wp_get_nav_menus() as $menu ) {
			$items = array();
			foreach ( (array) wp_get_nav_menu_items( $menu->term_id, array( 'post_status' => 'any' ) ) as $item ) {
				$items[] = array(
					'id'       => (int) $item->ID,
					'parent'   => (int) $item->menu_item_parent,
					'order'    => (int) $item->menu_order,
					'title'    => $item->title,
					'url'      => $item->url,
					'type'     => $item->type,
					'object'   => $item->object,
					'objectId' => (int) $item->object_id,
					'target'   => $item->target,
					'classes'  => array_values( array_filter( (array) $item->classes ) ),
				);
			}
			$out[] = array(
				'id'        => (int) $menu->term_id,
				'name'      => $menu->name,
				'slug'      => $menu->slug,
				'locations' => array_keys( $locations, $menu->term_id, true ),
				'items'     => $items,
			);
		}
		return $out;
	}

	/**
	 * The active theme's user global styles (JSON), or null.
	 *
	 * @param string $stylesheet Theme.
	 */
	private static function global_styles_content( string $stylesheet ): ?string {
		$post = self::global_styles_post( $stylesheet );
		return $post ? $post->post_content : null;
	}

	/**
	 * The wp_global_styles post of a theme.
	 *
	 * @param string $stylesheet Theme.
	 */
	public static function global_styles_post( string $stylesheet ): ?WP_Post {
		$posts = get_posts(
			array(
				'post_type'   => 'wp_global_styles',
				'post_status' => 'publish',
				'numberposts' => 1,
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_tax_query -- one small lookup.
				'tax_query'   => array(
					array(
						'taxonomy' => 'wp_theme',
						'field'    => 'name',
						'terms'    => $stylesheet,
					),
				),
			)
		);
		return $posts ? $posts[0] : null;
	}
}
