<?php
/**
 * Items: the things Sitewright's change sets read and write, named by refs (`post:12`, `option:blogname`,
 * `custom_css:twentytwentythree`, `menu:5`). Each kind (one class each behind Sitewright_Item_Kind, found in
 * Sitewright_Item_Kinds) reads to `{exists, state, version, title}` where `version` is a hash over the item's
 * restorable state, and writes one change. This class is what every kind shares: refs, versions, the checks of a
 * change before anything is written; Sitewright_Item_Batch applies a whole batch, all or nothing.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Refs, states, versions and the atomic conditional batch.
 */
final class Sitewright_Items {

	/**
	 * The most changes or refs in one request (limits.itemsMaxBatch in vocabulary.json).
	 */
	public static function max_batch(): int {
		return Sitewright_Vocabulary::limit( 'itemsMaxBatch' );
	}

	/**
	 * The refusal of a post type Sitewright does not handle, or null. Only the post types Sitewright's operations
	 * read and write are allowed (items.postTypes in vocabulary.json); any other type (a shop order, a privacy
	 * request, a membership record) has its own capabilities and meaning: refused by name, whatever the scopes.
	 *
	 * @param string $type Post type ('' when the post does not exist: the version check answers that).
	 */
	public static function refuse_type( string $type ): ?WP_Error {
		if ( '' === $type || in_array( $type, Sitewright_Vocabulary::post_types(), true ) ) {
			return null;
		}
		return new WP_Error(
			'sitewright_type_not_allowed',
			/* translators: %s: a post type */
			sprintf( __( 'Sitewright does not read or write %s items.', 'sitewright-connector' ), $type ),
			array( 'status' => 403 )
		);
	}

	/**
	 * Post fields added to a post's state after versions were first recorded (a post's terms, an image's alt text):
	 * a version recorded before them still matches while the rest of the state does (see matches()).
	 */
	public const ADDED_POST_FIELDS = array( 'categories', 'tags', 'alt' );

	/**
	 * Parses a ref into [kind, key], or null when it names no kind of vocabulary.json's items.kinds, or a key its kind
	 * does not own (an option not in items.options). `post:new` and `term:new` name an item to create.
	 *
	 * @param mixed $ref The ref.
	 * @return array{0: string, 1: string}|null
	 */
	public static function parse_ref( $ref ): ?array {
		if ( ! is_string( $ref ) || ! preg_match( '/^([a-z_]+):([A-Za-z0-9_-]{1,100})$/', $ref, $m ) || null === Sitewright_Vocabulary::item_kind( $m[1] ) ) {
			return null;
		}
		$kind = Sitewright_Item_Kinds::get( $m[1] );
		if ( null === $kind || ! ( ( 'new' === $m[2] && $kind->creatable() ) || $kind->valid_key( $m[2] ) ) ) {
			return null;
		}
		return array( $m[1], $m[2] );
	}

	/**
	 * The version of a state: a hash over its canonical JSON, so any change to a restorable field changes it.
	 *
	 * @param array<string, mixed>|null $state The state (null: the item does not exist).
	 */
	public static function version( ?array $state ): ?string {
		if ( null === $state ) {
			return null;
		}
		return hash( 'sha256', (string) wp_json_encode( self::canonical( $state ) ) );
	}

	/**
	 * Whether an item's current state is at the version a change expects: its version, or, for a version recorded
	 * before ADDED_POST_FIELDS were part of a post's state, the version of the state without them.
	 *
	 * @param array<string, mixed>|null $state  The current state.
	 * @param string                    $expect The version expected.
	 */
	public static function matches( ?array $state, string $expect ): bool {
		if ( null === $state ) {
			return false;
		}
		if ( hash_equals( (string) self::version( $state ), $expect ) ) {
			return true;
		}
		$earlier = array_diff_key( $state, array_flip( self::ADDED_POST_FIELDS ) );
		return count( $earlier ) < count( $state ) && isset( $state['type'] ) && hash_equals( (string) self::version( $earlier ), $expect );
	}

	/**
	 * Sorts object keys recursively (lists keep their order).
	 *
	 * @param mixed $value Value.
	 * @return mixed
	 */
	private static function canonical( $value ) {
		if ( ! is_array( $value ) ) {
			return $value;
		}
		if ( array_is_list( $value ) ) {
			return array_map( array( self::class, 'canonical' ), $value );
		}
		ksort( $value, SORT_STRING );
		return array_map( array( self::class, 'canonical' ), $value );
	}

	/**
	 * Reads an item as it is now (caches cleared first, so a write by another process is seen).
	 *
	 * @param string $ref A valid ref.
	 * @return array{ref: string, kind: string, exists: bool, title: string, state: array<string, mixed>|null, version: string|null}
	 */
	public static function read( string $ref ): array {
		list( $kind, $key )    = (array) self::parse_ref( $ref );
		$item_kind             = null === $kind ? null : Sitewright_Item_Kinds::get( (string) $kind );
		list( $state, $title ) = $item_kind ? $item_kind->read_item( (string) $key ) : array( null, '' );
		$item                  = array(
			'ref'     => $ref,
			'kind'    => (string) $kind,
			'exists'  => null !== $state,
			'title'   => $title,
			'state'   => $state,
			'version' => self::version( $state ),
		);
		$info                  = null === $state ? array() : self::read_info( (string) $kind, (string) $key );
		return $info ? $item + array( 'info' => $info ) : $item;
	}

	/**
	 * What a reader needs besides the state, outside the version: how many published posts use a term or show an
	 * image, a global styles item's style variations.
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 * @return array<string, mixed>
	 */
	public static function read_info( string $kind, string $key ): array {
		$item_kind = Sitewright_Item_Kinds::get( $kind );
		return $item_kind ? $item_kind->read_info( $key ) : array();
	}

	/**
	 * The scope a change of this kind needs (its writeScope; design:write for a post of a design type). An unknown
	 * kind needs a scope no token has.
	 *
	 * @param string $kind Kind.
	 * @param string $type Post type for a post (the existing one, or the one to create).
	 */
	public static function write_scope( string $kind, string $type = '' ): string {
		$item_kind = Sitewright_Item_Kinds::get( $kind );
		return $item_kind ? $item_kind->write_scope( $type ) : '';
	}

	/**
	 * The scope a read of this kind needs (its readScope).
	 *
	 * @param string $kind Kind.
	 */
	public static function read_scope( string $kind ): string {
		return (string) ( Sitewright_Vocabulary::item_kind( $kind )['readScope'] ?? '' );
	}

	/**
	 * Checks one change's shape, fields, target, scope and the current user's capability. Returns null when allowed.
	 *
	 * @param mixed              $change The change as sent.
	 * @param array<int, string> $scopes The token's scopes.
	 * @return array{code: string, message: string, status: int}|null
	 */
	public static function refuse_change( $change, array $scopes ): ?array {
		$refusal   = static fn( string $code, string $message, int $status ) => array(
			'code'    => $code,
			'message' => $message,
			'status'  => $status,
		);
		$malformed = self::refuse_shape( $change );
		if ( null !== $malformed ) {
			return $refusal( 'rest_invalid_param', $malformed, 400 );
		}
		list( $name, $key ) = (array) self::parse_ref( $change['ref'] );
		$kind               = Sitewright_Item_Kinds::get( (string) $name );
		$action             = (string) $change['action'];
		$fields             = (array) ( $change['fields'] ?? array() );
		$unknown            = self::unknown_fields( (string) $name, $action, $fields );
		if ( $unknown ) {
			/* translators: %s: field names */
			return $refusal( 'rest_invalid_param', sprintf( __( 'Unknown fields: %s.', 'sitewright-connector' ), implode( ', ', $unknown ) ), 400 );
		}
		$refused = $kind->refuse_fields( (string) $key, $action, $fields );
		if ( null !== $refused ) {
			return $refusal( 'rest_invalid_param', $refused, 400 );
		}
		$wrong_target = $kind->refuse_target( (string) $key, $action, $fields );
		if ( null !== $wrong_target ) {
			return $refusal( (string) $wrong_target->get_error_code(), $wrong_target->get_error_message(), 403 );
		}
		$scope = $kind->write_scope( $kind->target_type( (string) $key, $action, $fields ) );
		if ( ! in_array( $scope, $scopes, true ) ) {
			/* translators: %s: a scope */
			return $refusal( 'sitewright_scope', sprintf( __( 'This token\'s scopes do not allow this change (it needs %s).', 'sitewright-connector' ), $scope ), 403 );
		}
		if ( ! $kind->can_write( (string) $key, $action, $fields ) ) {
			return $refusal( 'rest_cannot_edit', __( 'This site does not allow Sitewright to make this change.', 'sitewright-connector' ), 403 );
		}
		return null;
	}

	/**
	 * Why a change is malformed (not an object, an unknown ref, an action its kind does not have, no version
	 * expected, fields not an object), or null. What POST /items and POST /items/visibility both check first.
	 *
	 * @param mixed $change The change as sent.
	 */
	public static function refuse_shape( $change ): ?string {
		if ( ! is_array( $change ) ) {
			return __( 'Each change must be an object.', 'sitewright-connector' );
		}
		$parsed = self::parse_ref( $change['ref'] ?? null );
		if ( null === $parsed ) {
			return __( 'Unknown ref. Use post:<id>, option:<name>, custom_css:<stylesheet>, menu:<id>, global_styles:<stylesheet>, template_part:<slug> or template:<slug>.', 'sitewright-connector' );
		}
		list( $kind, $key ) = $parsed;
		$action             = $change['action'] ?? null;
		if ( ! in_array( $action, Sitewright_Vocabulary::item_list( $kind, 'actions' ), true ) ) {
			return __( 'This action is not possible for this kind of item.', 'sitewright-connector' );
		}
		if ( ( 'new' === $key ) !== ( 'create' === $action ) ) {
			return __( 'Create with the ref post:new or term:new, and only create with it.', 'sitewright-connector' );
		}
		$expect = $change['expect'] ?? null;
		if ( null !== $expect && ! is_string( $expect ) ) {
			return __( 'expect must be a version string or null.', 'sitewright-connector' );
		}
		if ( 'create' !== $action && null === $expect ) {
			return __( 'Every change but a creation must give the version it expects.', 'sitewright-connector' );
		}
		$fields = $change['fields'] ?? array();
		if ( ! is_array( $fields ) || array_is_list( $fields ) && array() !== $fields ) {
			return __( 'fields must be an object.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Field names a change may not carry: any not in its kind's fields (plus createFields when creating).
	 *
	 * @param string               $kind   Kind.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @return array<int, string>
	 */
	private static function unknown_fields( string $kind, string $action, array $fields ): array {
		$allowed = Sitewright_Vocabulary::item_list( $kind, 'fields' );
		if ( 'create' === $action ) {
			$allowed = array_merge( $allowed, Sitewright_Vocabulary::item_list( $kind, 'createFields' ) );
		}
		return array_values( array_diff( array_map( 'strval', array_keys( $fields ) ), $allowed ) );
	}

	/**
	 * Checks every change's `expect` against the item's current version and applies the changes in order, all or
	 * nothing (Sitewright_Item_Batch). With $require_invisible, nothing is written if visitors would now see any
	 * change (409 sitewright_visible).
	 *
	 * @param array<int, array<string, mixed>> $changes           Validated changes.
	 * @param bool                             $require_invisible Refuse the batch if any change would be seen.
	 * @return array{items: array<int, array<string, mixed>>}|WP_Error
	 */
	public static function apply_batch( array $changes, bool $require_invisible = false ) {
		return Sitewright_Item_Batch::apply( $changes, $require_invisible );
	}
}
