<?php
/**
 * The contract every item kind (`post`, `term`, `option`, …) keeps: one class per kind, found through
 * Sitewright_Item_Kinds by the kind part of a ref (`kind:key`). A kind says which keys it owns, reads an item's
 * restorable state (Sitewright_Items hashes it into the version), checks a change's fields, target and capability,
 * writes it, and says where visitors would see it. What every kind shares (refs, versions, scopes, the atomic
 * batch) is not here: Sitewright_Items and Sitewright_Item_Batch.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * One kind of item.
 */
abstract class Sitewright_Item_Kind {

	/**
	 * The kind's name, as refs and vocabulary.json's items.kinds spell it.
	 *
	 * @var string
	 */
	protected string $name;

	/**
	 * A kind of this name.
	 *
	 * @param string $name Kind name.
	 */
	public function __construct( string $name ) {
		$this->name = $name;
	}

	/**
	 * Whether the key names an item of this kind (by default a numeric id).
	 *
	 * @param string $key The ref's key.
	 */
	public function valid_key( string $key ): bool {
		return ctype_digit( $key );
	}

	/**
	 * Whether `<kind>:new` creates an item.
	 */
	public function creatable(): bool {
		return false;
	}

	/**
	 * Reads the item as it is now (caches cleared first): [state|null, title]. Null: it does not exist.
	 *
	 * @param string $key The ref's key.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	abstract public function read_item( string $key ): array;

	/**
	 * What a reader needs besides the state, outside the version (an existing item only).
	 *
	 * @param string $key The ref's key.
	 * @return array<string, mixed>
	 */
	public function read_info( string $key ): array {
		return array();
	}

	/**
	 * The scope a read needs (vocabulary.json's readScope).
	 */
	public function read_scope(): string {
		return (string) ( Sitewright_Vocabulary::item_kind( $this->name )['readScope'] ?? '' );
	}

	/**
	 * The scope a change needs (vocabulary.json's writeScope; a kind may ask more for some post types).
	 *
	 * @param string $type The target's post type, when the kind has one.
	 */
	public function write_scope( string $type = '' ): string {
		return (string) ( Sitewright_Vocabulary::item_kind( $this->name )['writeScope'] ?? '' );
	}

	/**
	 * The post type a change targets ('' for kinds without one).
	 *
	 * @param string               $key    The ref's key.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function target_type( string $key, string $action, array $fields ): string {
		return '';
	}

	/**
	 * Why the change's fields cannot be written (400), or null. Field names were checked against the vocabulary.
	 *
	 * @param string               $key    The ref's key.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		return null;
	}

	/**
	 * Why Sitewright never changes this target, whatever the scopes (403), or null.
	 *
	 * @param string               $key    The ref's key.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_target( string $key, string $action, array $fields ): ?WP_Error {
		return null;
	}

	/**
	 * Core's capability checks for the change, as the current (agent) user.
	 *
	 * @param string               $key    The ref's key.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	abstract public function can_write( string $key, string $action, array $fields ): bool;

	/**
	 * Writes one change inside Sitewright_Item_Batch's lock and transaction. Returns the item's key afterwards (a
	 * creation's new id), or the error that rolls the batch back.
	 *
	 * @param string               $action Action.
	 * @param string               $key    The ref's key.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	abstract public function write_item( string $action, string $key, array $fields );

	/**
	 * The newest WordPress revision after a write, when the kind keeps revisions.
	 *
	 * @param string $action Action.
	 * @param string $key    The item's key after the write.
	 */
	public function revision( string $action, string $key ): ?int {
		return null;
	}

	/**
	 * The rows of wp_posts and wp_options a batch locks FOR UPDATE before checking versions: [post ids, option names].
	 *
	 * @param string $key The ref's key.
	 * @return array{0: array<int, int>, 1: array<int, string>}
	 */
	public function rows( string $key ): array {
		return array( array(), array() );
	}

	/**
	 * Adds the places where visitors would see the change (none: they would not see it). Called for a change
	 * refuse_shape accepted; the key may be `new` for a creation.
	 *
	 * @param string               $key    The ref's key.
	 * @param string               $action The change's action.
	 * @param array<string, mixed> $fields The change's fields.
	 * @param Sitewright_Places    $places Places.
	 */
	abstract public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void;

	/**
	 * The newest revision of a post, if it keeps revisions.
	 *
	 * @param int $post_id Post id.
	 */
	protected static function latest_revision( int $post_id ): ?int {
		$post = $post_id ? get_post( $post_id ) : null;
		if ( ! $post instanceof WP_Post || ! wp_revisions_enabled( $post ) ) {
			return null;
		}
		$latest = wp_get_post_revisions(
			$post_id,
			array(
				'posts_per_page' => 1,
				'fields'         => 'ids',
			)
		);
		return $latest ? (int) reset( $latest ) : null;
	}
}
