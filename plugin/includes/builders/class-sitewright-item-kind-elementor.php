<?php
/**
 * The builder item `elementor:<postId>`: an Elementor page's `_elementor_data`, exactly as stored, with the metadata
 * Elementor keeps beside it. The version covers all of it, so a person's save in Elementor since the read makes a
 * write or an undo stale (409). A write stores exactly the planned JSON as Elementor stores it (`wp_slash()` over
 * the JSON text, so the stored bytes are the planned ones) and nothing else, reads it back, and clears the page's
 * Elementor caches so the public page shows it (docs/page-builders.md). Added to the item kinds with the
 * `sitewright_item_kinds` filter: a page builder is a kind like any other.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Elementor pages as items.
 */
final class Sitewright_Item_Kind_Elementor extends Sitewright_Item_Kind {

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
	 * Adds the kind to the registry.
	 *
	 * @param array<string, Sitewright_Item_Kind> $kinds Kinds.
	 * @return array<string, Sitewright_Item_Kind>
	 */
	public static function register( array $kinds ): array {
		$kinds['elementor'] = new self( 'elementor' );
		return $kinds;
	}

	/**
	 * The page's state and title, or [null, ''] when the post is not an Elementor page.
	 *
	 * @param string $key Post id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		$post_id = (int) $key;
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
		foreach ( self::KEPT_META as $field => $meta_key ) {
			$state[ $field ] = get_post_meta( $post_id, $meta_key, true );
		}
		return array( $state, $post->post_title );
	}

	/**
	 * Why `fields` cannot be written, or null. Only `data` is written: a JSON list of elements.
	 *
	 * @param string               $key    Post id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		if ( array_keys( $fields ) !== array( 'data' ) || ! is_string( $fields['data'] ) ) {
			return __( 'A builder change gives the page\'s Elementor data as the string data.', 'sitewright-connector' );
		}
		if ( strlen( $fields['data'] ) > self::MAX_BYTES ) {
			return __( 'This Elementor page is too large for Sitewright to write.', 'sitewright-connector' );
		}
		if ( ! is_array( json_decode( $fields['data'] ) ) ) {
			return __( 'The Elementor data must be a JSON list of elements.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Whether the agent user may edit the page (a page that is gone is answered by the version check).
	 *
	 * @param string               $key    Post id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		return ! get_post( (int) $key ) || current_user_can( 'edit_post', (int) $key );
	}

	/**
	 * Stores exactly the planned data, checks it reads back byte for byte, and clears the page's Elementor caches.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Post id.
	 * @param array<string, mixed> $fields Fields (checked by refuse_fields).
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$post_id = (int) $key;
		$data    = (string) $fields['data'];
		// Elementor stores wp_slash( wp_json_encode( $elements ) ): update_post_meta unslashes, so the JSON text is stored.
		update_post_meta( $post_id, self::DATA_KEY, wp_slash( $data ) );
		wp_cache_delete( $post_id, 'post_meta' );
		if ( get_post_meta( $post_id, self::DATA_KEY, true ) !== $data ) {
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
		return $key;
	}

	/**
	 * The page's row, locked with the batch.
	 *
	 * @param string $key Post id.
	 * @return array{0: array<int, int>, 1: array<int, string>}
	 */
	public function rows( string $key ): array {
		return array( array( (int) $key ), array() );
	}

	/**
	 * A published page's elements are on the page itself.
	 *
	 * @param string               $key    Post id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$post = get_post( (int) $key );
		if ( $post instanceof WP_Post && Sitewright_Site_Places::is_public( (string) get_post_status( $post ) ) ) {
			$places->add( 'post', Sitewright_Site_Places::post_label( $post ), (string) get_permalink( $post ) );
		}
	}
}
