<?php
/**
 * Items: the things Sitewright's change sets read and write, named by refs (`post:12`, `option:blogname`,
 * `custom_css:twentytwentythree`, `menu:5`). Each kind reads to `{exists, state, version, title}` where `version`
 * is a hash over the item's restorable state, and writes one change. Sitewright_Items::apply_batch checks every
 * `expect` version and applies the whole batch, all or nothing, in one request.
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

	/** The option row that serialises Sitewright's own batches. */
	private const LOCK_OPTION = '_sitewright_items_lock';

	/** A lock older than this many seconds was left by a dead request and may be taken over. */
	private const LOCK_STALE_SECONDS = 30;

	/**
	 * Parses a ref into [kind, key], or null when it names no kind of vocabulary.json's items.kinds, or an option
	 * not in items.options. `post:new` names a post to create.
	 *
	 * @param mixed $ref The ref.
	 * @return array{0: string, 1: string}|null
	 */
	public static function parse_ref( $ref ): ?array {
		if ( ! is_string( $ref ) || ! preg_match( '/^([a-z_]+):([A-Za-z0-9_-]{1,100})$/', $ref, $m ) || null === Sitewright_Vocabulary::item_kind( $m[1] ) ) {
			return null;
		}
		$creatable = in_array( $m[1], array( 'post', 'term' ), true ) && 'new' === $m[2];
		if ( in_array( $m[1], array( 'post', 'menu', 'term', 'seo', 'elementor' ), true ) && ! ctype_digit( $m[2] ) && ! $creatable ) {
			return null;
		}
		if ( 'option' === $m[1] && ! in_array( $m[2], Sitewright_Vocabulary::options(), true ) ) {
			return null;
		}
		if ( in_array( $m[1], Sitewright_Design_Items::KINDS, true ) && ! Sitewright_Design_Items::valid_key( $m[1], $m[2] ) ) {
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
		list( $kind, $key ) = (array) self::parse_ref( $ref );
		$state              = null;
		$title              = '';
		if ( 'post' === $kind && 'new' !== $key ) {
			clean_post_cache( (int) $key );
			$post = get_post( (int) $key );
			if ( $post instanceof WP_Post && 'revision' !== $post->post_type && 'auto-draft' !== $post->post_status ) {
				$state = self::post_state( $post );
				$title = $post->post_title;
			}
		} elseif ( 'option' === $kind ) {
			wp_cache_delete( $key, 'options' );
			wp_cache_delete( 'alloptions', 'options' );
			$state = array( 'value' => get_option( $key ) );
			$title = $key;
		} elseif ( 'custom_css' === $kind ) {
			$post = wp_get_custom_css_post( $key );
			if ( $post instanceof WP_Post ) {
				clean_post_cache( $post->ID );
			}
			$state = wp_get_theme( $key )->exists() ? array( 'css' => wp_get_custom_css( $key ) ) : null;
			$title = $key;
		} elseif ( 'menu' === $kind ) {
			clean_term_cache( (int) $key, 'nav_menu' );
			$menu = wp_get_nav_menu_object( (int) $key );
			if ( $menu ) {
				$state = self::menu_state( $menu );
				$title = $menu->name;
			}
		} elseif ( in_array( $kind, Sitewright_Design_Items::KINDS, true ) ) {
			list( $state, $title ) = Sitewright_Design_Items::read( (string) $kind, (string) $key );
		} elseif ( 'term' === $kind && 'new' !== $key ) {
			list( $state, $title ) = Sitewright_Term_Items::read( (int) $key );
		} elseif ( 'seo' === $kind ) {
			list( $state, $title ) = Sitewright_Seo_Items::read( (int) $key );
		} elseif ( 'elementor' === $kind ) {
			list( $state, $title ) = Sitewright_Elementor_Page::read( (int) $key );
		}
		$item = array(
			'ref'     => $ref,
			'kind'    => (string) $kind,
			'exists'  => null !== $state,
			'title'   => $title,
			'state'   => $state,
			'version' => self::version( $state ),
		);
		$info = null === $state ? array() : self::read_info( (string) $kind, (string) $key );
		return $info ? $item + array( 'info' => $info ) : $item;
	}

	/**
	 * A post's restorable state.
	 *
	 * @param WP_Post $post Post.
	 * @return array<string, mixed>
	 */
	private static function post_state( WP_Post $post ): array {
		return array(
			'type'           => $post->post_type,
			'status'         => $post->post_status,
			'title'          => $post->post_title,
			'content'        => $post->post_content,
			'excerpt'        => $post->post_excerpt,
			'slug'           => $post->post_name,
			'parent'         => (int) $post->post_parent,
			'menu_order'     => (int) $post->menu_order,
			'featured_media' => (int) get_post_meta( $post->ID, '_thumbnail_id', true ),
			'date'           => $post->post_date_gmt,
		) + self::added_post_state( $post );
	}

	/**
	 * The ADDED_POST_FIELDS a post has: its categories and tags, an image's alt text.
	 *
	 * @param WP_Post $post Post.
	 * @return array<string, mixed>
	 */
	private static function added_post_state( WP_Post $post ): array {
		$state = Sitewright_Term_Items::post_state( $post );
		if ( 'attachment' === $post->post_type ) {
			$state['alt'] = (string) get_post_meta( $post->ID, '_wp_attachment_image_alt', true );
		}
		return $state;
	}

	/**
	 * What a reader needs besides the state, outside the version: how many published posts use a term, a global
	 * styles item's style variations.
	 *
	 * @param string $kind Kind.
	 * @param string $key  Key.
	 * @return array<string, mixed>
	 */
	public static function read_info( string $kind, string $key ): array {
		if ( 'term' === $kind && ctype_digit( $key ) ) {
			return array( 'publishedUses' => Sitewright_Term_Items::published_uses( (int) $key ) );
		}
		if ( 'post' === $kind && ctype_digit( $key ) && 'attachment' === get_post_type( (int) $key ) ) {
			return array( 'publishedUses' => self::media_published_uses( (int) $key ) );
		}
		return Sitewright_Design_Items::info( $kind );
	}

	/**
	 * How many published posts show an attachment: as their featured image, or in their content (an image block's
	 * `wp-image-<id>` class or a file link to it).
	 *
	 * @param int $id Attachment id.
	 */
	private static function media_published_uses( int $id ): int {
		global $wpdb;
		$like = '%' . $wpdb->esc_like( 'wp-image-' . $id ) . '%';
		$url  = (string) wp_get_attachment_url( $id );
		$file = '' === $url ? $like : '%' . $wpdb->esc_like( $url ) . '%';
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		return (int) $wpdb->get_var(
			$wpdb->prepare(
				"SELECT COUNT(*) FROM {$wpdb->posts} p WHERE p.post_status IN ('publish', 'future') AND ( p.post_content LIKE %s OR p.post_content LIKE %s OR EXISTS ( SELECT 1 FROM {$wpdb->postmeta} m WHERE m.post_id = p.ID AND m.meta_key = '_thumbnail_id' AND m.meta_value = %s ) )",
				$like,
				$file,
				(string) $id
			)
		);
	}

	/**
	 * A classic menu's state: its name and items in order, each parent given as a position in that list (ids of
	 * menu items change when they are recreated, positions do not), so restoring gives the same version.
	 *
	 * @param WP_Term $menu Menu.
	 * @return array<string, mixed>
	 */
	private static function menu_state( WP_Term $menu ): array {
		$items    = wp_get_nav_menu_items( $menu->term_id, array( 'post_status' => 'publish,draft' ) );
		$items    = is_array( $items ) ? $items : array();
		$position = array();
		foreach ( array_values( $items ) as $index => $item ) {
			$position[ (int) $item->ID ] = $index + 1;
		}
		$list = array();
		foreach ( $items as $item ) {
			$parent = (int) $item->menu_item_parent;
			$list[] = array(
				'title'     => (string) $item->post_title,
				'url'       => 'custom' === $item->type ? (string) $item->url : '',
				'type'      => (string) $item->type,
				'object'    => (string) $item->object,
				// A custom link's object_id is its own id, which changes when it is recreated: not state.
				'object_id' => 'custom' === $item->type ? 0 : (int) $item->object_id,
				'parent'    => $position[ $parent ] ?? 0,
			);
		}
		return array(
			'name'  => $menu->name,
			'items' => $list,
		);
	}

	/**
	 * The scope a change of this kind needs (its writeScope; design:write for a post of a design type). An unknown
	 * kind needs a scope no token has.
	 *
	 * @param string $kind Kind.
	 * @param string $type Post type for a post (the existing one, or the one to create).
	 */
	public static function write_scope( string $kind, string $type = '' ): string {
		if ( 'post' === $kind && in_array( $type, Sitewright_Vocabulary::design_post_types(), true ) ) {
			return 'design:write';
		}
		return (string) ( Sitewright_Vocabulary::item_kind( $kind )['writeScope'] ?? '' );
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
	 * Checks one change's shape, scope and the current user's capability. Returns null when allowed.
	 *
	 * @param mixed              $change The change as sent.
	 * @param array<int, string> $scopes The token's scopes.
	 * @return array{code: string, message: string, status: int}|null
	 */
	public static function refuse_change( $change, array $scopes ): ?array {
		$bad = static fn( string $message ) => array(
			'code'    => 'rest_invalid_param',
			'message' => $message,
			'status'  => 400,
		);
		if ( ! is_array( $change ) ) {
			return $bad( __( 'Each change must be an object.', 'sitewright-connector' ) );
		}
		$parsed = self::parse_ref( $change['ref'] ?? null );
		if ( null === $parsed ) {
			return $bad( __( 'Unknown ref. Use post:<id>, option:<name>, custom_css:<stylesheet>, menu:<id>, global_styles:<stylesheet>, template_part:<slug>, template:<slug> or elementor:<id>.', 'sitewright-connector' ) );
		}
		list( $kind, $key ) = $parsed;
		$action             = $change['action'] ?? null;
		if ( ! in_array( $action, Sitewright_Vocabulary::item_list( $kind, 'actions' ), true ) ) {
			return $bad( __( 'This action is not possible for this kind of item.', 'sitewright-connector' ) );
		}
		if ( ( 'new' === $key ) !== ( 'create' === $action ) ) {
			return $bad( __( 'Create with the ref post:new or term:new, and only create with it.', 'sitewright-connector' ) );
		}
		$expect = $change['expect'] ?? null;
		if ( null !== $expect && ! is_string( $expect ) ) {
			return $bad( __( 'expect must be a version string or null.', 'sitewright-connector' ) );
		}
		if ( 'create' !== $action && null === $expect ) {
			return $bad( __( 'Every change but a creation must give the version it expects.', 'sitewright-connector' ) );
		}
		$fields = $change['fields'] ?? array();
		if ( ! is_array( $fields ) || array_is_list( $fields ) && array() !== $fields ) {
			return $bad( __( 'fields must be an object.', 'sitewright-connector' ) );
		}
		$unknown = self::unknown_fields( $kind, (string) $action, $fields );
		if ( $unknown ) {
			/* translators: %s: field names */
			return $bad( sprintf( __( 'Unknown fields: %s.', 'sitewright-connector' ), implode( ', ', $unknown ) ) );
		}
		if ( in_array( $kind, Sitewright_Design_Items::KINDS, true ) ) {
			$refused = Sitewright_Design_Items::refuse_fields( $kind, $key, $fields );
			if ( null !== $refused ) {
				return $bad( $refused );
			}
		}
		$refused = self::refuse_added_fields( $kind, $key, (string) $action, $fields );
		if ( null !== $refused ) {
			return $bad( $refused );
		}

		$type = '';
		if ( 'post' === $kind ) {
			$type = 'create' === $action ? (string) ( $fields['type'] ?? '' ) : (string) get_post_type( (int) $key );
			if ( 'create' === $action && ! post_type_exists( $type ) ) {
				return $bad( __( 'Give an existing post type as fields.type to create a post.', 'sitewright-connector' ) );
			}
		}
		$wrong_type = 'post' === $kind ? self::refuse_type( $type ) : null;
		if ( null !== $wrong_type ) {
			return array(
				'code'    => $wrong_type->get_error_code(),
				'message' => $wrong_type->get_error_message(),
				'status'  => 403,
			);
		}
		$scope = self::write_scope( $kind, $type );
		if ( ! in_array( $scope, $scopes, true ) ) {
			return array(
				'code'    => 'sitewright_scope',
				/* translators: %s: a scope */
				'message' => sprintf( __( 'This token\'s scopes do not allow this change (it needs %s).', 'sitewright-connector' ), $scope ),
				'status'  => 403,
			);
		}
		if ( ! self::user_can( $kind, $key, (string) $action, $type, $fields ) ) {
			return array(
				'code'    => 'rest_cannot_edit',
				'message' => __( 'This site does not allow Sitewright to make this change.', 'sitewright-connector' ),
				'status'  => 403,
			);
		}
		return null;
	}

	/**
	 * Why the fields of a term, an SEO item or a post's added fields cannot be written, or null.
	 *
	 * @param string               $kind   Kind.
	 * @param string               $key    Key.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	private static function refuse_added_fields( string $kind, string $key, string $action, array $fields ): ?string {
		if ( 'term' === $kind ) {
			return Sitewright_Term_Items::refuse_fields( $key, $action, $fields );
		}
		if ( 'seo' === $kind ) {
			return Sitewright_Seo_Items::refuse_fields( $fields );
		}
		if ( 'elementor' === $kind ) {
			return Sitewright_Elementor_Page::refuse_fields( $fields );
		}
		if ( 'post' !== $kind ) {
			return null;
		}
		$type = 'create' === $action ? (string) ( $fields['type'] ?? '' ) : (string) get_post_type( (int) $key );
		if ( array_key_exists( 'alt', $fields ) && ( 'attachment' !== $type || ! is_string( $fields['alt'] ) || wp_strip_all_tags( $fields['alt'] ) !== $fields['alt'] ) ) {
			return __( 'alt is plain text, and only media have it.', 'sitewright-connector' );
		}
		return Sitewright_Term_Items::refuse_post_fields( $type, $fields );
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
	 * Core's capability checks for the change, as the current (agent) user.
	 *
	 * @param string               $kind   Kind.
	 * @param string               $key    Key.
	 * @param string               $action Action.
	 * @param string               $type   Post type.
	 * @param array<string, mixed> $fields Fields.
	 */
	private static function user_can( string $kind, string $key, string $action, string $type, array $fields ): bool {
		if ( 'option' === $kind ) {
			return current_user_can( 'manage_options' );
		}
		if ( 'custom_css' === $kind ) {
			return current_user_can( 'edit_css' );
		}
		if ( 'menu' === $kind ) {
			return current_user_can( 'edit_theme_options' );
		}
		if ( in_array( $kind, Sitewright_Design_Items::KINDS, true ) ) {
			return Sitewright_Design_Items::user_can( $kind, $fields );
		}
		if ( 'term' === $kind ) {
			return Sitewright_Term_Items::user_can( $key, $action, $fields );
		}
		if ( 'seo' === $kind ) {
			return ! get_post( (int) $key ) || current_user_can( 'edit_post', (int) $key );
		}
		if ( 'elementor' === $kind ) {
			return Sitewright_Elementor_Page::user_can( (int) $key );
		}
		$object = get_post_type_object( $type );
		if ( ! $object ) {
			// Deleting or changing a post that no longer exists is answered by the version check (stale).
			return 'create' !== $action;
		}
		$status    = (string) ( $fields['status'] ?? '' );
		$publishes = in_array( $status, array( 'publish', 'future' ), true );
		if ( 'create' === $action ) {
			return current_user_can( $object->cap->create_posts ) && ( ! $publishes || current_user_can( $object->cap->publish_posts ) );
		}
		$id = (int) $key;
		if ( ! get_post( $id ) ) {
			return true;
		}
		if ( in_array( $action, array( 'delete', 'trash', 'restore' ), true ) ) {
			return current_user_can( 'delete_post', $id ) && ( ! $publishes || current_user_can( $object->cap->publish_posts ) );
		}
		return current_user_can( 'edit_post', $id ) && ( ! $publishes || current_user_can( $object->cap->publish_posts ) );
	}

	/**
	 * Checks every change's `expect` against the item's current version and applies the changes in order, all or
	 * nothing. The check and the writes run inside one database transaction (rolled back on any failure) and under
	 * Sitewright's own lock (so two batches never interleave); on MySQL the rows are locked FOR UPDATE first, so a
	 * person's save cannot land between the check and the write.
	 *
	 * @param array<int, array<string, mixed>> $changes Validated changes.
	 * @return array{items: array<int, array<string, mixed>>}|WP_Error
	 */
	public static function apply_batch( array $changes ) {
		global $wpdb;
		if ( ! self::lock() ) {
			return new WP_Error( 'sitewright_busy', __( 'Another change is being written to this site; try again in a moment.', 'sitewright-connector' ), array( 'status' => 503 ) );
		}
		$wpdb->query( 'START TRANSACTION' ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		try {
			self::lock_rows( $changes );
			$stale = array();
			$seen  = array();
			foreach ( $changes as $change ) {
				if ( 'create' === $change['action'] || isset( $seen[ $change['ref'] ] ) ) {
					continue;
				}
				$seen[ $change['ref'] ] = true;
				$current                = self::read( $change['ref'] );
				if ( ! $current['exists'] ) {
					$stale[] = array(
						'ref'    => $change['ref'],
						'reason' => 'missing',
					);
				} elseif ( ! self::matches( $current['state'], (string) $change['expect'] ) ) {
					$stale[] = array(
						'ref'     => $change['ref'],
						'reason'  => 'changed',
						'version' => $current['version'],
					);
				}
			}
			if ( $stale ) {
				self::rollback();
				return new WP_Error(
					'sitewright_stale',
					__( 'Some items changed on the site since they were read; nothing was written.', 'sitewright-connector' ),
					array(
						'status' => 409,
						'items'  => $stale,
					)
				);
			}

			$done     = array();
			$versions = array();
			foreach ( $changes as $change ) {
				$ref = $change['ref'];
				if ( isset( $versions[ $ref ] ) && ! hash_equals( (string) $versions[ $ref ], (string) $change['expect'] ) ) {
					self::rollback();
					return new WP_Error(
						'sitewright_stale',
						__( 'A later change of the same item expected another version; nothing was written.', 'sitewright-connector' ),
						array(
							'status' => 409,
							'items'  => array(
								array(
									'ref'    => $ref,
									'reason' => 'changed',
								),
							),
						)
					);
				}
				$result = self::apply_one( $change );
				if ( is_wp_error( $result ) ) {
					self::rollback();
					$data   = (array) $result->get_error_data();
					$status = (int) ( $data['status'] ?? 0 );
					$result->add_data(
						array_merge(
							$data,
							array(
								'status' => in_array( $status, array( 400, 409 ), true ) ? $status : 500,
								'ref'    => $ref,
							)
						)
					);
					return $result;
				}
				$versions[ $result['ref'] ] = $result['version'];
				$done[]                     = $result;
			}
			$wpdb->query( 'COMMIT' ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
			return array( 'items' => $done );
		} catch ( Throwable $error ) {
			self::rollback();
			return new WP_Error( 'sitewright_items_failed', __( 'The site could not write these changes; nothing was written.', 'sitewright-connector' ), array( 'status' => 500 ) );
		} finally {
			self::unlock();
		}
	}

	/**
	 * Rolls the transaction back and forgets cached objects it may have touched.
	 */
	private static function rollback(): void {
		global $wpdb;
		$wpdb->query( 'ROLLBACK' ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		wp_cache_flush();
	}

	/**
	 * On MySQL/MariaDB, locks the rows of the posts and options the batch touches until COMMIT or ROLLBACK, so a
	 * concurrent save by a person waits for us (and we see theirs if it came first). SQLite has one writer at a time.
	 *
	 * @param array<int, array<string, mixed>> $changes Changes.
	 */
	private static function lock_rows( array $changes ): void {
		global $wpdb;
		if ( defined( 'DB_ENGINE' ) && 'sqlite' === DB_ENGINE ) {
			return;
		}
		$ids     = array();
		$options = array();
		foreach ( $changes as $change ) {
			list( $kind, $key ) = (array) self::parse_ref( $change['ref'] );
			if ( in_array( $kind, array( 'post', 'elementor' ), true ) && 'new' !== $key ) {
				$ids[] = (int) $key;
			} elseif ( 'option' === $kind ) {
				$options[] = $key;
			}
		}
		if ( $ids ) {
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQLPlaceholders.UnfinishedPrepare
			$wpdb->query( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE ID IN (" . implode( ',', array_fill( 0, count( $ids ), '%d' ) ) . ') FOR UPDATE', $ids ) );
		}
		if ( $options ) {
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery, WordPress.DB.PreparedSQLPlaceholders.UnfinishedPrepare
			$wpdb->query( $wpdb->prepare( "SELECT option_id FROM {$wpdb->options} WHERE option_name IN (" . implode( ',', array_fill( 0, count( $options ), '%s' ) ) . ') FOR UPDATE', $options ) );
		}
	}

	/**
	 * Takes Sitewright's write lock: an option row inserted only if absent (atomic on MySQL and SQLite), taken over
	 * when a crashed request left it behind. Waits up to 10 s.
	 */
	private static function lock(): bool {
		global $wpdb;
		$deadline = microtime( true ) + 10;
		do {
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery
			$inserted = $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", self::LOCK_OPTION, (string) time() ) );
			if ( 1 === $inserted ) {
				return true;
			}
			// phpcs:ignore WordPress.DB.DirectDatabaseQuery
			$since = (int) $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", self::LOCK_OPTION ) );
			if ( $since > 0 && time() - $since > self::LOCK_STALE_SECONDS ) {
				// phpcs:ignore WordPress.DB.DirectDatabaseQuery
				$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s AND option_value = %s", self::LOCK_OPTION, (string) $since ) );
				continue;
			}
			usleep( 50000 );
		} while ( microtime( true ) < $deadline );
		return false;
	}

	/**
	 * Releases the write lock.
	 */
	private static function unlock(): void {
		global $wpdb;
		// phpcs:ignore WordPress.DB.DirectDatabaseQuery
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name = %s", self::LOCK_OPTION ) );
	}

	/**
	 * Applies one change and reads the item back.
	 *
	 * @param array<string, mixed> $change Change.
	 * @return array<string, mixed>|WP_Error
	 */
	private static function apply_one( array $change ) {
		list( $kind, $key ) = (array) self::parse_ref( $change['ref'] );
		$before             = 'create' === $change['action'] ? null : self::read( $change['ref'] );
		$fields             = (array) ( $change['fields'] ?? array() );
		$ref                = $change['ref'];
		$revision           = null;
		if ( 'post' === $kind ) {
			$result = self::write_post( $change['action'], 'new' === $key ? 0 : (int) $key, $fields );
			if ( is_wp_error( $result ) ) {
				return $result;
			}
			$ref = 'delete' === $change['action'] ? $ref : 'post:' . $result;
			if ( 'delete' !== $change['action'] && wp_revisions_enabled( get_post( (int) $result ) ) ) {
				$latest   = wp_get_post_revisions(
					(int) $result,
					array(
						'posts_per_page' => 1,
						'fields'         => 'ids',
					)
				);
				$revision = $latest ? (int) reset( $latest ) : null;
			}
		} elseif ( 'option' === $kind ) {
			update_option( $key, $fields['value'] ?? '' );
		} elseif ( 'custom_css' === $kind ) {
			$saved = self::write_css( $key, (string) ( $fields['css'] ?? '' ) );
			if ( is_wp_error( $saved ) ) {
				return $saved;
			}
		} elseif ( 'menu' === $kind ) {
			$saved = self::write_menu( (int) $key, $fields );
			if ( is_wp_error( $saved ) ) {
				return $saved;
			}
		} elseif ( 'term' === $kind ) {
			$saved = Sitewright_Term_Items::write( (string) $change['action'], 'new' === $key ? 0 : (int) $key, $fields );
			if ( is_wp_error( $saved ) ) {
				return $saved;
			}
			$ref = 'delete' === $change['action'] ? $ref : 'term:' . $saved;
		} elseif ( 'seo' === $kind ) {
			$saved = Sitewright_Seo_Items::write( (int) $key, $fields );
			if ( is_wp_error( $saved ) ) {
				return $saved;
			}
		} elseif ( 'elementor' === $kind ) {
			$saved = Sitewright_Elementor_Page::write( (int) $key, $fields );
			if ( is_wp_error( $saved ) ) {
				return $saved;
			}
		} elseif ( in_array( $kind, Sitewright_Design_Items::KINDS, true ) ) {
			$saved = Sitewright_Design_Items::write( $kind, $key, $fields );
			if ( is_wp_error( $saved ) ) {
				return $saved;
			}
			$post_id = Sitewright_Design_Items::post_id( $kind, $key );
			if ( $post_id && wp_revisions_enabled( get_post( $post_id ) ) ) {
				$latest   = wp_get_post_revisions(
					$post_id,
					array(
						'posts_per_page' => 1,
						'fields'         => 'ids',
					)
				);
				$revision = $latest ? (int) reset( $latest ) : null;
			}
		}
		$after = self::read( $ref );
		$item  = array(
			'ref'     => $ref,
			'action'  => $change['action'],
			'title'   => $after['title'] ? $after['title'] : ( $before['title'] ?? '' ),
			'before'  => $before['state'] ?? null,
			'after'   => $after['state'],
			'version' => $after['version'],
		);
		if ( null !== $revision ) {
			$item['revisionId'] = $revision;
		}
		return $item;
	}

	/**
	 * Creates, updates, deletes, trashes or restores a post, storing exactly the planned fields (write = plan:
	 * Sitewright_Exact_Write). Returns the post id.
	 *
	 * @param string               $action Action.
	 * @param int                  $id     Post id (0 to create).
	 * @param array<string, mixed> $fields Fields.
	 * @return int|WP_Error
	 */
	private static function write_post( string $action, int $id, array $fields ) {
		if ( 'delete' === $action ) {
			if ( 'attachment' === get_post_type( $id ) && Sitewright_Media::in_use( $id ) ) {
				return $id; // Undoing an upload keeps it while something else on the site shows it.
			}
			return wp_delete_post( $id, true ) ? $id : new WP_Error( 'sitewright_not_deleted', __( 'The item could not be deleted.', 'sitewright-connector' ), array( 'status' => 500 ) );
		}
		if ( 'trash' === $action ) {
			return wp_trash_post( $id ) ? $id : new WP_Error( 'sitewright_not_trashed', __( 'The item could not be moved to the trash.', 'sitewright-connector' ), array( 'status' => 500 ) );
		}
		if ( 'restore' === $action ) {
			if ( 'trash' === get_post_status( $id ) && ! wp_untrash_post( $id ) ) {
				return new WP_Error( 'sitewright_not_restored', __( 'The item could not be restored from the trash.', 'sitewright-connector' ), array( 'status' => 500 ) );
			}
		}
		$map  = array(
			'title'      => 'post_title',
			'content'    => 'post_content',
			'excerpt'    => 'post_excerpt',
			'status'     => 'post_status',
			'slug'       => 'post_name',
			'parent'     => 'post_parent',
			'menu_order' => 'menu_order',
			'type'       => 'post_type',
		);
		$data = array();
		foreach ( $map as $field => $column ) {
			if ( array_key_exists( $field, $fields ) ) {
				$data[ $column ] = is_scalar( $fields[ $field ] ) ? $fields[ $field ] : '';
			}
		}
		if ( isset( $fields['date'] ) && is_string( $fields['date'] ) && '' !== $fields['date'] ) {
			if ( '0000-00-00 00:00:00' === $fields['date'] ) {
				// A draft that never had a date (undoing a publication): WordPress keeps it floating.
				$data['post_date_gmt'] = $fields['date'];
			} else {
				$data['post_date_gmt'] = $fields['date'];
				$data['post_date']     = get_date_from_gmt( $fields['date'] );
				$data['edit_date']     = true;
			}
		}
		// Write = plan (Sitewright_Exact_Write): the new bytes must pass the field's filter, the rest is not
		// filtered again, and the post must read back as planned.
		$current = 'create' === $action ? null : get_post( $id );
		$current = $current instanceof WP_Post ? $current : null;
		$ref     = 'create' === $action ? 'post:new' : 'post:' . $id;
		$refused = Sitewright_Exact_Write::refuse_filtered( $ref, $current, $fields );
		if ( null !== $refused ) {
			return $refused;
		}
		$before = $current ? self::post_state( $current ) : null;
		if ( $current ) {
			Sitewright_Exact_Write::remember_overwritten( $current, $fields );
		}
		if ( 'create' === $action ) {
			$data += array(
				'post_status' => 'draft',
				'post_author' => get_current_user_id(),
			);
			$saved = Sitewright_Exact_Write::without_kses( static fn() => wp_insert_post( wp_slash( $data ), true ) );
		} elseif ( $data ) {
			$data['ID'] = $id;
			$saved      = Sitewright_Exact_Write::without_kses( static fn() => wp_update_post( wp_slash( $data ), true ) );
		} else {
			$saved = $id;
		}
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( $saved->get_error_code(), $saved->get_error_message(), array( 'status' => 400 ) );
		}
		$changed = Sitewright_Exact_Write::refuse_changed( $ref, (int) $saved, $fields, $before );
		if ( null !== $changed ) {
			return $changed;
		}
		$terms = Sitewright_Term_Items::write_post_terms( (int) $saved, $fields );
		if ( is_wp_error( $terms ) ) {
			return $terms;
		}
		if ( array_key_exists( 'alt', $fields ) ) {
			update_post_meta( (int) $saved, '_wp_attachment_image_alt', wp_slash( (string) $fields['alt'] ) );
		}
		if ( array_key_exists( 'featured_media', $fields ) ) {
			$media = (int) $fields['featured_media'];
			if ( $media > 0 ) {
				set_post_thumbnail( (int) $saved, $media );
			} else {
				delete_post_thumbnail( (int) $saved );
			}
		}
		return (int) $saved;
	}

	/**
	 * Saves the custom CSS of a theme (markup refused, kses off for this save only, as the custom-css route does).
	 *
	 * @param string $stylesheet Theme.
	 * @param string $css        CSS.
	 * @return true|WP_Error
	 */
	private static function write_css( string $stylesheet, string $css ) {
		if ( strlen( $css ) > Sitewright_REST_Custom_CSS_Controller::MAX_BYTES || preg_match( '#</?\w+#', $css ) ) {
			return new WP_Error( 'rest_invalid_param', __( 'CSS must be plain CSS of at most 64 KiB.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		kses_remove_filters();
		try {
			$saved = wp_update_custom_css_post( $css, array( 'stylesheet' => $stylesheet ) );
		} finally {
			kses_init();
		}
		return is_wp_error( $saved ) ? $saved : true;
	}

	/**
	 * Makes a classic menu hold exactly the given name and items (the items are recreated in order).
	 *
	 * @param int                  $menu_id Menu term id.
	 * @param array<string, mixed> $fields  The name and items, as menu_state gives them.
	 * @return true|WP_Error
	 */
	private static function write_menu( int $menu_id, array $fields ) {
		if ( isset( $fields['name'] ) && is_string( $fields['name'] ) ) {
			$renamed = wp_update_nav_menu_object( $menu_id, wp_slash( array( 'menu-name' => $fields['name'] ) ) );
			if ( is_wp_error( $renamed ) ) {
				return new WP_Error( $renamed->get_error_code(), $renamed->get_error_message(), array( 'status' => 400 ) );
			}
		}
		if ( ! isset( $fields['items'] ) || ! is_array( $fields['items'] ) ) {
			return true;
		}
		foreach ( (array) wp_get_nav_menu_items( $menu_id, array( 'post_status' => 'publish,draft' ) ) as $old ) {
			wp_delete_post( (int) $old->ID, true );
		}
		$ids = array();
		foreach ( array_values( $fields['items'] ) as $index => $item ) {
			$item   = (array) $item;
			$parent = (int) ( $item['parent'] ?? 0 );
			$args   = array(
				'menu-item-title'     => (string) ( $item['title'] ?? '' ),
				'menu-item-type'      => (string) ( $item['type'] ?? 'custom' ),
				'menu-item-object'    => (string) ( $item['object'] ?? 'custom' ),
				'menu-item-object-id' => (int) ( $item['object_id'] ?? 0 ),
				'menu-item-url'       => (string) ( $item['url'] ?? '' ),
				'menu-item-parent-id' => $parent > 0 && isset( $ids[ $parent ] ) ? $ids[ $parent ] : 0,
				'menu-item-position'  => $index + 1,
				'menu-item-status'    => 'publish',
			);
			$new    = wp_update_nav_menu_item( $menu_id, 0, wp_slash( $args ) );
			if ( is_wp_error( $new ) ) {
				return new WP_Error( $new->get_error_code(), $new->get_error_message(), array( 'status' => 400 ) );
			}
			$ids[ $index + 1 ] = (int) $new;
		}
		return true;
	}
}
