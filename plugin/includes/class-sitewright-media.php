<?php
/**
 * Attachments Sitewright uploads: made from the bytes the service sends (already checked and stripped of metadata
 * there, checked again here by WordPress), and kept when something on the site uses them.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Media creation and use.
 */
final class Sitewright_Media {

	/** The only file types Sitewright uploads, whatever the site allows otherwise. */
	public const MIMES = array(
		'jpg|jpeg|jpe' => 'image/jpeg',
		'png'          => 'image/png',
		'gif'          => 'image/gif',
		'webp'         => 'image/webp',
		'pdf'          => 'application/pdf',
	);

	/** The most bytes of one file, whatever PHP would take. */
	private const HARD_MAX_BYTES = 16 * 1024 * 1024;

	/**
	 * The largest file this site takes from Sitewright: the file arrives base64-encoded in a JSON body, which PHP
	 * refuses over post_max_size (filter: sitewright_media_max_bytes).
	 */
	public static function max_bytes(): int {
		$post_max = (int) wp_convert_hr_to_bytes( (string) ini_get( 'post_max_size' ) );
		$by_body  = $post_max > 0 ? (int) floor( ( $post_max - 16384 ) * 3 / 4 ) : self::HARD_MAX_BYTES;
		return (int) apply_filters( 'sitewright_media_max_bytes', max( 0, min( self::HARD_MAX_BYTES, $by_body ) ) );
	}

	/**
	 * Creates an attachment from a file's bytes, WordPress checking its type by content again and making its sizes.
	 * Answers like an item write: the new ref, its state and version (undo deletes it over that version), plus
	 * where WordPress put it.
	 *
	 * @param string               $filename File name, with the extension of its type.
	 * @param string               $bytes    The file.
	 * @param array<string, string> $fields   Title, alt, caption.
	 * @return array<string, mixed>|WP_Error
	 */
	public static function create( string $filename, string $bytes, array $fields ) {
		require_once ABSPATH . 'wp-admin/includes/file.php';
		require_once ABSPATH . 'wp-admin/includes/media.php';
		require_once ABSPATH . 'wp-admin/includes/image.php';
		$tmp = wp_tempnam( $filename );
		if ( ! $tmp || false === file_put_contents( $tmp, $bytes ) ) { // phpcs:ignore WordPress.WP.AlternativeFunctions.file_system_operations_file_put_contents
			return new WP_Error( 'sitewright_media_failed', __( 'The site could not store the file.', 'sitewright-connector' ), array( 'status' => 500 ) );
		}
		$restrict = static fn() => self::MIMES;
		add_filter( 'upload_mimes', $restrict, PHP_INT_MAX );
		try {
			$id = media_handle_sideload(
				array(
					'name'     => $filename,
					'tmp_name' => $tmp,
					'size'     => strlen( $bytes ),
					'error'    => 0,
				),
				0,
				null,
				array(
					'post_title'   => $fields['title'] ?? '',
					'post_excerpt' => $fields['caption'] ?? '',
				)
			);
		} finally {
			remove_filter( 'upload_mimes', $restrict, PHP_INT_MAX );
			if ( file_exists( $tmp ) ) {
				wp_delete_file( $tmp );
			}
		}
		if ( is_wp_error( $id ) ) {
			return new WP_Error( 'sitewright_media_type', $id->get_error_message(), array( 'status' => 415 ) );
		}
		if ( '' !== ( $fields['alt'] ?? '' ) ) {
			update_post_meta( $id, '_wp_attachment_image_alt', wp_slash( $fields['alt'] ) );
		}
		return self::written( (int) $id );
	}

	/**
	 * The new attachment as an item write, with its address and size.
	 *
	 * @param int $id Attachment id.
	 * @return array<string, mixed>
	 */
	private static function written( int $id ): array {
		$item = Sitewright_Items::read( 'post:' . $id );
		$meta = wp_get_attachment_metadata( $id );
		$meta = is_array( $meta ) ? $meta : array();
		return array(
			'ref'     => $item['ref'],
			'action'  => 'create',
			'title'   => $item['title'],
			'before'  => null,
			'after'   => $item['state'],
			'version' => $item['version'],
			'media'   => array(
				'id'     => $id,
				'url'    => (string) wp_get_attachment_url( $id ),
				'mime'   => (string) get_post_mime_type( $id ),
				'width'  => isset( $meta['width'] ) ? (int) $meta['width'] : null,
				'height' => isset( $meta['height'] ) ? (int) $meta['height'] : null,
				'alt'    => (string) get_post_meta( $id, '_wp_attachment_image_alt', true ),
			),
		);
	}

	/**
	 * Whether anything on the site uses the attachment: a featured image, the site icon or logo, or a post's content
	 * naming its id (image, gallery, file and cover blocks, `wp-image-<id>`) or its address. Revisions do not count.
	 *
	 * @param int $id Attachment id.
	 */
	public static function in_use( int $id ): bool {
		global $wpdb;
		if ( (int) get_option( 'site_icon' ) === $id || (int) get_theme_mod( 'custom_logo' ) === $id ) {
			return true;
		}
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$featured = $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$wpdb->postmeta} WHERE meta_key = '_thumbnail_id' AND meta_value = %s", (string) $id ) );
		if ( (int) $featured > 0 ) {
			return true;
		}
		$url     = (string) wp_get_attachment_url( $id );
		$needles = array( 'wp-image-' . $id . '"', 'wp-image-' . $id . ' ', '"id":' . $id . ',', '"id":' . $id . '}' );
		if ( '' !== $url ) {
			$needles[] = (string) preg_replace( '/\.[^.\/]+$/', '', $url );
		}
		$likes = array();
		foreach ( $needles as $needle ) {
			$likes[] = $wpdb->prepare( 'post_content LIKE %s', '%' . $wpdb->esc_like( $needle ) . '%' );
		}
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQL.NotPrepared
		$used = $wpdb->get_var( "SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type NOT IN ('revision', 'attachment') AND post_status <> 'auto-draft' AND (" . implode( ' OR ', $likes ) . ')' );
		return (int) $used > 0;
	}
}
