<?php
/**
 * Write = plan (docs/change-sets.md, "Exactness"): what a Sitewright write stores is exactly what the owner approved.
 *
 * - Bytes the agent did not change are never filtered again: a post is written with kses off, so an administrator's
 *   iframe, form or script next to an edited paragraph stays as it is.
 * - The bytes the agent did change (the changed range of each text field, widened to whole tags, comments and
 *   raw-text elements) must pass the filter the field would get for this user (kses without unfiltered_html);
 *   when the filter would change them, nothing is written: `409 sitewright_filtered` says what would be lost.
 * - A value the site itself held before a Sitewright write (recorded as a hash when the write overwrote it) is
 *   written back as it was: that is how undo restores markup the agent could never write itself, and only that.
 * - After the write the post is read back: every planned field must read as planned and every other field as before
 *   (a `save_post` hook, `wp_insert_post_data`, another plugin, slug uniqueness); otherwise the batch rolls back.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The exactness checks of post writes.
 */
final class Sitewright_Exact_Write {

	/** Post meta holding hashes of values the site held before Sitewright overwrote them. */
	public const RESTORABLE_META = '_sitewright_restorable';

	/** Hashes kept per post (the oldest are dropped). */
	private const RESTORABLE_MAX = 200;

	/** Elements whose content is raw text (or a document): a change inside one is a change of the whole element. */
	private const RAW_TEXT = array( 'script', 'style', 'textarea', 'iframe', 'noscript', 'title', 'xmp', 'template', 'object' );

	/** Text fields and the kses context each gets on save. */
	private const TEXT_FIELDS = array(
		'title'   => 'title_save_pre',
		'content' => 'post',
		'excerpt' => 'post',
	);

	/** Columns of the fields compared after the write. */
	private const COLUMNS = array(
		'title'      => 'post_title',
		'content'    => 'post_content',
		'excerpt'    => 'post_excerpt',
		'status'     => 'post_status',
		'slug'       => 'post_name',
		'parent'     => 'post_parent',
		'menu_order' => 'menu_order',
		'date_local' => 'post_date',
	);

	/**
	 * The hash a restorable value is recorded under.
	 *
	 * @param string $field Field.
	 * @param string $value Value.
	 */
	private static function hash( string $field, string $value ): string {
		return $field . ':' . hash( 'sha256', $value );
	}

	/**
	 * Whether the site itself held this value of the field before a Sitewright write.
	 *
	 * @param int    $post_id Post id.
	 * @param string $field   Field.
	 * @param string $value   Value.
	 */
	public static function is_restorable( int $post_id, string $field, string $value ): bool {
		if ( $post_id <= 0 ) {
			return false;
		}
		$known = get_post_meta( $post_id, self::RESTORABLE_META, false );
		return in_array( self::hash( $field, $value ), is_array( $known ) ? $known : array(), true );
	}

	/**
	 * Records the values a write is about to overwrite (they came from the site, so undo may write them back).
	 *
	 * @param WP_Post              $post   The post before the write.
	 * @param array<string, mixed> $fields The planned fields.
	 */
	public static function remember_overwritten( WP_Post $post, array $fields ): void {
		foreach ( self::TEXT_FIELDS as $field => $context ) {
			if ( ! array_key_exists( $field, $fields ) ) {
				continue;
			}
			$current = (string) $post->{self::COLUMNS[ $field ]};
			if ( $current === (string) $fields[ $field ] || self::is_restorable( $post->ID, $field, $current ) ) {
				continue;
			}
			add_post_meta( $post->ID, self::RESTORABLE_META, self::hash( $field, $current ) );
		}
		$known = get_post_meta( $post->ID, self::RESTORABLE_META, false );
		if ( is_array( $known ) && count( $known ) > self::RESTORABLE_MAX ) {
			foreach ( array_slice( $known, 0, count( $known ) - self::RESTORABLE_MAX ) as $old ) {
				delete_post_meta( $post->ID, self::RESTORABLE_META, $old );
			}
		}
	}

	/**
	 * The part of `$after` that differs from `$before`, widened so that it never starts or ends inside a tag, a
	 * comment or a raw-text element (a change inside `<script>` is a change of the whole script).
	 *
	 * @param string $before Stored value.
	 * @param string $after  Planned value.
	 */
	public static function changed_fragment( string $before, string $after ): string {
		$limit  = min( strlen( $before ), strlen( $after ) );
		$prefix = 0;
		while ( $prefix < $limit && $before[ $prefix ] === $after[ $prefix ] ) {
			++$prefix;
		}
		$suffix     = 0;
		$before_len = strlen( $before );
		$after_len  = strlen( $after );
		while ( $suffix < $limit - $prefix && $before[ $before_len - 1 - $suffix ] === $after[ $after_len - 1 - $suffix ] ) {
			++$suffix;
		}
		$start = $prefix;
		$end   = $after_len - $suffix;
		if ( $end <= $start ) {
			return '';
		}
		for ( $round = 0; $round < 8; $round++ ) {
			list( $start2, $end2 ) = self::widen( $after, $start, $end );
			if ( $start2 === $start && $end2 === $end ) {
				break;
			}
			$start = $start2;
			$end   = $end2;
		}
		return substr( $after, $start, $end - $start );
	}

	/**
	 * One widening step of [start, end) over tags, comments and raw-text elements.
	 *
	 * @param string $text  Text.
	 * @param int    $start Start.
	 * @param int    $end   End.
	 * @return array{0: int, 1: int}
	 */
	private static function widen( string $text, int $start, int $end ): array {
		$head = substr( $text, 0, $start );
		// Inside a comment: from its start.
		$open = strrpos( $head, '<!--' );
		if ( false !== $open && false === strpos( substr( $head, $open ), '-->' ) ) {
			$start = $open;
		}
		// Inside a tag: from its `<`.
		$lt = strrpos( substr( $text, 0, $start ), '<' );
		if ( false !== $lt && false === strpos( substr( $text, $lt, $start - $lt ), '>' ) ) {
			$start = $lt;
		}
		// Inside a raw-text element: from its opening tag.
		foreach ( self::RAW_TEXT as $name ) {
			$before = strtolower( substr( $text, 0, $start ) );
			$tag    = strrpos( $before, '<' . $name );
			if ( false !== $tag && false === strpos( substr( $before, $tag ), '</' . $name ) ) {
				$start = $tag;
			}
		}
		// The end: out of a tag, a comment and a raw-text element.
		$tail_lt = strrpos( substr( $text, 0, $end ), '<' );
		if ( false !== $tail_lt && false === strpos( substr( $text, $tail_lt, $end - $tail_lt ), '>' ) ) {
			$gt  = strpos( $text, '>', $end );
			$end = false === $gt ? strlen( $text ) : $gt + 1;
		}
		$comment = strrpos( substr( $text, 0, $end ), '<!--' );
		if ( false !== $comment && false === strpos( substr( $text, $comment, $end - $comment ), '-->' ) ) {
			$close = strpos( $text, '-->', $end );
			$end   = false === $close ? strlen( $text ) : $close + 3;
		}
		foreach ( self::RAW_TEXT as $name ) {
			$lower = strtolower( substr( $text, 0, $end ) );
			$tag   = strrpos( $lower, '<' . $name );
			if ( false !== $tag && false === strpos( substr( $lower, $tag ), '</' . $name ) ) {
				$close = stripos( $text, '</' . $name, $end );
				$gt    = false === $close ? false : strpos( $text, '>', $close );
				$end   = false === $gt ? strlen( $text ) : $gt + 1;
			}
		}
		return array( $start, $end );
	}

	/**
	 * What the filter would take out of a fragment, in words (tags and attributes, clipped).
	 *
	 * @param string $fragment Planned bytes.
	 * @param string $filtered What the filter leaves.
	 */
	private static function describe_loss( string $fragment, string $filtered ): string {
		$names    = static function ( string $pattern, string $text ): array {
			preg_match_all( $pattern, $text, $found );
			return array_count_values( array_map( 'strtolower', $found[1] ) );
		};
		$lost     = array();
		$patterns = array(
			'/<([a-zA-Z][a-zA-Z0-9-]*)/' => '<%s>',
			'/\s([a-zA-Z-]+)\s*=/'       => '%s=',
		);
		foreach ( $patterns as $pattern => $format ) {
			$was = $names( $pattern, $fragment );
			$now = $names( $pattern, $filtered );
			foreach ( $was as $name => $count ) {
				if ( $count > ( $now[ $name ] ?? 0 ) ) {
					$lost[] = sprintf( $format, $name );
				}
			}
		}
		if ( ! $lost ) {
			return sprintf( 'the markup would change: %s', self::clip( $fragment ) );
		}
		return sprintf( 'would remove %s from %s', implode( ', ', array_unique( $lost ) ), self::clip( $fragment ) );
	}

	/**
	 * A short excerpt of a value for a message.
	 *
	 * @param string $text Text.
	 */
	private static function clip( string $text ): string {
		return strlen( $text ) > 160 ? substr( $text, 0, 157 ) . '...' : $text;
	}

	/**
	 * Refuses a write whose new bytes the field's filter would change, for a user without unfiltered_html.
	 *
	 * @param string               $ref     The item's ref.
	 * @param WP_Post|null         $current The post before the write (null: a creation).
	 * @param array<string, mixed> $fields  The planned fields.
	 * @return WP_Error|null
	 */
	public static function refuse_filtered( string $ref, ?WP_Post $current, array $fields ): ?WP_Error {
		if ( current_user_can( 'unfiltered_html' ) ) {
			return null;
		}
		$lost = array();
		foreach ( self::TEXT_FIELDS as $field => $context ) {
			if ( ! array_key_exists( $field, $fields ) || ! is_scalar( $fields[ $field ] ) ) {
				continue;
			}
			$planned = (string) $fields[ $field ];
			$stored  = $current ? (string) $current->{self::COLUMNS[ $field ]} : '';
			if ( $current && self::is_restorable( $current->ID, $field, $planned ) ) {
				continue; // The site held exactly this before: undo puts it back as it was.
			}
			$fragment = self::changed_fragment( $stored, $planned );
			if ( '' === $fragment ) {
				continue;
			}
			$filtered = 'post' === $context ? self::kses_post_markup( $fragment ) : wp_kses( $fragment, $context );
			if ( $filtered !== $fragment ) {
				$lost[] = array(
					'ref'   => $ref,
					'field' => $field,
					'lost'  => self::describe_loss( $fragment, $filtered ),
				);
			} elseif ( 'post' === $context && ! self::block_attributes_clean( $fragment ) ) {
				$lost[] = array(
					'ref'   => $ref,
					'field' => $field,
					'lost'  => sprintf( 'would filter block attributes in %s', self::clip( $fragment ) ),
				);
			}
		}
		return $lost ? self::filtered_error( $ref, $lost ) : null;
	}

	/**
	 * What kses leaves of post markup, without re-serialising block delimiters (core's pre_kses step parses the
	 * markup into blocks and writes them out again, which changes a fragment's bytes whenever it holds half a
	 * block): the block attributes are checked on their own (block_attributes_clean).
	 *
	 * @param string $fragment Markup.
	 */
	private static function kses_post_markup( string $fragment ): string {
		$priority = has_filter( 'pre_kses', 'wp_pre_kses_block_attributes' );
		if ( false !== $priority ) {
			remove_filter( 'pre_kses', 'wp_pre_kses_block_attributes', (int) $priority );
		}
		try {
			return wp_kses_post( $fragment );
		} finally {
			if ( false !== $priority ) {
				add_filter( 'pre_kses', 'wp_pre_kses_block_attributes', (int) $priority, 3 );
			}
		}
	}

	/**
	 * Whether every block delimiter in the fragment carries attributes kses would keep as they are (what core's
	 * filter_block_kses does to each block's attributes).
	 *
	 * @param string $fragment Markup.
	 */
	private static function block_attributes_clean( string $fragment ): bool {
		if ( ! function_exists( 'filter_block_kses_value' ) ) {
			return true;
		}
		preg_match_all( '/<!--\s+wp:[a-z][a-z0-9_-]*(?:\/[a-z][a-z0-9_-]*)?\s+(\{.*?\})\s+\/?-->/s', $fragment, $found );
		foreach ( $found[1] as $json ) {
			$attributes = json_decode( $json, true );
			if ( ! is_array( $attributes ) ) {
				continue;
			}
			if ( filter_block_kses_value( $attributes, 'post', wp_allowed_protocols() ) !== $attributes ) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Compares the post as stored with the plan (planned fields) and with the state before (the others).
	 *
	 * @param string                    $ref    The item's ref.
	 * @param int                       $id     Post id.
	 * @param array<string, mixed>      $fields The planned fields.
	 * @param array<string, mixed>|null $before The post's state before the write (null: a creation).
	 * @return WP_Error|null
	 */
	public static function refuse_changed( string $ref, int $id, array $fields, ?array $before ): ?WP_Error {
		clean_post_cache( $id );
		$post = get_post( $id );
		if ( ! $post instanceof WP_Post ) {
			return null;
		}
		$lost = array();
		foreach ( self::COLUMNS as $field => $column ) {
			$stored = (string) $post->{$column};
			if ( array_key_exists( $field, $fields ) && is_scalar( $fields[ $field ] ) ) {
				$expected = (string) $fields[ $field ];
			} elseif ( null !== $before && in_array( $field, array( 'title', 'content', 'excerpt', 'parent', 'menu_order' ), true ) ) {
				$expected = (string) ( $before[ $field ] ?? '' );
			} else {
				continue;
			}
			if ( $stored !== $expected ) {
				$lost[] = array(
					'ref'   => $ref,
					'field' => $field,
					'lost'  => sprintf( 'stored "%s" instead of "%s"', self::clip( $stored ), self::clip( $expected ) ),
				);
			}
		}
		return $lost ? self::filtered_error( $ref, $lost ) : null;
	}

	/**
	 * The refusal.
	 *
	 * @param string                                                      $ref  Ref.
	 * @param array<int, array{ref: string, field: string, lost: string}> $lost What would have been lost.
	 */
	private static function filtered_error( string $ref, array $lost ): WP_Error {
		return new WP_Error(
			'sitewright_filtered',
			__( 'The site would have stored something other than the approved change (a filter or another plugin changed it); nothing was written.', 'sitewright-connector' ),
			array(
				'status' => 409,
				'ref'    => $ref,
				'lost'   => $lost,
			)
		);
	}

	/**
	 * Runs a write with kses off for its duration only (bytes the agent did not change are not filtered again).
	 *
	 * @param callable $write The write.
	 * @return mixed What the write returned.
	 */
	public static function without_kses( callable $write ) {
		kses_remove_filters();
		try {
			return $write();
		} finally {
			kses_init();
		}
	}
}
