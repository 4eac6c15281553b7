<?php
/**
 * `seo:<post id>`: the SEO fields of a page or post (Sitewright_Seo_Items).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * SEO fields as items.
 */
final class Sitewright_Item_Kind_Seo extends Sitewright_Item_Kind {

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
}
