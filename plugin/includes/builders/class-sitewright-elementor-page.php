<?php
/**
 * The builder item `elementor:<postId>`: an Elementor page's `_elementor_data`, exactly as stored, with the metadata
 * Elementor keeps beside it. The version covers all of it, so a person's save in Elementor since the read makes a
 * write or an undo stale (409). A write stores exactly the planned JSON as Elementor stores it
 * (`wp_slash()` over the JSON text, so the stored bytes are the planned ones) and nothing else, reads it back, and
 * clears the page's Elementor caches so the public page shows it (docs/page-builders.md).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Reads and writes Elementor pages.
 */
final class Sitewright_Elementor_Page {

	/** Where Elementor keeps a page's elements. */
	public const DATA_KEY = '_elementor_data';

	/** The metadata Elementor keeps beside the data that says what the page is (part of the version, never written). */
	private const KEPT_META = array(
		'editMode'         => '_elementor_edit_mode',
		'templateType'     => '_elementor_template_type',
		'elementorVersion' => '_elementor_version',
		'pageSettings'     => '_elementor_page_settings',
	);

	/** The largest `_elementor_data` Sitewright writes (bytes). */
	public const MAX_BYTES = 2097152;

	/**
	 * The item's state and title, or [null, ''] when the post is not an Elementor page.
	 *
	 * @param int $post_id Post id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public static function read( int $post_id ): array {
		clean_post_cache( $post_id );
		wp_cache_delete( $post_id, 'post_meta' );
		$post = get_post( $post_id );
		if ( ! $post instanceof WP_Post || ! in_array( $post->post_type, Sitewright_Vocabulary::post_types(), true ) ) {
			return array( null, '' );
		}
		$data = get_post_meta( $post_id, self::DATA_KEY, true );
		if ( 'builder' !== get_post_meta( $post_id, '_elementor_edit_mode', true ) || ! is_string( $data ) || '' === $data ) {
			return array( null, '' );
		}
		$state = array(
			'data'   => $data,
			'type'   => $post->post_type,
			'status' => $post->post_status,
		);
		foreach ( self::KEPT_META as $field => $key ) {
			$state[ $field ] = get_post_meta( $post_id, $key, true );
		}
		return array( $state, $post->post_title );
	}

	/**
	 * Why `fields` cannot be written, or null. Only `data` is written: a JSON list of elements.
	 *
	 * @param array<string, mixed> $fields Fields.
	 */
	public static function refuse_fields( array $fields ): ?string {
		if ( array_keys( $fields ) !== array( 'data' ) || ! is_string( $fields['data'] ) ) {
			return __( 'A builder change gives the page\'s Elementor data as the string data.', 'sitewright-connector' );
		}
		if ( strlen( $fields['data'] ) > self::MAX_BYTES ) {
			return __( 'This Elementor page is too large for Sitewright to write.', 'sitewright-connector' );
		}
		$decoded = json_decode( $fields['data'] );
		if ( ! is_array( $decoded ) ) {
			return __( 'The Elementor data must be a JSON list of elements.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Stores exactly the planned data, checks it reads back byte for byte, and clears the page's Elementor caches.
	 *
	 * @param int                  $post_id Post id.
	 * @param array<string, mixed> $fields  Fields (checked by refuse_fields).
	 * @return true|WP_Error
	 */
	public static function write( int $post_id, array $fields ) {
		$data = (string) $fields['data'];
		// Elementor stores wp_slash( wp_json_encode( $elements ) ): update_post_meta unslashes, so the JSON text is stored.
		update_post_meta( $post_id, self::DATA_KEY, wp_slash( $data ) );
		wp_cache_delete( $post_id, 'post_meta' );
		$stored = get_post_meta( $post_id, self::DATA_KEY, true );
		if ( $stored !== $data ) {
			return new WP_Error(
				'sitewright_filtered',
				__( 'The site would have stored other Elementor data than planned; nothing was written.', 'sitewright-connector' ),
				array(
					'status' => 409,
					'lost'   => array(
						array(
							'field' => 'data',
							'lost'  => __( 'The page\'s Elementor data was changed while saving.', 'sitewright-connector' ),
						),
					),
				)
			);
		}
		Sitewright_Elementor_Cache::clear_page( $post_id );
		return true;
	}

	/**
	 * Whether the agent user may edit the page.
	 *
	 * @param int $post_id Post id.
	 */
	public static function user_can( int $post_id ): bool {
		return ! get_post( $post_id ) || current_user_can( 'edit_post', $post_id );
	}
}
