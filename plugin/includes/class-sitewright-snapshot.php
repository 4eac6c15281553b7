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
 * Export and import.
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
	private const ID_OPTIONS = array( 'page_on_front', 'page_for_posts', 'site_icon' );

	/** Post types never exported (they hold private or derived data). */
	private const EXCLUDED_TYPES = array( 'revision', 'user_request', 'customize_changeset', 'oembed_cache', 'wp_global_styles', 'attachment' );

	/** Meta keys never exported: editing bookkeeping, or anything that looks like a credential. */
	private const EXCLUDED_META = '/^(_edit_lock|_edit_last|_wp_old_slug|_wp_old_date|_encloseme|_pingme|_wp_trash_meta_.*)$|token|secret|passw|api[_-]?key|nonce/i';

	/**
	 * Builds the export for the given post ids (unknown or excluded ids are reported, not fatal).
	 *
	 * @param array<int, int> $ids Post ids.
	 * @return array<string, mixed>
	 */
	public static function export( array $ids ): array {
		$posts    = array();
		$skipped  = array();
		$media    = array();
		$wanted   = array_values( array_unique( array_map( 'intval', $ids ) ) );
		$navs     = get_posts(
			array(
				'post_type'   => 'wp_navigation',
				'post_status' => 'publish',
				'numberposts' => 50,
				'fields'      => 'ids',
			)
		);
		$wanted   = array_values( array_unique( array_merge( $wanted, array_map( 'intval', $navs ) ) ) );
		$theme    = wp_get_theme();
		$media_id = array();

		foreach ( $wanted as $id ) {
			$post = get_post( $id );
			if ( ! $post instanceof WP_Post || in_array( $post->post_type, self::EXCLUDED_TYPES, true ) ) {
				$skipped[] = $id;
				continue;
			}
			$meta = array();
			foreach ( (array) get_post_meta( $post->ID ) as $key => $values ) {
				if ( preg_match( self::EXCLUDED_META, (string) $key ) ) {
					continue;
				}
				$meta[ $key ] = array_map( 'maybe_unserialize', (array) $values );
			}
			$thumbnail = (int) get_post_thumbnail_id( $post );
			if ( $thumbnail > 0 ) {
				$media_id[] = $thumbnail;
			}
			$media_id = array_merge( $media_id, self::referenced_media( (string) $post->post_content ) );
			$posts[]  = array(
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
				'terms'     => self::terms( $post ),
				'meta'      => $meta,
			);
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

		foreach ( array_unique( $media_id ) as $attachment_id ) {
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
			'media'        => $media,
			'menus'        => self::menus(),
			'options'      => $options,
			'themeMods'    => $mods,
			'customCss'    => wp_get_custom_css(),
			'globalStyles' => self::global_styles_content( $theme->get_stylesheet() ),
		);
	}

	/**
	 * Imports an export into this (sandbox) site. Ids are kept where free, else remapped.
	 *
	 * @param array<string, mixed> $data From export().
	 * @return array<string, mixed>|WP_Error
	 */
	public static function import( array $data ) {
		if ( ! defined( 'SITEWRIGHT_SANDBOX' ) || true !== SITEWRIGHT_SANDBOX ) {
			return new WP_Error( 'sitewright_not_sandbox', __( 'Import runs only on a Sitewright sandbox (SITEWRIGHT_SANDBOX in wp-config.php).', 'sitewright-connector' ), array( 'status' => 403 ) );
		}
		if ( ( $data['format'] ?? '' ) !== self::FORMAT ) {
			return new WP_Error( 'sitewright_bad_snapshot', __( 'This is not a Sitewright snapshot of a known format.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$warnings = array();
		$map      = array();

		$stylesheet = (string) ( $data['theme']['stylesheet'] ?? '' );
		if ( '' !== $stylesheet && get_stylesheet() !== $stylesheet ) {
			if ( wp_get_theme( $stylesheet )->exists() ) {
				switch_theme( $stylesheet );
			} else {
				/* translators: %s: theme */
				$warnings[] = sprintf( __( 'Theme %s is not installed here; the current theme was kept.', 'sitewright-connector' ), $stylesheet );
			}
		}

		foreach ( (array) ( $data['media'] ?? array() ) as $item ) {
			$old = (int) ( $item['id'] ?? 0 );
			$url = esc_url_raw( (string) ( $item['url'] ?? '' ) );
			if ( $old <= 0 || '' === $url ) {
				continue;
			}
			$new = wp_insert_post(
				wp_slash(
					array(
						'import_id'      => $old,
						'post_type'      => 'attachment',
						'post_status'    => 'inherit',
						'post_title'     => (string) ( $item['title'] ?? '' ),
						'post_mime_type' => (string) ( $item['mimeType'] ?? '' ),
						'guid'           => $url,
					)
				),
				true
			);
			if ( is_wp_error( $new ) ) {
				$warnings[] = $new->get_error_message();
				continue;
			}
			update_post_meta( $new, '_wp_attachment_image_alt', wp_slash( (string) ( $item['alt'] ?? '' ) ) );
			$map[ $old ] = (int) $new;
		}

		$posts = (array) ( $data['posts'] ?? array() );
		foreach ( $posts as $post ) {
			$old = (int) ( $post['id'] ?? 0 );
			if ( $old <= 0 || in_array( (string) ( $post['type'] ?? '' ), self::EXCLUDED_TYPES, true ) || ! post_type_exists( (string) $post['type'] ) ) {
				continue;
			}
			$new = wp_insert_post(
				wp_slash(
					array(
						'import_id'     => $old,
						'post_type'     => (string) $post['type'],
						'post_status'   => (string) ( $post['status'] ?? 'draft' ),
						'post_title'    => (string) ( $post['title'] ?? '' ),
						'post_name'     => (string) ( $post['slug'] ?? '' ),
						'post_content'  => (string) ( $post['content'] ?? '' ),
						'post_excerpt'  => (string) ( $post['excerpt'] ?? '' ),
						'menu_order'    => (int) ( $post['menuOrder'] ?? 0 ),
						'post_date_gmt' => (string) ( $post['dateGmt'] ?? '' ),
					)
				),
				true
			);
			if ( is_wp_error( $new ) ) {
				$warnings[] = $new->get_error_message();
				continue;
			}
			$map[ $old ] = (int) $new;
			foreach ( (array) ( $post['meta'] ?? array() ) as $key => $values ) {
				if ( preg_match( self::EXCLUDED_META, (string) $key ) ) {
					continue;
				}
				delete_post_meta( $new, (string) $key );
				foreach ( (array) $values as $value ) {
					add_post_meta( $new, (string) $key, wp_slash( $value ) );
				}
			}
			foreach ( (array) ( $post['terms'] ?? array() ) as $taxonomy => $names ) {
				if ( taxonomy_exists( (string) $taxonomy ) ) {
					wp_set_object_terms( $new, array_map( 'strval', (array) $names ), (string) $taxonomy );
				}
			}
		}

		foreach ( $posts as $post ) {
			$old = (int) ( $post['id'] ?? 0 );
			if ( ! isset( $map[ $old ] ) ) {
				continue;
			}
			$update  = array( 'ID' => $map[ $old ] );
			$parent  = (int) ( $post['parent'] ?? 0 );
			$content = self::remap_content( (string) ( $post['content'] ?? '' ), $map );
			if ( $parent > 0 ) {
				$update['post_parent'] = $map[ $parent ] ?? 0;
			}
			if ( $content !== (string) ( $post['content'] ?? '' ) ) {
				$update['post_content'] = $content;
			}
			$thumbnail = (int) get_post_meta( $map[ $old ], '_thumbnail_id', true );
			if ( $thumbnail > 0 ) {
				update_post_meta( $map[ $old ], '_thumbnail_id', $map[ $thumbnail ] ?? $thumbnail );
			}
			if ( count( $update ) > 1 ) {
				wp_update_post( wp_slash( $update ) );
			}
		}

		$menus = self::import_menus( (array) ( $data['menus'] ?? array() ), $map, $warnings );

		foreach ( (array) ( $data['options'] ?? array() ) as $name => $value ) {
			if ( ! in_array( $name, self::OPTIONS, true ) ) {
				continue;
			}
			if ( in_array( $name, self::ID_OPTIONS, true ) ) {
				$value = $map[ (int) $value ] ?? 0;
			}
			update_option( $name, $value );
		}
		foreach ( (array) ( $data['themeMods'] ?? array() ) as $name => $value ) {
			if ( 'custom_logo' === $name ) {
				$value = $map[ (int) $value ] ?? 0;
			}
			set_theme_mod( (string) $name, $value );
		}
		if ( ! empty( $data['customCss'] ) ) {
			Sitewright_REST_Custom_CSS_Controller::save_css( (string) $data['customCss'] );
		}
		if ( ! empty( $data['globalStyles'] ) && is_string( $data['globalStyles'] ) ) {
			self::save_global_styles( $data['globalStyles'] );
		}

		return array(
			'imported' => array(
				'posts' => count( array_intersect_key( $map, array_flip( array_map( 'intval', array_column( $posts, 'id' ) ) ) ) ),
				'media' => count( (array) ( $data['media'] ?? array() ) ),
				'menus' => $menus,
			),
			'idMap'    => (object) $map,
			'warnings' => $warnings,
		);
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
	 * Rewrites media ids in content after remapping.
	 *
	 * @param string          $content Post content.
	 * @param array<int, int> $map     Old id => new id.
	 */
	private static function remap_content( string $content, array $map ): string {
		$content = (string) preg_replace_callback(
			'/wp-image-(\d+)/',
			static function ( array $m ) use ( $map ): string {
				return 'wp-image-' . ( $map[ (int) $m[1] ] ?? $m[1] );
			},
			$content
		);
		return (string) preg_replace_callback(
			'/(<!-- wp:(?:image|cover|media-text|video|audio|file|gallery)\s+\{[^}]*?"(?:id|mediaId)":)(\d+)/',
			static function ( array $m ) use ( $map ): string {
				return $m[1] . ( $map[ (int) $m[2] ] ?? $m[2] );
			},
			$content
		);
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
	 * Recreates menus; items pointing at content that was not imported become custom links.
	 *
	 * @param array<int, array<string, mixed>> $menus    From menus().
	 * @param array<int, int>                  $map      Old id => new id.
	 * @param array<int, string>               $warnings Collected warnings.
	 */
	private static function import_menus( array $menus, array $map, array &$warnings ): int {
		$locations = get_nav_menu_locations();
		$count     = 0;
		foreach ( $menus as $menu ) {
			$existing = wp_get_nav_menu_object( (string) ( $menu['name'] ?? '' ) );
			if ( $existing ) {
				wp_delete_nav_menu( $existing->term_id );
			}
			$menu_id = wp_create_nav_menu( (string) ( $menu['name'] ?? 'Menu' ) );
			if ( is_wp_error( $menu_id ) ) {
				$warnings[] = $menu_id->get_error_message();
				continue;
			}
			++$count;
			$item_map = array();
			$items    = (array) ( $menu['items'] ?? array() );
			usort(
				$items,
				static function ( array $a, array $b ): int {
					return (int) $a['order'] <=> (int) $b['order'];
				}
			);
			foreach ( $items as $item ) {
				$args   = array(
					'menu-item-title'     => (string) $item['title'],
					'menu-item-url'       => (string) $item['url'],
					'menu-item-status'    => 'publish',
					'menu-item-position'  => (int) $item['order'],
					'menu-item-target'    => (string) $item['target'],
					'menu-item-classes'   => implode( ' ', (array) $item['classes'] ),
					'menu-item-parent-id' => $item_map[ (int) $item['parent'] ] ?? 0,
				);
				$object = (int) $item['objectId'];
				if ( 'post_type' === $item['type'] && isset( $map[ $object ] ) ) {
					$args['menu-item-type']      = 'post_type';
					$args['menu-item-object']    = (string) $item['object'];
					$args['menu-item-object-id'] = $map[ $object ];
				} else {
					$args['menu-item-type'] = 'custom';
				}
				$new = wp_update_nav_menu_item( $menu_id, 0, wp_slash( $args ) );
				if ( ! is_wp_error( $new ) ) {
					$item_map[ (int) $item['id'] ] = (int) $new;
				}
			}
			foreach ( (array) ( $menu['locations'] ?? array() ) as $location ) {
				$locations[ (string) $location ] = $menu_id;
			}
		}
		set_theme_mod( 'nav_menu_locations', $locations );
		return $count;
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
	private static function global_styles_post( string $stylesheet ): ?WP_Post {
		$posts = get_posts(
			array(
				'post_type'        => 'wp_global_styles',
				'post_status'      => 'publish',
				'numberposts'      => 1,
				'suppress_filters' => true,
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_tax_query -- one small lookup.
				'tax_query'        => array(
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

	/**
	 * Saves global styles for the active theme.
	 *
	 * @param string $content JSON.
	 */
	private static function save_global_styles( string $content ): void {
		$stylesheet = get_stylesheet();
		$post       = self::global_styles_post( $stylesheet );
		if ( $post ) {
			wp_update_post(
				wp_slash(
					array(
						'ID'           => $post->ID,
						'post_content' => $content,
					)
				)
			);
			return;
		}
		$id = wp_insert_post(
			wp_slash(
				array(
					'post_type'    => 'wp_global_styles',
					'post_status'  => 'publish',
					'post_title'   => 'Custom Styles',
					'post_name'    => 'wp-global-styles-' . rawurlencode( $stylesheet ),
					'post_content' => $content,
				)
			),
			true
		);
		if ( ! is_wp_error( $id ) ) {
			wp_set_post_terms( $id, array( $stylesheet ), 'wp_theme' );
		}
	}
}
