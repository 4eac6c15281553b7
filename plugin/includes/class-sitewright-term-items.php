<?php
/**
 * Categories and tags as items, and a post's terms as post fields:
 *
 * - `term:<id>` (or `term:new` to create): a category or tag. State: `{taxonomy, name, slug, description, parent}`
 *   (`parent` is the parent term's slug, '' for none, so the state reads the same on a copy of the site).
 *   Actions: create, update, delete (delete is how undo reverses a creation).
 * - A post's `categories` and `tags` are part of its state (sorted slugs) for the post types that use those
 *   taxonomies; a write gives the whole list. A slug that names no term is refused: create the term first.
 *
 * Writes follow Sitewright_Items' rules (versions, the atomic batch) and write = plan: the term is read back and a
 * value the site changed while saving (a filter, another plugin) rolls the batch back with `sitewright_filtered`.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Terms as items.
 */
final class Sitewright_Term_Items {

	/** The taxonomies Sitewright reads and writes, by the post field that lists a post's terms of it. */
	public const TAXONOMIES = array(
		'categories' => 'category',
		'tags'       => 'post_tag',
	);

	/** Fields a term change may carry. */
	public const FIELDS = array( 'taxonomy', 'name', 'slug', 'description', 'parent' );

	/** Post fields this class adds to a post's state (when its type uses the taxonomy). */
	public const POST_FIELDS = array( 'categories', 'tags' );

	/**
	 * Reads a term: [state|null, title].
	 *
	 * @param int $id Term id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public static function read( int $id ): array {
		clean_term_cache( $id );
		$term = get_term( $id );
		if ( ! $term instanceof WP_Term || ! in_array( $term->taxonomy, self::TAXONOMIES, true ) ) {
			return array( null, '' );
		}
		return array( self::state( $term ), $term->name );
	}

	/**
	 * A term's restorable state.
	 *
	 * @param WP_Term $term Term.
	 * @return array<string, mixed>
	 */
	private static function state( WP_Term $term ): array {
		$parent = $term->parent ? get_term( (int) $term->parent, $term->taxonomy ) : null;
		return array(
			'taxonomy'    => $term->taxonomy,
			'name'        => $term->name,
			'slug'        => $term->slug,
			'description' => $term->description,
			'parent'      => $parent instanceof WP_Term ? $parent->slug : '',
		);
	}

	/**
	 * How many published posts use a term (visitors see a term on its archive and on those posts).
	 *
	 * @param int $id Term id.
	 */
	public static function published_uses( int $id ): int {
		$term = get_term( $id );
		if ( ! $term instanceof WP_Term ) {
			return 0;
		}
		$query = new WP_Query(
			array(
				'post_type'      => 'any',
				'post_status'    => array( 'publish', 'future' ),
				'posts_per_page' => 1,
				'fields'         => 'ids',
				'no_found_rows'  => false,
				// phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_tax_query -- one term, counted once per read.
				'tax_query'      => array(
					array(
						'taxonomy' => $term->taxonomy,
						'terms'    => array( $id ),
					),
				),
			)
		);
		return (int) $query->found_posts;
	}

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

	/**
	 * Why a term change is malformed, or null.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public static function refuse_fields( string $key, string $action, array $fields ): ?string {
		foreach ( $fields as $name => $value ) {
			if ( ! is_string( $value ) ) {
				/* translators: %s: a field name */
				return sprintf( __( '%s must be a string.', 'sitewright-connector' ), (string) $name );
			}
		}
		if ( 'create' === $action ) {
			if ( ! in_array( $fields['taxonomy'] ?? '', self::TAXONOMIES, true ) ) {
				return __( 'Give taxonomy "category" or "post_tag" to create a term.', 'sitewright-connector' );
			}
			if ( '' === trim( (string) ( $fields['name'] ?? '' ) ) ) {
				return __( 'A new term needs a name.', 'sitewright-connector' );
			}
		} elseif ( array_key_exists( 'taxonomy', $fields ) ) {
			return __( 'A term cannot move to another taxonomy.', 'sitewright-connector' );
		}
		if ( isset( $fields['name'] ) && wp_strip_all_tags( $fields['name'] ) !== $fields['name'] ) {
			return __( 'A term name is plain text.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Whether the agent user may make the change.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public static function user_can( string $key, string $action, array $fields ): bool {
		if ( 'create' === $action ) {
			$taxonomy = get_taxonomy( (string) ( $fields['taxonomy'] ?? '' ) );
			return $taxonomy && current_user_can( $taxonomy->cap->edit_terms );
		}
		if ( ! get_term( (int) $key ) ) {
			return true; // The version check answers a missing term (stale).
		}
		return current_user_can( 'delete' === $action ? 'delete_term' : 'edit_term', (int) $key );
	}

	/**
	 * Creates, updates or deletes a term and checks it reads back as planned. Returns the term id.
	 *
	 * @param string               $action Action.
	 * @param int                  $id     Term id (0 to create).
	 * @param array<string, mixed> $fields Fields.
	 * @return int|WP_Error
	 */
	public static function write( string $action, int $id, array $fields ) {
		if ( 'delete' === $action ) {
			$term    = get_term( $id );
			$deleted = $term instanceof WP_Term ? wp_delete_term( $id, $term->taxonomy ) : false;
			return true === $deleted ? $id : new WP_Error( 'sitewright_not_deleted', __( 'The term could not be deleted.', 'sitewright-connector' ), array( 'status' => 500 ) );
		}
		$taxonomy = 'create' === $action ? (string) $fields['taxonomy'] : (string) get_term( $id )->taxonomy;
		$args     = array();
		foreach ( array( 'slug', 'description' ) as $field ) {
			if ( array_key_exists( $field, $fields ) ) {
				$args[ $field ] = (string) $fields[ $field ];
			}
		}
		if ( array_key_exists( 'parent', $fields ) ) {
			$parent = '' === $fields['parent'] ? null : get_term_by( 'slug', (string) $fields['parent'], $taxonomy );
			if ( false === $parent ) {
				return new WP_Error( 'rest_invalid_param', __( 'The parent term does not exist.', 'sitewright-connector' ), array( 'status' => 400 ) );
			}
			$args['parent'] = $parent instanceof WP_Term ? (int) $parent->term_id : 0;
		}
		if ( 'create' === $action ) {
			$saved = wp_insert_term( wp_slash( (string) $fields['name'] ), $taxonomy, wp_slash( $args ) );
		} else {
			if ( array_key_exists( 'name', $fields ) ) {
				$args['name'] = (string) $fields['name'];
			}
			$saved = wp_update_term( $id, $taxonomy, wp_slash( $args ) );
		}
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( $saved->get_error_code(), $saved->get_error_message(), array( 'status' => 400 ) );
		}
		$term_id = (int) $saved['term_id'];
		return self::refuse_changed( $term_id, $fields ) ?? $term_id;
	}

	/**
	 * Write = plan: every planned field reads back as planned, or the batch is refused.
	 *
	 * @param int                  $id     Term id.
	 * @param array<string, mixed> $fields Planned fields.
	 */
	private static function refuse_changed( int $id, array $fields ): ?WP_Error {
		list( $state ) = self::read( $id );
		$lost          = array();
		foreach ( $fields as $field => $planned ) {
			if ( 'slug' === $field && '' === $planned ) {
				continue; // An empty slug asks WordPress to make one from the name.
			}
			$stored = (string) ( $state[ $field ] ?? '' );
			if ( $stored !== (string) $planned ) {
				$lost[] = array(
					'ref'   => 'term:' . $id,
					'field' => (string) $field,
					'lost'  => sprintf( 'stored "%s" instead of "%s"', $stored, (string) $planned ),
				);
			}
		}
		if ( ! $lost ) {
			return null;
		}
		return new WP_Error(
			'sitewright_filtered',
			__( 'The site would have stored something other than the approved change (a filter or another plugin changed it); nothing was written.', 'sitewright-connector' ),
			array(
				'status' => 409,
				'ref'    => 'term:' . $id,
				'lost'   => $lost,
			)
		);
	}
}
