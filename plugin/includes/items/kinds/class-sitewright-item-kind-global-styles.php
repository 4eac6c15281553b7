<?php
/**
 * `global_styles:<stylesheet>`: the user's global styles of the active block theme (the `wp_global_styles` post
 * WordPress keeps per theme). State: `{type, customised, settings, styles, css_supported}`. An update merges nothing
 * by itself (the service sends whole `settings`/`styles` objects); it creates the post when missing, as the Site
 * Editor does. `customised: false` removes the post again, which is how undo reverses the first write. The item's
 * `info` (outside the version) lists the theme's style variations, so the agent can apply one as the Site Editor
 * does.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Global styles as an item.
 */
final class Sitewright_Item_Kind_Global_Styles extends Sitewright_Block_Theme_Item_Kind {

	/**
	 * Reads the user's global styles (null unless the key is the active block theme).
	 *
	 * @param string $key Theme directory name.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		return array( self::global_styles_state( $key ), __( 'Global styles', 'sitewright-connector' ) );
	}

	/**
	 * The theme's style variations.
	 *
	 * @param string $key Theme directory name.
	 * @return array<string, mixed>
	 */
	public function read_info( string $key ): array {
		return self::style_variations();
	}

	/**
	 * Whole `settings` and `styles` objects; custom CSS only where WordPress has it (6.2+), plain and at most 64 KiB.
	 *
	 * @param string               $key    Theme directory name.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		$refused = self::refuse_customised( $fields );
		if ( null !== $refused ) {
			return $refused;
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
	 * Saves the styles and checks they were stored as planned.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Theme directory name.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write_global_styles( $key, $fields );
		self::clean_theme_json();
		if ( true === $saved ) {
			$saved = self::refuse_changed_styles( $key, $fields ) ?? true;
		}
		return is_wp_error( $saved ) ? $saved : $key;
	}

	/**
	 * The `wp_global_styles` post's id, or 0.
	 *
	 * @param string $key Theme directory name.
	 */
	public function post_id( string $key ): int {
		$post = self::global_styles_post( $key );
		return $post ? (int) $post->ID : 0;
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
		$places->add( 'design', __( 'the site-wide global styles', 'sitewright-connector' ), home_url( '/' ) );
	}

	/**
	 * What a reader needs besides the state, outside the version: the theme's style variations.
	 *
	 * @return array<string, mixed>
	 */
	private static function style_variations(): array {
		if ( ! class_exists( 'WP_Theme_JSON_Resolver' ) || ! method_exists( 'WP_Theme_JSON_Resolver', 'get_style_variations' ) ) {
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
	private static function global_styles_css_supported(): bool {
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
		// Core's kses filter (wp_filter_global_styles_post) removes unsafe values for users without unfiltered_html;
		// values it would drop that are the theme's own stay (see keeps_theme_values).
		$content = wp_slash( (string) wp_json_encode( $config ) );
		$lifted  = self::keeps_theme_values( $config ) && self::lift_styles_filter();
		try {
			$saved = self::save_global_styles( $stylesheet, $post, $content );
		} finally {
			if ( $lifted ) {
				add_filter( 'content_save_pre', 'wp_filter_global_styles_post', 9 );
				add_filter( 'content_filtered_save_pre', 'wp_filter_global_styles_post', 9 );
			}
		}
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( $saved->get_error_code(), $saved->get_error_message(), array( 'status' => 400 ) );
		}
		return true;
	}

	/**
	 * Takes core's styles filter off for one save, when it is on (it is for a user without unfiltered_html).
	 */
	private static function lift_styles_filter(): bool {
		if ( false === has_filter( 'content_save_pre', 'wp_filter_global_styles_post' ) ) {
			return false;
		}
		remove_filter( 'content_save_pre', 'wp_filter_global_styles_post', 9 );
		remove_filter( 'content_filtered_save_pre', 'wp_filter_global_styles_post', 9 );
		return true;
	}

	/**
	 * Whether everything core's styles filter would drop from a planned config is the active theme's own: its
	 * theme.json ships the same value at the same place (Twenty Twenty-Five's `color-mix()` accent, which the filter
	 * drops, is copied into the user's palette whenever another colour of the palette changes, as the Site Editor
	 * does). Those bytes are the theme's, not the model's; writing them keeps the site as it was. Anything else the
	 * filter would drop stays dropped, and the write is refused (refuse_changed_styles).
	 *
	 * @param array<string, mixed> $config The planned document.
	 */
	private static function keeps_theme_values( array $config ): bool {
		if ( ! method_exists( 'WP_Theme_JSON', 'remove_insecure_properties' ) || ! class_exists( 'WP_Theme_JSON_Resolver' ) ) {
			return false;
		}
		$planned = array_intersect_key( $config, array_flip( array( 'version', 'settings', 'styles' ) ) );
		set_error_handler( static fn(): bool => true, E_WARNING | E_NOTICE ); // phpcs:ignore WordPress.PHP.DevelopmentFunctions.error_log_set_error_handler
		try {
			$kept = WP_Theme_JSON::remove_insecure_properties( $planned );
		} finally {
			restore_error_handler();
		}
		$theme = WP_Theme_JSON_Resolver::get_theme_data()->get_raw_data();
		foreach ( array( 'settings', 'styles' ) as $name ) {
			if ( ! self::dropped_are_theme_values( $planned[ $name ] ?? null, $kept[ $name ] ?? null, $theme[ $name ] ?? null ) ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Walks a planned value beside what the filter kept and the theme's value at the same place: true when every
	 * part the filter dropped or changed equals the theme's. Lists (presets) are compared entry by entry.
	 *
	 * @param mixed $planned Planned value.
	 * @param mixed $kept    What the filter kept.
	 * @param mixed $theme   The theme's value at the same place.
	 */
	private static function dropped_are_theme_values( $planned, $kept, $theme ): bool {
		if ( $planned == $kept ) { // phpcs:ignore Universal.Operators.StrictComparisons.LooseEqual -- key order is not meaning.
			return true;
		}
		if ( ! is_array( $planned ) || ! is_array( $kept ) || ! is_array( $theme ) ) {
			return $planned == $theme; // phpcs:ignore Universal.Operators.StrictComparisons.LooseEqual -- key order is not meaning.
		}
		if ( array_is_list( $planned ) ) {
			foreach ( $planned as $entry ) {
				if ( ! in_array( $entry, $kept, false ) && ! in_array( $entry, $theme, false ) ) { // phpcs:ignore WordPress.PHP.StrictInArray.FoundNonStrictFalse -- key order is not meaning.
					return false;
				}
			}
			return true;
		}
		foreach ( $planned as $key => $value ) {
			if ( ! self::dropped_are_theme_values( $value, $kept[ $key ] ?? null, $theme[ $key ] ?? null ) ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Creates or updates the user's global styles post.
	 *
	 * @param string       $stylesheet Theme.
	 * @param WP_Post|null $post       The post, when there is one.
	 * @param string       $content    Slashed JSON.
	 * @return int|WP_Error
	 */
	private static function save_global_styles( string $stylesheet, ?WP_Post $post, string $content ) {
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
		return $saved;
	}
}
