<?php
/**
 * Where WordPress shows things to visitors, asked of WordPress's own data: published and scheduled posts that
 * mention something in their content, featured images, widgets in sidebars, classic menus in a location, the site
 * logo and icon, attachment pages. The item kinds use these to say where a change would be seen
 * (docs/visibility.md). Every search is bounded: a LIKE over published content limited to CANDIDATES rows, each
 * confirmed in PHP; when the bound is reached the item counts as visible.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Finders of places.
 */
final class Sitewright_Site_Places {

	/** Statuses visitors see, or will see without another click (a scheduled post publishes itself). */
	public const PUBLIC_STATUSES = array( 'publish', 'future' );

	/** The most posts a content search reads; beyond it the item counts as visible. */
	private const CANDIDATES = 200;

	/** Post types whose content no visitor sees (they are not pages, or they are what we ask about). */
	private const UNSHOWN_TYPES = array( 'revision', 'nav_menu_item', 'attachment', 'customize_changeset', 'oembed_cache', 'user_request', 'wp_global_styles' );

	/**
	 * Whether a status is one visitors see.
	 *
	 * @param string $status Status (as get_post_status() resolves it).
	 */
	public static function is_public( string $status ): bool {
		return in_array( $status, self::PUBLIC_STATUSES, true );
	}

	/**
	 * How a person names a post on the card: `page 9 “About”`, `post 12 “Our bakery”`.
	 *
	 * @param WP_Post $post Post.
	 */
	public static function post_label( WP_Post $post ): string {
		$object = get_post_type_object( $post->post_type );
		$noun   = $object ? strtolower( (string) $object->labels->singular_name ) : $post->post_type;
		$title  = '' !== $post->post_title ? $post->post_title : __( '(no title)', 'sitewright-connector' );
		/* translators: 1: a kind of post, 2: its id, 3: its title */
		return sprintf( __( '%1$s %2$d “%3$s”', 'sitewright-connector' ), $noun, $post->ID, $title );
	}

	/**
	 * Where a published post is seen: its own page, or the part of the design it is.
	 *
	 * @param WP_Post $post Post.
	 * @return array{0: string, 1: string, 2: string} Kind, label, url.
	 */
	public static function where( WP_Post $post ): array {
		if ( 'wp_template_part' === $post->post_type ) {
			/* translators: %s: a template part's slug, e.g. header */
			return array( 'template_part', sprintf( __( 'the %s template part', 'sitewright-connector' ), $post->post_name ), '' );
		}
		if ( 'wp_template' === $post->post_type ) {
			/* translators: %s: a template's slug, e.g. single */
			return array( 'template', sprintf( __( 'the %s template', 'sitewright-connector' ), $post->post_name ), '' );
		}
		if ( 'wp_navigation' === $post->post_type ) {
			/* translators: %s: a navigation menu's title */
			return array( 'navigation', sprintf( __( 'the navigation block “%s”', 'sitewright-connector' ), $post->post_title ), '' );
		}
		if ( 'wp_global_styles' === $post->post_type ) {
			return array( 'design', __( 'the site-wide global styles', 'sitewright-connector' ), '' );
		}
		return array( 'post', self::post_label( $post ), (string) get_permalink( $post ) );
	}

	/**
	 * Adds where a post that mentions something shows it; a synced pattern shows it wherever the pattern is used.
	 *
	 * @param Sitewright_Places $places Places.
	 * @param WP_Post           $hit    The published post whose content mentions the thing.
	 * @param string            $how    How it shows it, appended to the label (e.g. " shows it in a [gallery]").
	 * @param string            $kind   The place kind, if not the post's own (e.g. gallery).
	 */
	public static function add_mention( Sitewright_Places $places, WP_Post $hit, string $how, string $kind = '' ): void {
		if ( 'wp_block' === $hit->post_type ) {
			self::add_pattern_uses( $places, $hit );
			return;
		}
		list( $own, $label, $url ) = self::where( $hit );
		$places->add( '' !== $kind ? $kind : $own, $label . $how, $url );
	}

	/**
	 * The published and scheduled posts whose content matches any group of LIKE patterns (each group's patterns
	 * all present), or null when more than CANDIDATES match (too many to read: the caller counts it as visible).
	 *
	 * @param array<int, array<int, string>> $groups  Groups of plain substrings (escaped here).
	 * @param int                            $include A post to read whatever its content (0: none).
	 * @return array<int, WP_Post>|null
	 */
	public static function mentioning( array $groups, int $include = 0 ): ?array {
		global $wpdb;
		$clauses = array();
		$values  = array();
		foreach ( $groups as $group ) {
			$clauses[] = '(' . implode( ' AND ', array_fill( 0, count( $group ), 'post_content LIKE %s' ) ) . ')';
			foreach ( $group as $needle ) {
				$values[] = '%' . $wpdb->esc_like( $needle ) . '%';
			}
		}
		$clauses[] = 'ID = %d';
		$values[]  = $include;
		$types     = implode( ',', array_fill( 0, count( self::UNSHOWN_TYPES ), '%s' ) );
		$sql       = "SELECT ID FROM {$wpdb->posts} WHERE post_status IN ('publish', 'future') AND post_type NOT IN ($types) AND (" . implode( ' OR ', $clauses ) . ') ORDER BY ID LIMIT %d';
		$values    = array_merge( self::UNSHOWN_TYPES, $values, array( self::CANDIDATES + 1 ) );
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
		$ids = array_map( 'intval', (array) $wpdb->get_col( $wpdb->prepare( $sql, $values ) ) );
		if ( count( $ids ) > self::CANDIDATES ) {
			return null;
		}
		return array_values( array_filter( array_map( 'get_post', $ids ), static fn( $post ) => $post instanceof WP_Post ) );
	}

	/**
	 * Adds the places of a synced pattern (`wp_block`): every published post, template or widget that embeds it
	 * with `<!-- wp:block {"ref":N} /-->`. A pattern inside another pattern counts as shown (erring on visible).
	 *
	 * @param Sitewright_Places $places  Places.
	 * @param WP_Post           $pattern The pattern.
	 */
	public static function add_pattern_uses( Sitewright_Places $places, WP_Post $pattern ): void {
		$pattern_regex = '/<!--\s+wp:block\s+\{[^}]*"ref":' . $pattern->ID . '(?!\d)/';
		$hits          = self::mentioning( array( array( '"ref":' . $pattern->ID ) ) );
		if ( null === $hits ) {
			$places->unknown();
			return;
		}
		/* translators: %s: a synced pattern's title */
		$name = sprintf( __( 'the synced pattern “%s”', 'sitewright-connector' ), $pattern->post_title );
		foreach ( $hits as $hit ) {
			if ( $hit->ID === $pattern->ID || ! preg_match( $pattern_regex, $hit->post_content ) ) {
				continue;
			}
			if ( 'wp_block' === $hit->post_type ) {
				/* translators: %s: a synced pattern's title */
				$places->add( 'pattern', sprintf( __( 'the synced pattern “%s”', 'sitewright-connector' ), $hit->post_title ) );
				continue;
			}
			list( , $label, $url ) = self::where( $hit );
			/* translators: 1: a synced pattern, 2: where it is used */
			$places->add( 'pattern', sprintf( __( '%1$s used by %2$s', 'sitewright-connector' ), $name, $label ), $url );
		}
		self::add_widgets(
			$places,
			static fn( string $type, string $text ): bool => 1 === preg_match( $pattern_regex, $text ),
			/* translators: %s: a synced pattern */
			sprintf( __( '%s in a widget', 'sitewright-connector' ), $name )
		);
	}

	/**
	 * Adds every active widget that matches, as "a widget in <sidebar>" (or the given label and the sidebar).
	 *
	 * @param Sitewright_Places $places Places.
	 * @param callable          $match  Whether a widget shows it: fn( string $widget_type, string $flat_instance ): bool.
	 * @param string            $what   What the widget shows, when worth saying.
	 */
	public static function add_widgets( Sitewright_Places $places, callable $match, string $what = '' ): void {
		global $wp_registered_sidebars;
		// The stored assignment, not wp_get_sidebars_widgets(): that keeps the first copy a process read.
		foreach ( (array) get_option( 'sidebars_widgets', array() ) as $sidebar => $ids ) {
			if ( 'wp_inactive_widgets' === $sidebar || str_starts_with( (string) $sidebar, 'orphaned_widgets' ) || ! is_array( $ids ) ) {
				continue;
			}
			$name = (string) ( $wp_registered_sidebars[ $sidebar ]['name'] ?? $sidebar );
			foreach ( $ids as $widget_id ) {
				$instance = self::widget_instance( (string) $widget_id );
				if ( null === $instance || ! $match( $instance[0], self::flatten( $instance[1] ) ) ) {
					continue;
				}
				/* translators: %s: a sidebar's name */
				$label = sprintf( __( 'a widget in %s', 'sitewright-connector' ), $name );
				$places->add( 'widget', '' !== $what ? $what . ' (' . $label . ')' : $label );
			}
		}
	}

	/**
	 * A widget's type and settings from its id (`media_image-3` → the option `widget_media_image`, index 3).
	 *
	 * @param string $widget_id Widget id.
	 * @return array{0: string, 1: array<mixed>}|null
	 */
	private static function widget_instance( string $widget_id ): ?array {
		if ( ! preg_match( '/^(.+)-(\d+)$/', $widget_id, $m ) ) {
			return null;
		}
		$all = get_option( 'widget_' . $m[1] );
		$one = is_array( $all ) ? ( $all[ (int) $m[2] ] ?? null ) : null;
		return is_array( $one ) ? array( $m[1], $one ) : null;
	}

	/**
	 * A widget's settings as lines `key=value` (a list of scalars as `key=1,2,3`), for matching by pattern.
	 *
	 * @param array<mixed> $values Settings.
	 */
	private static function flatten( array $values ): string {
		$lines = array();
		foreach ( $values as $key => $value ) {
			if ( is_array( $value ) && array_is_list( $value ) && array_filter( $value, 'is_scalar' ) === $value ) {
				$lines[] = $key . '=' . implode( ',', array_map( 'strval', $value ) );
			} elseif ( is_array( $value ) ) {
				$lines[] = self::flatten( $value );
			} elseif ( is_scalar( $value ) ) {
				$lines[] = $key . '=' . (string) $value;
			}
		}
		return implode( "\n", $lines );
	}

	/**
	 * Whether a classic menu is shown: in a theme location, in a navigation menu widget, or on a block theme (whose
	 * navigation block falls back to a classic menu when it has no navigation of its own: erring on visible).
	 *
	 * @param int $menu_id Menu term id.
	 */
	public static function menu_shown( int $menu_id ): bool {
		if ( in_array( $menu_id, array_map( 'intval', (array) get_nav_menu_locations() ), true ) ) {
			return true;
		}
		$probe = new Sitewright_Places();
		self::add_widgets( $probe, static fn( string $type, string $text ): bool => 'nav_menu' === $type && 1 === preg_match( '/^nav_menu=' . $menu_id . '$/m', $text ) );
		return $probe->visible() || ( function_exists( 'wp_is_block_theme' ) && wp_is_block_theme() );
	}

	/**
	 * Whether attachment pages show an image's title, caption and description. Before WordPress 6.4 they always
	 * exist; from 6.4 the option `wp_attachment_pages_enabled` turns them off (a missing one counts as on).
	 *
	 * @param string|null $version WordPress version (null: this site's).
	 * @param mixed       $option  The option's value (null: this site's).
	 */
	public static function attachment_pages_enabled( ?string $version = null, $option = null ): bool {
		$version = $version ?? (string) get_bloginfo( 'version' );
		if ( version_compare( $version, '6.4-alpha', '<' ) ) {
			return true;
		}
		// As core decides (redirecting an attachment page to its file when the option is falsy).
		return (bool) ( $option ?? get_option( 'wp_attachment_pages_enabled', '1' ) );
	}
}
