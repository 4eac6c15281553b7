<?php
/**
 * The block-theme design items that a `post:<id>` ref cannot express, because the post may not exist yet:
 *
 * - `global_styles:<stylesheet>`: the user's global styles of a block theme (the `wp_global_styles` post WordPress
 *   keeps per theme). State: `{type, customised, settings, styles, css_supported}`. An update merges nothing by
 *   itself (the service sends whole `settings`/`styles` objects); it creates the post when missing, as the Site
 *   Editor does. `customised: false` removes the post again, which is how undo reverses the first write.
 * - `template_part:<slug>`: a template part (header, footer...) of the active block theme. State:
 *   `{type, theme, slug, area, customised, content}`. The first write of a theme-provided part makes it a
 *   customised `wp_template_part` post; `customised: false` removes the customisation (the theme's file shows
 *   again), which is how undo reverses that first write.
 *
 * - `template:<slug>`: a whole template (index, single, page...) of the active block theme, with the same state
 *   (less `area`) and the same rules: the first write customises the theme's file as a `wp_template` post,
 *   `customised: false` removes it again.
 *
 * The global styles item's `info` (outside the version) lists the theme's style variations, so the agent can apply
 * one as the Site Editor does.
 *
 * All kinds follow Sitewright_Items' rules: the version is a hash over the state, and writes run inside its
 * atomic conditional batch.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Global styles, templates and template parts as items.
 */
final class Sitewright_Design_Items {

	/** The kinds this class handles (their fields and scopes are in vocabulary.json's items.kinds). */
	public const KINDS = array( 'global_styles', 'template_part', 'template' );

	/** The post type behind each template kind. */
	private const TEMPLATE_TYPES = array(
		'template_part' => 'wp_template_part',
		'template'      => 'wp_template',
	);

	/** The largest template part or global styles document we write. */
	private const MAX_BYTES = 262144;

	/**
	 * Whether the key is well formed for the kind (a theme directory name or a template part slug).
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 */
	public static function valid_key( string $kind, string $key ): bool {
		return in_array( $kind, self::KINDS, true ) && 1 === preg_match( '/^[a-z0-9][a-z0-9_-]*$/i', $key );
	}

	/**
	 * Reads an item: [state|null, title].
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public static function read( string $kind, string $key ): array {
		if ( 'global_styles' === $kind ) {
			return array( self::global_styles_state( $key ), __( 'Global styles', 'sitewright-connector' ) );
		}
		$template = self::template( $kind, $key );
		if ( ! $template ) {
			return array( null, $key );
		}
		$state = array(
			'type'       => self::TEMPLATE_TYPES[ $kind ],
			'theme'      => (string) $template->theme,
			'slug'       => (string) $template->slug,
			'area'       => (string) $template->area,
			'customised' => 'custom' === $template->source,
			'content'    => (string) $template->content,
		);
		if ( 'template' === $kind ) {
			unset( $state['area'] );
		}
		return array( $state, (string) ( $template->title ? $template->title : $template->slug ) );
	}

	/**
	 * What a reader needs besides the state, outside the version: the theme's style variations for global styles.
	 *
	 * @param string $kind Kind.
	 * @return array<string, mixed>
	 */
	public static function info( string $kind ): array {
		if ( 'global_styles' !== $kind || ! class_exists( 'WP_Theme_JSON_Resolver' ) || ! method_exists( 'WP_Theme_JSON_Resolver', 'get_style_variations' ) ) {
			return array();
		}
		$variations = array();
		foreach ( WP_Theme_JSON_Resolver::get_style_variations() as $variation ) {
			// As the site would store it for this user (core's global-styles filter): what is planned is what is written.
			$stored       = self::as_stored( $variation );
			$variations[] = array(
				'title'    => (string) ( $variation['title'] ?? '' ),
				'settings' => self::as_object( $stored['settings'] ?? array() ),
				'styles'   => self::as_object( $stored['styles'] ?? array() ),
			);
		}
		return array( 'variations' => $variations );
	}

	/**
	 * A theme.json document as WordPress stores it in the user's global styles for the current user: core's
	 * wp_filter_global_styles_post removes insecure properties for a user without unfiltered_html.
	 *
	 * @param array<string, mixed> $data Settings and styles.
	 * @return array<string, mixed>
	 */
	private static function as_stored( array $data ): array {
		$config = array(
			'version'  => class_exists( 'WP_Theme_JSON' ) ? WP_Theme_JSON::LATEST_SCHEMA : 2,
			'settings' => $data['settings'] ?? array(),
			'styles'   => $data['styles'] ?? array(),
		);
		if ( current_user_can( 'unfiltered_html' ) || ! method_exists( 'WP_Theme_JSON', 'remove_insecure_properties' ) ) {
			return $config;
		}
		// WordPress 6.1 warns on presets without a name (themes ship such); the result is the same without the noise.
		set_error_handler( static fn(): bool => true, E_WARNING | E_NOTICE ); // phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_set_error_handler
		try {
			return WP_Theme_JSON::remove_insecure_properties( $config );
		} finally {
			restore_error_handler();
		}
	}

	/**
	 * The post id behind an item, if there is one (for revisions).
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 */
	public static function post_id( string $kind, string $key ): int {
		if ( 'global_styles' === $kind ) {
			$post = self::global_styles_post( $key );
			return $post ? (int) $post->ID : 0;
		}
		$template = self::template( $kind, $key );
		return $template && 'custom' === $template->source ? (int) $template->wp_id : 0;
	}

	/**
	 * Whether a block theme is active and, for global styles, the key names it (we only write the active theme's).
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 */
	public static function applies( string $kind, string $key ): bool {
		if ( ! function_exists( 'wp_is_block_theme' ) || ! wp_is_block_theme() ) {
			return false;
		}
		return 'global_styles' !== $kind || get_stylesheet() === $key;
	}

	/**
	 * The user's global styles of the active theme as state, or null when the key is not the active block theme.
	 *
	 * @param string $stylesheet Theme directory name.
	 * @return array<string, mixed>|null
	 */
	private static function global_styles_state( string $stylesheet ): ?array {
		if ( ! self::applies( 'global_styles', $stylesheet ) ) {
			return null;
		}
		$post   = self::global_styles_post( $stylesheet );
		$config = $post ? json_decode( $post->post_content, true ) : array();
		$config = is_array( $config ) ? $config : array();
		return array(
			'type'          => 'wp_global_styles',
			'customised'    => null !== $post,
			'settings'      => self::as_object( $config['settings'] ?? array() ),
			'styles'        => self::as_object( $config['styles'] ?? array() ),
			'css_supported' => self::global_styles_css_supported(),
		);
	}

	/**
	 * Whether global styles hold custom CSS (`styles.css`, WordPress 6.2+): asked of theme.json's own schema, not of
	 * wp_get_global_styles_custom_css(), which 6.7 deprecated (core prints it with wp_get_global_stylesheet now).
	 */
	public static function global_styles_css_supported(): bool {
		return class_exists( 'WP_Theme_JSON' ) && array_key_exists( 'css', WP_Theme_JSON::VALID_STYLES );
	}

	/**
	 * An empty list becomes an empty object, so the state reads as `{}` and hashes the same way every time.
	 *
	 * @param mixed $value Value.
	 * @return array<string, mixed>|stdClass
	 */
	private static function as_object( $value ) {
		return is_array( $value ) && array() !== $value ? $value : new stdClass();
	}

	/**
	 * The user's `wp_global_styles` post of a theme (any status WordPress reads: publish), uncached.
	 *
	 * @param string $stylesheet Theme directory name.
	 */
	private static function global_styles_post( string $stylesheet ): ?WP_Post {
		$query = new WP_Query(
			array(
				'post_type'              => 'wp_global_styles',
				'post_status'            => array( 'publish' ),
				'posts_per_page'         => 1,
				'orderby'                => 'date',
				'order'                  => 'desc',
				'no_found_rows'          => true,
				'ignore_sticky_posts'    => true,
				'cache_results'          => false,
				'update_post_meta_cache' => false,
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_tax_query -- as core's resolver queries it.
				'tax_query'              => array(
					array(
						'taxonomy' => 'wp_theme',
						'field'    => 'name',
						'terms'    => $stylesheet,
					),
				),
			)
		);
		$post = $query->posts[0] ?? null;
		return $post instanceof WP_Post ? $post : null;
	}

	/**
	 * The active theme's template or template part with this slug (the customised post if any, else the theme's file).
	 *
	 * @param string $kind Kind: template or template_part.
	 * @param string $slug Slug.
	 */
	private static function template( string $kind, string $slug ): ?WP_Block_Template {
		if ( ! isset( self::TEMPLATE_TYPES[ $kind ] ) || ! self::applies( $kind, $slug ) ) {
			return null;
		}
		$type     = self::TEMPLATE_TYPES[ $kind ];
		$template = get_block_template( get_stylesheet() . '//' . $slug, $type );
		if ( $template && 'custom' === $template->source && 'publish' !== get_post_status( (int) $template->wp_id ) ) {
			// A trashed or draft customisation is not what visitors see: the theme's file is.
			$template = get_block_file_template( get_stylesheet() . '//' . $slug, $type );
		}
		return $template instanceof WP_Block_Template ? $template : null;
	}

	/**
	 * Checks a change's fields beyond their names. Returns an error message, or null when fine.
	 *
	 * @param string               $kind   Kind.
	 * @param string               $key    Key.
	 * @param array<string, mixed> $fields Fields.
	 */
	public static function refuse_fields( string $kind, string $key, array $fields ): ?string {
		if ( array_key_exists( 'customised', $fields ) && ! is_bool( $fields['customised'] ) ) {
			return __( 'customised must be true or false.', 'sitewright-connector' );
		}
		if ( isset( self::TEMPLATE_TYPES[ $kind ] ) ) {
			if ( array_key_exists( 'content', $fields ) && ( ! is_string( $fields['content'] ) || strlen( $fields['content'] ) > self::MAX_BYTES ) ) {
				return __( 'content must be block markup of at most 256 KiB.', 'sitewright-connector' );
			}
			if ( false === ( $fields['customised'] ?? null ) && ! get_block_file_template( get_stylesheet() . '//' . $key, self::TEMPLATE_TYPES[ $kind ] ) ) {
				return __( 'This template is not provided by the theme, so there is no theme version to go back to.', 'sitewright-connector' );
			}
			return null;
		}
		foreach ( array( 'settings', 'styles' ) as $name ) {
			if ( array_key_exists( $name, $fields ) && ! is_array( $fields[ $name ] ) ) {
				/* translators: %s: a field name */
				return sprintf( __( '%s must be an object.', 'sitewright-connector' ), $name );
			}
		}
		$css = $fields['styles']['css'] ?? null;
		if ( null !== $css ) {
			if ( ! self::global_styles_css_supported() ) {
				return __( 'This WordPress version has no custom CSS in global styles (it came in 6.2).', 'sitewright-connector' );
			}
			if ( ! is_string( $css ) || preg_match( '#</?\w+#', $css ) || strlen( $css ) > Sitewright_REST_Custom_CSS_Controller::MAX_BYTES ) {
				return __( 'CSS must be plain CSS of at most 64 KiB.', 'sitewright-connector' );
			}
		}
		if ( strlen( (string) wp_json_encode( $fields ) ) > self::MAX_BYTES ) {
			return __( 'Global styles must be at most 256 KiB.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * The capabilities core asks for: edit_theme_options, and edit_css for CSS inside global styles.
	 *
	 * @param string               $kind   Kind.
	 * @param array<string, mixed> $fields Fields.
	 */
	public static function user_can( string $kind, array $fields ): bool {
		if ( ! current_user_can( 'edit_theme_options' ) ) {
			return false;
		}
		return 'global_styles' !== $kind || ! isset( $fields['styles']['css'] ) || current_user_can( 'edit_css' );
	}

	/**
	 * Writes one change (inside Sitewright_Items' transaction and lock).
	 *
	 * @param string               $kind   Kind.
	 * @param string               $key    Key.
	 * @param array<string, mixed> $fields Fields.
	 * @return true|WP_Error
	 */
	public static function write( string $kind, string $key, array $fields ) {
		$saved = 'global_styles' === $kind ? self::write_global_styles( $key, $fields ) : self::write_template( $kind, $key, $fields );
		if ( class_exists( 'WP_Theme_JSON_Resolver' ) ) {
			WP_Theme_JSON_Resolver::clean_cached_data();
		}
		if ( function_exists( 'wp_clean_theme_json_cache' ) ) {
			wp_clean_theme_json_cache();
		}
		if ( true === $saved && 'global_styles' === $kind ) {
			return self::refuse_changed_styles( $key, $fields ) ?? true;
		}
		return $saved;
	}

	/**
	 * Write = plan for global styles: the stored `settings` and `styles` must be the planned ones. Core's kses
	 * filter for global styles (a user without unfiltered_html) drops values it finds unsafe — a gradient with a `;`,
	 * a fluid font size — and a plan the site would store otherwise is refused, naming what would be lost.
	 *
	 * @param string               $stylesheet Theme.
	 * @param array<string, mixed> $fields     Planned fields.
	 */
	private static function refuse_changed_styles( string $stylesheet, array $fields ): ?WP_Error {
		$stored = self::global_styles_state( $stylesheet ) ?? array();
		$lost   = array();
		foreach ( array( 'settings', 'styles' ) as $name ) {
			if ( ! array_key_exists( $name, $fields ) ) {
				continue;
			}
			$planned = Sitewright_Items::version( array( $name => self::as_array( $fields[ $name ] ) ) );
			$kept    = Sitewright_Items::version( array( $name => self::as_array( $stored[ $name ] ?? array() ) ) );
			if ( $planned !== $kept ) {
				$lost[] = array(
					'ref'   => 'global_styles:' . $stylesheet,
					'field' => $name,
					'lost'  => 'the site\'s safety filter for styles would drop or change some of these values',
				);
			}
		}
		if ( ! $lost ) {
			return null;
		}
		return new WP_Error(
			'sitewright_filtered',
			__( 'The site would have stored other styles than the approved ones (its safety filter changes some values); nothing was written.', 'sitewright-connector' ),
			array(
				'status' => 409,
				'ref'    => 'global_styles:' . $stylesheet,
				'lost'   => $lost,
			)
		);
	}

	/**
	 * A JSON value as an array (objects decoded from JSON may be stdClass).
	 *
	 * @param mixed $value Value.
	 * @return array<mixed>
	 */
	private static function as_array( $value ): array {
		$decoded = json_decode( (string) wp_json_encode( $value ), true );
		return is_array( $decoded ) ? $decoded : array();
	}

	/**
	 * Saves the user's global styles (whole `settings` and `styles` objects), creating or removing the post.
	 *
	 * @param string               $stylesheet Theme.
	 * @param array<string, mixed> $fields     Fields.
	 * @return true|WP_Error
	 */
	private static function write_global_styles( string $stylesheet, array $fields ) {
		$post = self::global_styles_post( $stylesheet );
		if ( false === ( $fields['customised'] ?? null ) ) {
			if ( $post && ! wp_delete_post( $post->ID, true ) ) {
				return new WP_Error( 'sitewright_not_deleted', __( 'The global styles could not be reset.', 'sitewright-connector' ), array( 'status' => 500 ) );
			}
			return true;
		}
		$current = $post ? json_decode( $post->post_content, true ) : array();
		$current = is_array( $current ) ? $current : array();
		$config  = array(
			'version'                     => class_exists( 'WP_Theme_JSON' ) ? WP_Theme_JSON::LATEST_SCHEMA : 2,
			'isGlobalStylesUserThemeJSON' => true,
		);
		foreach ( array( 'settings', 'styles' ) as $name ) {
			$value = array_key_exists( $name, $fields ) ? $fields[ $name ] : ( $current[ $name ] ?? array() );
			if ( is_array( $value ) && array() !== $value ) {
				$config[ $name ] = $value;
			}
		}
		// Core's kses filter (wp_filter_global_styles_post) removes unsafe values for users without unfiltered_html.
		$content = wp_slash( (string) wp_json_encode( $config ) );
		if ( $post ) {
			$saved = wp_update_post(
				array(
					'ID'           => $post->ID,
					'post_content' => $content,
				),
				true
			);
		} else {
			$saved = wp_insert_post(
				array(
					'post_content' => $content,
					'post_status'  => 'publish',
					'post_title'   => 'Custom Styles', // Not translatable, as in core (ticket 54518).
					'post_type'    => 'wp_global_styles',
					'post_name'    => sprintf( 'wp-global-styles-%s', rawurlencode( $stylesheet ) ),
				),
				true
			);
			if ( ! is_wp_error( $saved ) ) {
				wp_set_post_terms( (int) $saved, array( $stylesheet ), 'wp_theme' );
			}
		}
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( $saved->get_error_code(), $saved->get_error_message(), array( 'status' => 400 ) );
		}
		return true;
	}

	/**
	 * Saves a template's or template part's content (customising a theme-provided one on first write), or removes the
	 * customisation so the theme's file shows again.
	 *
	 * @param string               $kind   Kind: template or template_part.
	 * @param string               $slug   Slug.
	 * @param array<string, mixed> $fields Fields.
	 * @return true|WP_Error
	 */
	private static function write_template( string $kind, string $slug, array $fields ) {
		$template = self::template( $kind, $slug );
		if ( ! $template ) {
			return new WP_Error( 'rest_invalid_param', __( 'The active theme has no such template.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$type      = self::TEMPLATE_TYPES[ $kind ];
		$custom_id = 'custom' === $template->source ? (int) $template->wp_id : 0;
		if ( ! $custom_id ) {
			// A trashed or draft customisation is replaced, not revived.
			$stale = get_block_template( get_stylesheet() . '//' . $slug, $type );
			if ( $stale && 'custom' === $stale->source ) {
				wp_delete_post( (int) $stale->wp_id, true );
			}
		}
		if ( false === ( $fields['customised'] ?? null ) ) {
			if ( $custom_id && ! wp_delete_post( $custom_id, true ) ) {
				return new WP_Error( 'sitewright_not_deleted', __( 'The template could not be reset to the theme\'s.', 'sitewright-connector' ), array( 'status' => 500 ) );
			}
			return true;
		}
		$content = array_key_exists( 'content', $fields ) ? (string) $fields['content'] : (string) $template->content;
		$saved   = $custom_id ? wp_update_post(
			wp_slash(
				array(
					'ID'           => $custom_id,
					'post_content' => $content,
				)
			),
			true
		) : self::insert_template( $template, $type, $content );
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( $saved->get_error_code(), $saved->get_error_message(), array( 'status' => 400 ) );
		}
		return true;
	}

	/**
	 * Makes a theme's template (or part) a customised post, as the Site Editor does on its first save.
	 *
	 * @param WP_Block_Template $template The theme's template.
	 * @param string            $type     Post type: wp_template or wp_template_part.
	 * @param string            $content  Block markup.
	 * @return int|WP_Error
	 */
	private static function insert_template( WP_Block_Template $template, string $type, string $content ) {
		$saved = wp_insert_post(
			wp_slash(
				array(
					'post_type'    => $type,
					'post_status'  => 'publish',
					'post_name'    => (string) $template->slug,
					'post_title'   => (string) ( $template->title ? $template->title : $template->slug ),
					'post_excerpt' => (string) $template->description,
					'post_content' => $content,
				)
			),
			true
		);
		if ( ! is_wp_error( $saved ) ) {
			wp_set_post_terms( (int) $saved, array( get_stylesheet() ), 'wp_theme' );
			if ( 'wp_template_part' === $type ) {
				wp_set_post_terms( (int) $saved, array( (string) $template->area ), 'wp_template_part_area' );
			}
		}
		return $saved;
	}
}
