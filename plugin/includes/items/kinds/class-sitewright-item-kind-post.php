<?php
/**
 * `post:<id>` (or `post:new`): a page, post, image or other post of vocabulary.json's items.postTypes.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Posts as items.
 */
final class Sitewright_Item_Kind_Post extends Sitewright_Item_Kind {

	/**
	 * A post is seen while it is published or scheduled, before or after the change: on its own page, in the feed
	 * and its categories' archives (a post), where a synced pattern is used (`wp_block`), as the design it is. An
	 * image is seen wherever it shows (Sitewright_Attachment_Places), whatever the change.
	 *
	 * @param string               $key    Post id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$post = 'new' === $key ? null : get_post( (int) $key );
		$post = $post instanceof WP_Post ? $post : null;
		if ( $post && 'attachment' === $post->post_type ) {
			Sitewright_Attachment_Places::add( $post, $places );
			return;
		}
		$now = $post ? (string) get_post_status( $post ) : '';
		if ( ! Sitewright_Site_Places::is_public( $now ) && ! Sitewright_Site_Places::is_public( self::status_after( $now, $action, $fields ) ) ) {
			return; // Visitors see it neither before nor after the change.
		}
		if ( null === $post ) {
			self::add_new( (string) ( $fields['type'] ?? '' ), (string) ( $fields['title'] ?? '' ), $places );
			return;
		}
		if ( 'wp_block' === $post->post_type ) {
			Sitewright_Site_Places::add_pattern_uses( $places, $post );
			return;
		}
		list( $kind, $label, $url ) = Sitewright_Site_Places::where( $post );
		$places->add( $kind, $label, $url );
		if ( 'post' === $post->post_type && Sitewright_Site_Places::is_public( $now ) ) {
			$places->add( 'feed', __( 'the site\'s feed', 'sitewright-connector' ), (string) get_feed_link() );
			foreach ( (array) get_the_category( $post->ID ) as $category ) {
				/* translators: %s: a category's name */
				$places->add( 'archive', sprintf( __( 'the archive of category %s', 'sitewright-connector' ), $category->name ), (string) get_category_link( $category ) );
			}
		}
	}

	/**
	 * The status the post has after the change ('' when it is gone).
	 *
	 * @param string               $now    Its status now ('' for a creation).
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	private static function status_after( string $now, string $action, array $fields ): string {
		if ( in_array( $action, array( 'delete', 'trash' ), true ) ) {
			return '';
		}
		$default = in_array( $action, array( 'create', 'restore' ), true ) ? 'draft' : $now;
		return is_string( $fields['status'] ?? null ) ? $fields['status'] : $default;
	}

	/**
	 * A post created published or scheduled is seen at once (a new synced pattern is used nowhere yet).
	 *
	 * @param string            $type   Post type.
	 * @param string            $title  Title.
	 * @param Sitewright_Places $places Places.
	 */
	private static function add_new( string $type, string $title, Sitewright_Places $places ): void {
		if ( 'wp_block' === $type ) {
			return;
		}
		$object = get_post_type_object( $type );
		$noun   = $object ? strtolower( (string) $object->labels->singular_name ) : $type;
		/* translators: 1: a kind of post, 2: its title */
		$places->add( 'wp_navigation' === $type ? 'navigation' : 'post', sprintf( __( 'the new %1$s “%2$s”, published at once', 'sitewright-connector' ), $noun, $title ) );
	}
}
