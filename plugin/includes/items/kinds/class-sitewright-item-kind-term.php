<?php
/**
 * `term:<id>` (or `term:new` to create): a category or tag. State: `{taxonomy, name, slug, description, parent}`
 * (`parent` is the parent term's slug, '' for none, so the state reads the same on a copy of the site). Actions:
 * create, update, delete (delete is how undo reverses a creation). A post's own terms are post fields
 * (Sitewright_Post_Terms).
 *
 * Write = plan: the term is read back and a value the site changed while saving (a filter, another plugin) rolls
 * the batch back with `sitewright_filtered`.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Categories and tags as items.
 */
final class Sitewright_Item_Kind_Term extends Sitewright_Item_Kind {

	/**
	 * `term:new` creates a term.
	 */
	public function creatable(): bool {
		return true;
	}

	/**
	 * Reads a term.
	 *
	 * @param string $key Term id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		return 'new' === $key ? array( null, '' ) : self::read_term( (int) $key );
	}

	/**
	 * How many published posts use the term (for the card; visibility is decided by places()).
	 *
	 * @param string $key Term id.
	 * @return array<string, mixed>
	 */
	public function read_info( string $key ): array {
		return array( 'publishedUses' => self::published_uses( (int) $key ) );
	}

	/**
	 * Why a term change is malformed, or null.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		return self::refuse_term_fields( $key, $action, $fields );
	}

	/**
	 * The taxonomy's capabilities.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		return self::user_can( $key, $action, $fields );
	}

	/**
	 * Creates, updates or deletes the term; a creation answers the new id.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Term id or 'new'.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write( $action, 'new' === $key ? 0 : (int) $key, $fields );
		if ( is_wp_error( $saved ) ) {
			return $saved;
		}
		return 'delete' === $action ? $key : (string) $saved;
	}

	/**
	 * A term is seen where Sitewright_Term_Places finds it; a new term is used nowhere yet.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$term = 'new' === $key ? null : get_term( (int) $key );
		if ( $term instanceof WP_Term ) {
			Sitewright_Term_Places::add( $term, $places );
		}
	}

	/**
	 * Reads a term: [state|null, title].
	 *
	 * @param int $id Term id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	private static function read_term( int $id ): array {
		clean_term_cache( $id );
		$term = get_term( $id );
		if ( ! $term instanceof WP_Term || ! in_array( $term->taxonomy, Sitewright_Post_Terms::TAXONOMIES, true ) ) {
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
	private static function published_uses( int $id ): int {
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
	 * Why a term change is malformed, or null.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	private static function refuse_term_fields( string $key, string $action, array $fields ): ?string {
		foreach ( $fields as $name => $value ) {
			if ( ! is_string( $value ) ) {
				/* translators: %s: a field name */
				return sprintf( __( '%s must be a string.', 'sitewright-connector' ), (string) $name );
			}
		}
		if ( 'create' === $action ) {
			if ( ! in_array( $fields['taxonomy'] ?? '', Sitewright_Post_Terms::TAXONOMIES, true ) ) {
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
	private static function user_can( string $key, string $action, array $fields ): bool {
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
	private static function write( string $action, int $id, array $fields ) {
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
		list( $state ) = self::read_term( $id );
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
