<?php
/**
 * The SEO fields of a post or page, in the storage of the active SEO plugin: `seo:<post id>`.
 *
 * State: `{plugin, title, description, focusKeyword, canonical, noindex}`; `noindex` is true (keep out of search
 * results), false (index, overriding the plugin's default) or null (the plugin's default). Each plugin keeps these
 * as post meta in its own format, checked against the plugins' public source (docs/plugin.md, "SEO plugins"):
 *
 * - Yoast SEO: `_yoast_wpseo_title`, `_yoast_wpseo_metadesc`, `_yoast_wpseo_focuskw`, `_yoast_wpseo_canonical`,
 *   `_yoast_wpseo_meta-robots-noindex` ('1' noindex, '2' index, absent: default).
 * - Rank Math: `rank_math_title`, `rank_math_description`, `rank_math_focus_keyword` (comma-separated, the first
 *   is the focus keyword), `rank_math_canonical_url`, `rank_math_robots` (an array of tokens: 'noindex' or 'index').
 * - SEOPress: `_seopress_titles_title`, `_seopress_titles_desc`, `_seopress_analysis_target_kw`,
 *   `_seopress_robots_canonical`, `_seopress_robots_index` ('yes' means noindex; absent: default).
 * - The SEO Framework: `_genesis_title`, `_genesis_description`, `_genesis_canonical_uri`, `_genesis_noindex`
 *   ('1' noindex, '-1' index, absent or '0': default); it has no focus keyword.
 *
 * All in One SEO keeps its fields in its own table: detected and reported, not written (the agent says so).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * SEO fields as items.
 */
final class Sitewright_Item_Kind_Seo extends Sitewright_Item_Kind {

	/** Longest text we write into an SEO field. */
	private const MAX_TEXT = 1000;

	/**
	 * Reads the SEO fields of a post.
	 *
	 * @param string $key Post id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		return self::read_seo( (int) $key );
	}

	/**
	 * Why the fields cannot be written, or null.
	 *
	 * @param string               $key    Post id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		return self::refuse_seo_fields( $fields );
	}

	/**
	 * Editing the post (a missing post is answered by the version check: stale).
	 *
	 * @param string               $key    Post id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		return ! get_post( (int) $key ) || current_user_can( 'edit_post', (int) $key );
	}

	/**
	 * Writes the fields in the active plugin's format.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Post id.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write_seo( (int) $key, $fields );
		return is_wp_error( $saved ) ? $saved : $key;
	}

	/**
	 * The SEO fields of a published or scheduled post are in its page's head (search results, shared links).
	 *
	 * @param string               $key    Post id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$post = get_post( (int) $key );
		if ( $post instanceof WP_Post && Sitewright_Site_Places::is_public( (string) get_post_status( $post ) ) ) {
			/* translators: %s: a post, e.g. page 9 “About” */
			$places->add( 'post', sprintf( __( 'the search-engine title and description of %s', 'sitewright-connector' ), Sitewright_Site_Places::post_label( $post ) ), (string) get_permalink( $post ) );
		}
	}

	/**
	 * The supported plugins: id => [name, version constant, meta keys by field]. `noindex` is handled per plugin.
	 *
	 * @return array<string, array{name: string, constant: string, writable: bool, meta: array<string, string>}>
	 */
	public static function plugins(): array {
		return array(
			'yoast'         => array(
				'name'     => 'Yoast SEO',
				'constant' => 'WPSEO_VERSION',
				'writable' => true,
				'meta'     => array(
					'title'        => '_yoast_wpseo_title',
					'description'  => '_yoast_wpseo_metadesc',
					'focusKeyword' => '_yoast_wpseo_focuskw',
					'canonical'    => '_yoast_wpseo_canonical',
					'noindex'      => '_yoast_wpseo_meta-robots-noindex',
				),
			),
			'rank-math'     => array(
				'name'     => 'Rank Math',
				'constant' => 'RANK_MATH_VERSION',
				'writable' => true,
				'meta'     => array(
					'title'        => 'rank_math_title',
					'description'  => 'rank_math_description',
					'focusKeyword' => 'rank_math_focus_keyword',
					'canonical'    => 'rank_math_canonical_url',
					'noindex'      => 'rank_math_robots',
				),
			),
			'seopress'      => array(
				'name'     => 'SEOPress',
				'constant' => 'SEOPRESS_VERSION',
				'writable' => true,
				'meta'     => array(
					'title'        => '_seopress_titles_title',
					'description'  => '_seopress_titles_desc',
					'focusKeyword' => '_seopress_analysis_target_kw',
					'canonical'    => '_seopress_robots_canonical',
					'noindex'      => '_seopress_robots_index',
				),
			),
			'seo-framework' => array(
				'name'     => 'The SEO Framework',
				'constant' => 'THE_SEO_FRAMEWORK_VERSION',
				'writable' => true,
				'meta'     => array(
					'title'       => '_genesis_title',
					'description' => '_genesis_description',
					'canonical'   => '_genesis_canonical_uri',
					'noindex'     => '_genesis_noindex',
				),
			),
			'aioseo'        => array(
				'name'     => 'All in One SEO',
				'constant' => 'AIOSEO_VERSION',
				'writable' => false,
				'meta'     => array(),
			),
		);
	}

	/**
	 * The active SEO plugin as `/info` reports it: `{id, name, version, writable, fields}`, or null.
	 *
	 * @return array<string, mixed>|null
	 */
	public static function active(): ?array {
		$found = null;
		foreach ( self::plugins() as $id => $plugin ) {
			if ( defined( $plugin['constant'] ) ) {
				$found = array(
					'id'      => $id,
					'version' => (string) constant( $plugin['constant'] ),
				);
				break;
			}
		}
		/**
		 * Which SEO plugin's storage Sitewright reads and writes: `{id, version}` or null. Detected by each plugin's
		 * version constant; a site whose SEO plugin is loaded in another way (or a test) may say so here.
		 *
		 * @param array{id: string, version: string}|null $found The detected plugin.
		 */
		$found   = apply_filters( 'sitewright_seo_plugin', $found );
		$plugins = self::plugins();
		if ( ! is_array( $found ) || ! isset( $plugins[ $found['id'] ?? '' ] ) ) {
			return null;
		}
		$plugin = $plugins[ $found['id'] ];
		return array(
			'plugin'   => (string) $found['id'],
			'name'     => $plugin['name'],
			'version'  => (string) ( $found['version'] ?? '' ),
			'writable' => $plugin['writable'],
			'fields'   => array_keys( $plugin['meta'] ),
		);
	}

	/**
	 * Reads the SEO fields of a post: [state|null, title]. Null when the post is missing or no writable SEO plugin
	 * is active.
	 *
	 * @param int $post_id Post id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	private static function read_seo( int $post_id ): array {
		$active = self::active();
		$post   = get_post( $post_id );
		if ( ! $active || ! $active['writable'] || ! $post instanceof WP_Post || ! in_array( $post->post_type, array( 'page', 'post' ), true ) ) {
			return array( null, $post instanceof WP_Post ? $post->post_title : '' );
		}
		wp_cache_delete( $post_id, 'post_meta' );
		$meta  = self::plugins()[ $active['plugin'] ]['meta'];
		$state = array( 'plugin' => $active['plugin'] );
		foreach ( array( 'title', 'description', 'focusKeyword', 'canonical' ) as $field ) {
			$state[ $field ] = isset( $meta[ $field ] ) ? (string) get_post_meta( $post_id, $meta[ $field ], true ) : '';
		}
		$state['noindex'] = self::read_noindex( $active['plugin'], $post_id, $meta['noindex'] );
		return array( $state, $post->post_title );
	}

	/**
	 * The noindex flag in the plugin's format, as true, false or null (the plugin's default).
	 *
	 * @param string $plugin  Plugin id.
	 * @param int    $post_id Post id.
	 * @param string $key     Meta key.
	 */
	private static function read_noindex( string $plugin, int $post_id, string $key ): ?bool {
		$raw = get_post_meta( $post_id, $key, true );
		if ( 'rank-math' === $plugin ) {
			$tokens = is_array( $raw ) ? $raw : array();
			return in_array( 'noindex', $tokens, true ) ? true : ( in_array( 'index', $tokens, true ) ? false : null );
		}
		$raw = (string) $raw;
		if ( 'seopress' === $plugin ) {
			return 'yes' === $raw ? true : null;
		}
		if ( 'yoast' === $plugin ) {
			return '1' === $raw ? true : ( '2' === $raw ? false : null );
		}
		return '1' === $raw ? true : ( '-1' === $raw ? false : null );
	}

	/**
	 * Why the fields cannot be written, or null.
	 *
	 * @param array<string, mixed> $fields Fields.
	 */
	private static function refuse_seo_fields( array $fields ): ?string {
		$active = self::active();
		if ( ! $active || ! $active['writable'] ) {
			return __( 'No SEO plugin whose fields Sitewright can write is active on this site.', 'sitewright-connector' );
		}
		foreach ( $fields as $field => $value ) {
			if ( 'noindex' === $field ) {
				if ( null !== $value && ! is_bool( $value ) ) {
					return __( 'noindex must be true, false or null.', 'sitewright-connector' );
				}
				if ( false === $value && 'seopress' === $active['plugin'] ) {
					return __( 'SEOPress has no per-page "index" setting; give null for its default.', 'sitewright-connector' );
				}
				continue;
			}
			if ( ! in_array( $field, $active['fields'], true ) ) {
				/* translators: 1: a field, 2: an SEO plugin */
				return sprintf( __( '%2$s has no %1$s field.', 'sitewright-connector' ), (string) $field, $active['name'] );
			}
			if ( ! is_string( $value ) || strlen( $value ) > self::MAX_TEXT || wp_strip_all_tags( $value ) !== $value ) {
				/* translators: %s: a field */
				return sprintf( __( '%s must be plain text of at most 1000 bytes.', 'sitewright-connector' ), (string) $field );
			}
			if ( 'canonical' === $field && '' !== $value && ! self::is_web_address( $value ) ) {
				return __( 'canonical must be an http or https address.', 'sitewright-connector' );
			}
		}
		return null;
	}

	/**
	 * Whether a canonical address is an absolute http(s) address that esc_url_raw keeps as it is (no DNS lookup: the
	 * address is the owner's to choose, the site never fetches it).
	 *
	 * @param string $value Address.
	 */
	private static function is_web_address( string $value ): bool {
		$parts = wp_parse_url( $value );
		return is_array( $parts ) && in_array( $parts['scheme'] ?? '', array( 'http', 'https' ), true ) && '' !== ( $parts['host'] ?? '' ) && esc_url_raw( $value ) === $value;
	}

	/**
	 * Writes the fields in the active plugin's format and checks they read back as planned.
	 *
	 * @param int                  $post_id Post id.
	 * @param array<string, mixed> $fields  Fields.
	 * @return true|WP_Error
	 */
	private static function write_seo( int $post_id, array $fields ) {
		$active = (array) self::active();
		$meta   = self::plugins()[ $active['plugin'] ]['meta'];
		foreach ( $fields as $field => $value ) {
			if ( 'noindex' === $field ) {
				self::write_noindex( (string) $active['plugin'], $post_id, $meta['noindex'], $value );
			} elseif ( '' === $value ) {
				delete_post_meta( $post_id, $meta[ $field ] );
			} else {
				update_post_meta( $post_id, $meta[ $field ], wp_slash( (string) $value ) );
			}
		}
		list( $state ) = self::read_seo( $post_id );
		$lost          = array();
		foreach ( $fields as $field => $value ) {
			if ( ( $state[ $field ] ?? null ) !== $value ) {
				$lost[] = array(
					'ref'   => 'seo:' . $post_id,
					'field' => (string) $field,
					'lost'  => sprintf( 'stored %s instead of %s', (string) wp_json_encode( $state[ $field ] ?? null ), (string) wp_json_encode( $value ) ),
				);
			}
		}
		if ( ! $lost ) {
			return true;
		}
		return new WP_Error(
			'sitewright_filtered',
			__( 'The site would have stored something other than the approved change (a filter or another plugin changed it); nothing was written.', 'sitewright-connector' ),
			array(
				'status' => 409,
				'ref'    => 'seo:' . $post_id,
				'lost'   => $lost,
			)
		);
	}

	/**
	 * Writes the noindex flag in the plugin's format (Rank Math: only the index/noindex token of its list changes).
	 *
	 * @param string    $plugin  Plugin id.
	 * @param int       $post_id Post id.
	 * @param string    $key     Meta key.
	 * @param bool|null $value   The flag.
	 */
	private static function write_noindex( string $plugin, int $post_id, string $key, ?bool $value ): void {
		if ( 'rank-math' === $plugin ) {
			$tokens = get_post_meta( $post_id, $key, true );
			$tokens = array_values( array_diff( is_array( $tokens ) ? $tokens : array(), array( 'index', 'noindex' ) ) );
			if ( null !== $value ) {
				array_unshift( $tokens, $value ? 'noindex' : 'index' );
			}
			if ( $tokens ) {
				update_post_meta( $post_id, $key, $tokens );
			} else {
				delete_post_meta( $post_id, $key );
			}
			return;
		}
		$formats = array(
			'yoast'         => array( '1', '2' ),
			'seopress'      => array( 'yes', '' ),
			'seo-framework' => array( '1', '-1' ),
		);
		$raw     = null === $value ? '' : $formats[ $plugin ][ $value ? 0 : 1 ];
		if ( '' === $raw ) {
			delete_post_meta( $post_id, $key );
		} else {
			update_post_meta( $post_id, $key, $raw );
		}
	}
}
