<?php
/**
 * A post's categories and tags as post fields: `categories` and `tags` are part of a post's state (sorted slugs) for
 * the post types that use those taxonomies; a write gives the whole list. A slug that names no term is refused:
 * create the term first (a `term:new` item).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * A post's terms.
 */
final class Sitewright_Post_Terms {

	/** The taxonomies Sitewright reads and writes, by the post field that lists a post's terms of it. */
	public const TAXONOMIES = array(
		'categories' => 'category',
		'tags'       => 'post_tag',
	);

	/**
	 * The terms part of a post's state.
	 *
	 * @param WP_Post $post Post.
	 * @return array<string, array<int, string>>
	 */
	public static function post_state( WP_Post $post ): array {
		$state = array();
		foreach ( self::TAXONOMIES as $field => $taxonomy ) {
			if ( ! is_object_in_taxonomy( $post->post_type, $taxonomy ) ) {
				continue;
			}
			$slugs = wp_get_object_terms( $post->ID, $taxonomy, array( 'fields' => 'slugs' ) );
			$slugs = is_array( $slugs ) ? array_map( 'strval', $slugs ) : array();
			sort( $slugs, SORT_STRING );
			$state[ $field ] = $slugs;
		}
		return $state;
	}

	/**
	 * Why these post fields cannot be written (unknown slugs, a taxonomy the type does not use), or null.
	 *
	 * @param string               $type   Post type.
	 * @param array<string, mixed> $fields Fields of the change.
	 */
	public static function refuse_post_fields( string $type, array $fields ): ?string {
		foreach ( self::TAXONOMIES as $field => $taxonomy ) {
			if ( ! array_key_exists( $field, $fields ) ) {
				continue;
			}
			if ( ! is_object_in_taxonomy( $type, $taxonomy ) ) {
				/* translators: %s: a post field */
				return sprintf( __( 'This kind of item has no %s.', 'sitewright-connector' ), $field );
			}
			if ( ! is_array( $fields[ $field ] ) || ! array_is_list( $fields[ $field ] ) ) {
				/* translators: %s: a post field */
				return sprintf( __( '%s must be a list of slugs.', 'sitewright-connector' ), $field );
			}
			foreach ( $fields[ $field ] as $slug ) {
				if ( ! is_string( $slug ) || ! get_term_by( 'slug', $slug, $taxonomy ) ) {
					/* translators: 1: a slug, 2: a taxonomy */
					return sprintf( __( 'There is no %2$s with the slug "%1$s"; create it first.', 'sitewright-connector' ), is_string( $slug ) ? $slug : '?', $taxonomy );
				}
			}
		}
		return null;
	}

	/**
	 * Sets a post's terms as the fields list them (each list replaces the post's terms of that taxonomy).
	 *
	 * @param int                  $post_id Post.
	 * @param array<string, mixed> $fields  Fields of the change.
	 * @return true|WP_Error
	 */
	public static function write_post_terms( int $post_id, array $fields ) {
		foreach ( self::TAXONOMIES as $field => $taxonomy ) {
			if ( ! array_key_exists( $field, $fields ) ) {
				continue;
			}
			$ids = array();
			foreach ( (array) $fields[ $field ] as $slug ) {
				$term = get_term_by( 'slug', (string) $slug, $taxonomy );
				if ( ! $term instanceof WP_Term ) {
					return new WP_Error( 'rest_invalid_param', __( 'A term to assign does not exist.', 'sitewright-connector' ), array( 'status' => 400 ) );
				}
				$ids[] = (int) $term->term_id;
			}
			$set = wp_set_object_terms( $post_id, $ids, $taxonomy );
			if ( is_wp_error( $set ) ) {
				return new WP_Error( $set->get_error_code(), $set->get_error_message(), array( 'status' => 400 ) );
			}
		}
		return true;
	}
}
