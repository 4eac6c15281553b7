<?php
/**
 * Imports a snapshot (Sitewright_Snapshot::export() of a live site) into a sandbox, one step per method: theme,
 * media, posts, links between them, menus, options and theme mods, CSS and global styles. Ids are kept where free
 * (`import_id`), else remapped; every step reads and extends the same old id => new id map.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * One import run.
 */
final class Sitewright_Snapshot_Import {

	/**
	 * Old post id => new post id.
	 *
	 * @var array<int, int>
	 */
	private array $map = array();

	/**
	 * What could not be imported, in words.
	 *
	 * @var array<int, string>
	 */
	private array $warnings = array();

	/**
	 * Imports an export into this site, which must be a sandbox.
	 *
	 * @param array<string, mixed> $data From Sitewright_Snapshot::export().
	 * @return array<string, mixed>|WP_Error
	 */
	public function run( array $data ) {
		$refused = self::refusal( $data );
		if ( null !== $refused ) {
			return $refused;
		}
		// A later, content-only import into the same sandbox names what an earlier one copied (live id => id here), so
		// parents, featured images and media inside content keep pointing at those.
		foreach ( (array) ( $data['knownIds'] ?? array() ) as $old => $new ) {
			if ( (int) $old > 0 && (int) $new > 0 ) {
				$this->map[ (int) $old ] = (int) $new;
			}
		}
		$this->switch_theme( (string) ( $data['theme']['stylesheet'] ?? '' ) );
		$this->import_media( (array) ( $data['media'] ?? array() ) );
		$posts = (array) ( $data['posts'] ?? array() );
		$this->import_posts( $posts );
		$this->link_posts( $posts );
		$menus = $this->import_menus( (array) ( $data['menus'] ?? array() ) );
		$this->import_options( (array) ( $data['options'] ?? array() ) );
		$this->import_theme_mods( (array) ( $data['themeMods'] ?? array() ) );
		$this->import_styles( $data );

		return array(
			'imported' => array(
				'posts' => count( array_intersect_key( $this->map, array_flip( array_map( 'intval', array_column( $posts, 'id' ) ) ) ) ),
				'media' => count( (array) ( $data['media'] ?? array() ) ),
				'menus' => $menus,
			),
			'idMap'    => (object) $this->map,
			// The theme the copy runs: design items (global styles, template parts) apply back only when it is the live one.
			'theme'    => get_stylesheet(),
			'warnings' => $this->warnings,
		);
	}

	/**
	 * Why this import may not run here, or null: only a declared sandbox, only a known format.
	 *
	 * @param array<string, mixed> $data The snapshot.
	 */
	public static function refusal( array $data ): ?WP_Error {
		if ( ! defined( 'SITEWRIGHT_SANDBOX' ) || true !== SITEWRIGHT_SANDBOX ) {
			return new WP_Error( 'sitewright_not_sandbox', __( 'Import runs only on a Sitewright sandbox (SITEWRIGHT_SANDBOX in wp-config.php).', 'sitewright-connector' ), array( 'status' => 403 ) );
		}
		if ( ( $data['format'] ?? '' ) !== Sitewright_Snapshot::FORMAT ) {
			return new WP_Error( 'sitewright_bad_snapshot', __( 'This is not a Sitewright snapshot of a known format.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		return null;
	}

	/**
	 * Switches to the exported theme when it is installed here.
	 *
	 * @param string $stylesheet The live site's theme.
	 */
	private function switch_theme( string $stylesheet ): void {
		if ( '' === $stylesheet || get_stylesheet() === $stylesheet ) {
			return;
		}
		if ( wp_get_theme( $stylesheet )->exists() ) {
			switch_theme( $stylesheet );
			return;
		}
		/* translators: %s: theme */
		$this->warnings[] = sprintf( __( 'Theme %s is not installed here; the current theme was kept.', 'sitewright-connector' ), $stylesheet );
	}

	/**
	 * Attachment posts whose URL is the original one (no files are copied).
	 *
	 * @param array<int, mixed> $media From the export's `media`.
	 */
	private function import_media( array $media ): void {
		foreach ( $media as $item ) {
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
				$this->warnings[] = $new->get_error_message();
				continue;
			}
			update_post_meta( $new, '_wp_attachment_image_alt', wp_slash( (string) ( $item['alt'] ?? '' ) ) );
			$this->map[ $old ] = (int) $new;
		}
	}

	/**
	 * Posts with their meta and terms; links between them come after, once every id is known.
	 *
	 * @param array<int, mixed> $posts From the export's `posts`.
	 */
	private function import_posts( array $posts ): void {
		foreach ( $posts as $post ) {
			$old  = (int) ( $post['id'] ?? 0 );
			$type = (string) ( $post['type'] ?? '' );
			if ( $old <= 0 || in_array( $type, Sitewright_Snapshot::EXCLUDED_TYPES, true ) || ! post_type_exists( $type ) ) {
				continue;
			}
			$data = array(
				'import_id'     => $old,
				'post_type'     => $type,
				'post_status'   => (string) ( $post['status'] ?? 'draft' ),
				'post_title'    => (string) ( $post['title'] ?? '' ),
				'post_name'     => (string) ( $post['slug'] ?? '' ),
				'post_content'  => (string) ( $post['content'] ?? '' ),
				'post_excerpt'  => (string) ( $post['excerpt'] ?? '' ),
				'post_password' => (string) ( $post['password'] ?? '' ),
				'menu_order'    => (int) ( $post['menuOrder'] ?? 0 ),
				'post_date_gmt' => (string) ( $post['dateGmt'] ?? '' ),
			);
			// The copy is byte for byte what the live site holds: an administrator's iframe or form stays (kses
			// off for this write only), so what Apply replays is measured against the real content.
			$new = Sitewright_Exact_Write::without_kses( static fn() => wp_insert_post( wp_slash( $data ), true ) );
			if ( is_wp_error( $new ) ) {
				$this->warnings[] = $new->get_error_message();
				continue;
			}
			$this->map[ $old ] = (int) $new;
			$this->import_meta( (int) $new, (array) ( $post['meta'] ?? array() ) );
			$this->import_terms( (int) $new, (array) ( $post['terms'] ?? array() ) );
		}
	}

	/**
	 * A post's meta, minus bookkeeping and anything that looks like a credential.
	 *
	 * @param int                  $post_id The new post.
	 * @param array<string, mixed> $meta    Key => values.
	 */
	private function import_meta( int $post_id, array $meta ): void {
		foreach ( $meta as $key => $values ) {
			if ( preg_match( Sitewright_Snapshot::EXCLUDED_META, (string) $key ) ) {
				continue;
			}
			delete_post_meta( $post_id, (string) $key );
			foreach ( (array) $values as $value ) {
				add_post_meta( $post_id, (string) $key, wp_slash( $value ) );
			}
		}
	}

	/**
	 * A post's terms by name, in the taxonomies that exist here.
	 *
	 * @param int                  $post_id The new post.
	 * @param array<string, mixed> $terms   Taxonomy => names.
	 */
	private function import_terms( int $post_id, array $terms ): void {
		foreach ( $terms as $taxonomy => $names ) {
			if ( taxonomy_exists( (string) $taxonomy ) ) {
				wp_set_object_terms( $post_id, array_map( 'strval', (array) $names ), (string) $taxonomy );
			}
		}
	}

	/**
	 * Parents, media ids inside content and featured images follow the id map.
	 *
	 * @param array<int, mixed> $posts From the export's `posts`.
	 */
	private function link_posts( array $posts ): void {
		foreach ( $posts as $post ) {
			$old = (int) ( $post['id'] ?? 0 );
			if ( ! isset( $this->map[ $old ] ) ) {
				continue;
			}
			$new      = $this->map[ $old ];
			$update   = array( 'ID' => $new );
			$parent   = (int) ( $post['parent'] ?? 0 );
			$original = (string) ( $post['content'] ?? '' );
			$content  = $this->remap_content( $original );
			if ( $parent > 0 ) {
				$update['post_parent'] = $this->map[ $parent ] ?? 0;
			}
			if ( $original !== $content ) {
				$update['post_content'] = $content;
			}
			$thumbnail = (int) get_post_meta( $new, '_thumbnail_id', true );
			if ( $thumbnail > 0 ) {
				update_post_meta( $new, '_thumbnail_id', $this->map[ $thumbnail ] ?? $thumbnail );
			}
			if ( count( $update ) > 1 ) {
				wp_update_post( wp_slash( $update ) );
			}
		}
	}

	/**
	 * Rewrites media ids in content after remapping.
	 *
	 * @param string $content Post content.
	 */
	private function remap_content( string $content ): string {
		$map     = $this->map;
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
	 * Recreates menus; items pointing at content that was not imported become custom links.
	 *
	 * @param array<int, array<string, mixed>> $menus From Sitewright_Snapshot::export()'s `menus`.
	 * @return int How many menus were made.
	 */
	private function import_menus( array $menus ): int {
		$locations = get_nav_menu_locations();
		$count     = 0;
		foreach ( $menus as $menu ) {
			$existing = wp_get_nav_menu_object( (string) ( $menu['name'] ?? '' ) );
			if ( $existing ) {
				wp_delete_nav_menu( $existing->term_id );
			}
			$menu_id = wp_create_nav_menu( (string) ( $menu['name'] ?? 'Menu' ) );
			if ( is_wp_error( $menu_id ) ) {
				$this->warnings[] = $menu_id->get_error_message();
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
				if ( 'post_type' === $item['type'] && isset( $this->map[ $object ] ) ) {
					$args['menu-item-type']      = 'post_type';
					$args['menu-item-object']    = (string) $item['object'];
					$args['menu-item-object-id'] = $this->map[ $object ];
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
	 * The whitelisted options; those holding a post id follow the map.
	 *
	 * @param array<string, mixed> $options Name => value.
	 */
	private function import_options( array $options ): void {
		foreach ( $options as $name => $value ) {
			if ( ! in_array( $name, Sitewright_Snapshot::OPTIONS, true ) ) {
				continue;
			}
			if ( in_array( $name, Sitewright_Snapshot::ID_OPTIONS, true ) ) {
				$value = $this->map[ (int) $value ] ?? 0;
			}
			update_option( $name, $value );
		}
	}

	/**
	 * Theme mods; the custom logo follows the map.
	 *
	 * @param array<string, mixed> $mods Name => value.
	 */
	private function import_theme_mods( array $mods ): void {
		foreach ( $mods as $name => $value ) {
			if ( 'custom_logo' === $name ) {
				$value = $this->map[ (int) $value ] ?? 0;
			}
			set_theme_mod( (string) $name, $value );
		}
	}

	/**
	 * Additional CSS and the theme's user global styles.
	 *
	 * @param array<string, mixed> $data The snapshot.
	 */
	private function import_styles( array $data ): void {
		if ( ! empty( $data['customCss'] ) ) {
			$saved = Sitewright_Custom_CSS::save( (string) $data['customCss'] );
			if ( is_wp_error( $saved ) ) {
				$this->warnings[] = $saved->get_error_message();
			}
		}
		if ( ! empty( $data['globalStyles'] ) && is_string( $data['globalStyles'] ) ) {
			$this->save_global_styles( $data['globalStyles'] );
		}
	}

	/**
	 * Saves global styles for the active theme.
	 *
	 * @param string $content JSON.
	 */
	private function save_global_styles( string $content ): void {
		$stylesheet = get_stylesheet();
		$post       = Sitewright_Snapshot::global_styles_post( $stylesheet );
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
