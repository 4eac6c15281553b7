<?php
/**
 * Where visitors see a category or tag: its archive and the published posts that list it, a classic menu item
 * that names it in a menu that is shown, a navigation block that links to it (by id or by address), a widget.
 * A term none of these shows is reachable only by typing its archive's address: not counted (docs/visibility.md).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Places of a term.
 */
final class Sitewright_Term_Places {

	/** The most published posts named (the rest are counted). */
	private const POSTS_LIMIT = 5;

	/** The most menu items read. */
	private const MENU_ITEMS_LIMIT = 50;

	/**
	 * Adds every place that shows the term.
	 *
	 * @param WP_Term           $term   The term.
	 * @param Sitewright_Places $places Places.
	 */
	public static function add( WP_Term $term, Sitewright_Places $places ): void {
		self::add_posts( $term, $places );
		self::add_menus( $term, $places );
		$link  = get_term_link( $term );
		$path  = is_string( $link ) ? untrailingslashit( (string) wp_parse_url( $link, PHP_URL_PATH ) ) : '';
		$links = static fn( string $text ): bool => self::links( $text, $term, $path );
		$hits  = Sitewright_Site_Places::mentioning( array_filter( array( array( 'wp:navigation-', '"id":' . $term->term_id ), '' !== $path ? array( $path ) : array() ) ) );
		if ( null === $hits ) {
			$places->unknown();
		}
		foreach ( (array) $hits as $hit ) {
			if ( $links( $hit->post_content ) ) {
				$navigation = 'wp_navigation' === $hit->post_type;
				Sitewright_Site_Places::add_mention( $places, $hit, $navigation ? '' : __( ' links to it', 'sitewright-connector' ), 'navigation' );
			}
		}
		Sitewright_Site_Places::add_widgets( $places, static fn( string $type, string $text ): bool => $links( $text ) );
	}

	/**
	 * Its archive and the published posts that list it.
	 *
	 * @param WP_Term           $term   The term.
	 * @param Sitewright_Places $places Places.
	 */
	private static function add_posts( WP_Term $term, Sitewright_Places $places ): void {
		$query = new WP_Query(
			array(
				'post_type'           => 'any',
				'post_status'         => Sitewright_Site_Places::PUBLIC_STATUSES,
				'posts_per_page'      => self::POSTS_LIMIT,
				'ignore_sticky_posts' => true,
				'orderby'             => 'ID',
				'order'               => 'ASC',
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_tax_query -- one term, bounded.
				'tax_query'           => array(
					array(
						'taxonomy' => $term->taxonomy,
						'terms'    => array( $term->term_id ),
					),
				),
			)
		);
		if ( ! $query->posts ) {
			return;
		}
		$taxonomy = get_taxonomy( $term->taxonomy );
		$noun     = $taxonomy ? strtolower( (string) $taxonomy->labels->singular_name ) : $term->taxonomy;
		$link     = get_term_link( $term );
		/* translators: 1: category or tag, 2: its name */
		$places->add( 'archive', sprintf( __( 'the archive of %1$s %2$s', 'sitewright-connector' ), $noun, $term->name ), is_string( $link ) ? $link : '' );
		foreach ( $query->posts as $post ) {
			if ( $post instanceof WP_Post ) {
				Sitewright_Site_Places::add_mention( $places, $post, __( ' lists it', 'sitewright-connector' ) );
			}
		}
		$places->add_more( (int) $query->found_posts - count( $query->posts ) );
	}

	/**
	 * The shown classic menus with an item that names it.
	 *
	 * @param WP_Term           $term   The term.
	 * @param Sitewright_Places $places Places.
	 */
	private static function add_menus( WP_Term $term, Sitewright_Places $places ): void {
		$items = get_posts(
			array(
				'post_type'        => 'nav_menu_item',
				'post_status'      => 'publish',
				'numberposts'      => self::MENU_ITEMS_LIMIT,
				'suppress_filters' => true,
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_query -- bounded, as core's own menu queries.
				'meta_query'       => array(
					array(
						'key'   => '_menu_item_type',
						'value' => 'taxonomy',
					),
					array(
						'key'   => '_menu_item_object_id',
						'value' => (string) $term->term_id,
					),
				),
			)
		);
		foreach ( $items as $item ) {
			foreach ( (array) wp_get_object_terms( $item->ID, 'nav_menu' ) as $menu ) {
				if ( $menu instanceof WP_Term && Sitewright_Site_Places::menu_shown( (int) $menu->term_id ) ) {
					/* translators: %s: a menu's name */
					$places->add( 'menu', sprintf( __( 'the classic menu %s', 'sitewright-connector' ), $menu->name ) );
				}
			}
		}
	}

	/**
	 * Whether content (or a widget's settings) links to the term: a navigation link or submenu block with its id and
	 * a taxonomy kind, or its archive's address.
	 *
	 * @param string  $text The content.
	 * @param WP_Term $term The term.
	 * @param string  $path Its archive's path without the trailing slash ('' if none).
	 */
	private static function links( string $text, WP_Term $term, string $path ): bool {
		if ( '' !== $path && preg_match( '#' . preg_quote( $path, '#' ) . '(?:[/"\'?\#<\s\\\\]|$)#m', $text ) ) {
			return true;
		}
		if ( ! preg_match_all( '#<!--\s+wp:navigation-(?:link|submenu)\s+(\{.*?\})\s+/?-->#s', $text, $blocks ) ) {
			return false;
		}
		foreach ( $blocks[1] as $json ) {
			$attrs = json_decode( $json, true );
			if ( ! is_array( $attrs ) || (int) ( $attrs['id'] ?? 0 ) !== (int) $term->term_id ) {
				continue;
			}
			$type = (string) ( $attrs['type'] ?? '' );
			if ( 'taxonomy' === ( $attrs['kind'] ?? '' ) || in_array( $type, array( 'category', 'tag', $term->taxonomy ), true ) ) {
				return true;
			}
		}
		return false;
	}
}
