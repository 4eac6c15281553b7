<?php
/**
 * Where visitors see an image (or any attachment): the site logo and icon, its attachment page while those are
 * on, published posts that show it (featured image, image and gallery blocks, classic `[gallery]` shortcodes by
 * `ids`, `include` or as the post's attached images, a link to its file), synced patterns, templates and widgets.
 * Any of these shows its title, caption, description or alt text, or the file itself.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Places of an attachment.
 */
final class Sitewright_Attachment_Places {

	/** The most featured-image uses read (the rest are counted). */
	private const FEATURED_LIMIT = 50;

	/**
	 * Adds every place that shows the attachment.
	 *
	 * @param WP_Post           $image  The attachment.
	 * @param Sitewright_Places $places Places.
	 */
	public static function add( WP_Post $image, Sitewright_Places $places ): void {
		$id = (int) $image->ID;
		if ( (int) get_option( 'site_logo' ) === $id || (int) get_theme_mod( 'custom_logo' ) === $id ) {
			$places->add( 'site_logo', __( 'the site logo', 'sitewright-connector' ), home_url( '/' ) );
		}
		if ( (int) get_option( 'site_icon' ) === $id ) {
			$places->add( 'site_icon', __( 'the site icon', 'sitewright-connector' ), home_url( '/' ) );
		}
		if ( Sitewright_Site_Places::attachment_pages_enabled() && Sitewright_Site_Places::is_public( (string) get_post_status( $image ) ) ) {
			$places->add( 'attachment_page', __( 'its attachment page', 'sitewright-connector' ), (string) get_attachment_link( $image ) );
		}
		self::add_featured( $id, $places );
		self::add_content( $image, $places );
		$file = self::file_stem( $id );
		Sitewright_Site_Places::add_widgets(
			$places,
			static fn( string $type, string $text ): bool => null !== self::shows( $text, $id, $file )
				|| 1 === preg_match( '/^(?:attachment_id|ids)=(?:\d+,)*' . $id . '(?:,|$)/m', $text )
		);
	}

	/**
	 * Published posts that show it as their featured image.
	 *
	 * @param int               $id     Attachment id.
	 * @param Sitewright_Places $places Places.
	 */
	private static function add_featured( int $id, Sitewright_Places $places ): void {
		global $wpdb;
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$ids = $wpdb->get_col(
			$wpdb->prepare(
				"SELECT p.ID FROM {$wpdb->posts} p JOIN {$wpdb->postmeta} m ON m.post_id = p.ID WHERE m.meta_key = '_thumbnail_id' AND m.meta_value = %s AND p.post_status IN ('publish', 'future') ORDER BY p.ID LIMIT %d",
				(string) $id,
				self::FEATURED_LIMIT
			)
		);
		foreach ( (array) $ids as $post_id ) {
			$post = get_post( (int) $post_id );
			if ( $post instanceof WP_Post ) {
				Sitewright_Site_Places::add_mention( $places, $post, __( ' shows it as its featured image', 'sitewright-connector' ) );
			}
		}
	}

	/**
	 * Published content that shows it.
	 *
	 * @param WP_Post           $image  The attachment.
	 * @param Sitewright_Places $places Places.
	 */
	private static function add_content( WP_Post $image, Sitewright_Places $places ): void {
		$id     = (int) $image->ID;
		$file   = self::file_stem( $id );
		$groups = array(
			array( 'wp-image-' . $id ),
			array( '"id":' . $id ),
			array( '"mediaId":' . $id ),
			array( '[gallery', (string) $id ),
			array( '"ids":[', (string) $id ),
		);
		$parent = (int) $image->post_parent;
		if ( $parent > 0 ) {
			// A gallery without ids shows the attached images of its post (or of the post its `id` names).
			$groups[] = array( '[gallery', (string) $parent );
		}
		if ( '' !== $file ) {
			$groups[] = array( $file );
		}
		$hits = Sitewright_Site_Places::mentioning( $groups, $parent );
		if ( null === $hits ) {
			$places->unknown( __( 'Too many published pages might show this image to check them all, so it counts as visible', 'sitewright-connector' ) );
			return;
		}
		foreach ( $hits as $hit ) {
			$how = self::shows( $hit->post_content, $id, $file, $parent, $hit->ID );
			if ( null !== $how ) {
				Sitewright_Site_Places::add_mention( $places, $hit, $how[1], $how[0] );
			}
		}
	}

	/**
	 * How a piece of content shows the attachment: [place kind, phrase], or null when it does not.
	 *
	 * @param string $content     Content.
	 * @param int    $id          Attachment id.
	 * @param string $file        The attachment's file address without its extension ('' if none).
	 * @param int    $attached_to The post the attachment is attached to (0: none).
	 * @param int    $post_id     The post the content is of (0: not a post, e.g. a widget).
	 * @return array{0: string, 1: string}|null
	 */
	private static function shows( string $content, int $id, string $file, int $attached_to = 0, int $post_id = 0 ): ?array {
		if ( self::in_gallery_shortcode( $content, $id, $attached_to, $post_id ) ) {
			return array( 'gallery', __( ' shows it in a [gallery]', 'sitewright-connector' ) );
		}
		$by_id = '/wp-image-' . $id . '(?!\d)|"(?:id|mediaId)":' . $id . '(?!\d)|"ids":\[(?:\d+,)*' . $id . '[,\]]/';
		if ( preg_match_all( '#<!--\s+wp:gallery\b.*?<!--\s+/wp:gallery\s+-->#s', $content, $galleries ) ) {
			foreach ( $galleries[0] as $gallery ) {
				if ( preg_match( $by_id, $gallery ) || ( '' !== $file && str_contains( $gallery, $file ) ) ) {
					return array( 'gallery', __( ' shows it in a gallery block', 'sitewright-connector' ) );
				}
			}
		}
		if ( preg_match( $by_id, $content ) || ( '' !== $file && str_contains( $content, $file ) ) ) {
			return array( '', __( ' shows it', 'sitewright-connector' ) );
		}
		return null;
	}

	/**
	 * Whether a classic `[gallery]` in the content shows the attachment: listed in `ids` or `include`, or, with
	 * neither, one of the images attached to the gallery's post (`id`, else the content's own post) not excluded.
	 *
	 * @param string $content     Content.
	 * @param int    $id          Attachment id.
	 * @param int    $attached_to The post the attachment is attached to (0: none).
	 * @param int    $post_id     The post the content is of (0: none).
	 */
	private static function in_gallery_shortcode( string $content, int $id, int $attached_to, int $post_id ): bool {
		if ( ! str_contains( $content, '[gallery' ) || ! preg_match_all( '/' . get_shortcode_regex( array( 'gallery' ) ) . '/', $content, $found, PREG_SET_ORDER ) ) {
			return false;
		}
		foreach ( $found as $shortcode ) {
			$atts   = shortcode_parse_atts( $shortcode[3] );
			$atts   = is_array( $atts ) ? $atts : array();
			$listed = (string) ( $atts['ids'] ?? $atts['include'] ?? '' );
			if ( '' !== $listed ) {
				if ( in_array( $id, array_map( 'intval', explode( ',', $listed ) ), true ) ) {
					return true;
				}
				continue;
			}
			$excluded = array_map( 'intval', explode( ',', (string) ( $atts['exclude'] ?? '' ) ) );
			$owner    = isset( $atts['id'] ) ? (int) $atts['id'] : $post_id;
			if ( $attached_to > 0 && $owner === $attached_to && ! in_array( $id, $excluded, true ) ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The attachment's file address without its extension, which every size of an image starts with
	 * (`…/uploads/2026/11/bakery` for `bakery.jpg` and `bakery-300x200.jpg`), or ''.
	 *
	 * @param int $id Attachment id.
	 */
	private static function file_stem( int $id ): string {
		$url = (string) wp_get_attachment_url( $id );
		$dot = strrpos( $url, '.' );
		return false === $dot || $dot < strrpos( $url, '/' ) ? $url : substr( $url, 0, $dot );
	}
}
