<?php
/**
 * `post:<id>` (or `post:new` to create): a page, post, image, synced pattern or block-theme design post of
 * vocabulary.json's items.postTypes. State: type, status, title, content, excerpt, slug, parent, menu order,
 * featured image, date (GMT), and the ADDED_POST_FIELDS: categories and tags (Sitewright_Post_Terms), an image's alt
 * text. Actions: update, create, delete, trash, restore. Writes store exactly the planned fields
 * (Sitewright_Exact_Write).
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
	 * `post:new` creates a post.
	 */
	public function creatable(): bool {
		return true;
	}

	/**
	 * Reads a post (not a revision, not an auto-draft).
	 *
	 * @param string $key Post id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		if ( 'new' === $key ) {
			return array( null, '' );
		}
		clean_post_cache( (int) $key );
		$post = get_post( (int) $key );
		if ( $post instanceof WP_Post && 'revision' !== $post->post_type && 'auto-draft' !== $post->post_status ) {
			return array( self::post_state( $post ), $post->post_title );
		}
		return array( null, '' );
	}

	/**
	 * How many published posts show an image (for the card; visibility is decided by places()).
	 *
	 * @param string $key Post id.
	 * @return array<string, mixed>
	 */
	public function read_info( string $key ): array {
		if ( 'attachment' === get_post_type( (int) $key ) ) {
			return array( 'publishedUses' => self::media_published_uses( (int) $key ) );
		}
		return array();
	}

	/**
	 * The content:write scope, or design:write for a post of a design type.
	 *
	 * @param string $type Post type.
	 */
	public function write_scope( string $type = '' ): string {
		if ( in_array( $type, Sitewright_Vocabulary::design_post_types(), true ) ) {
			return 'design:write';
		}
		return parent::write_scope( $type );
	}

	/**
	 * The existing post's type, or the one to create.
	 *
	 * @param string               $key    Post id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function target_type( string $key, string $action, array $fields ): string {
		return 'create' === $action ? (string) ( $fields['type'] ?? '' ) : (string) get_post_type( (int) $key );
	}

	/**
	 * An alt text only for media and as plain text; terms that exist; a creation's type must exist.
	 *
	 * @param string               $key    Post id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		$type = $this->target_type( $key, $action, $fields );
		if ( array_key_exists( 'alt', $fields ) && ( 'attachment' !== $type || ! is_string( $fields['alt'] ) || wp_strip_all_tags( $fields['alt'] ) !== $fields['alt'] ) ) {
			return __( 'alt is plain text, and only media have it.', 'sitewright-connector' );
		}
		$terms = Sitewright_Post_Terms::refuse_post_fields( $type, $fields );
		if ( null !== $terms ) {
			return $terms;
		}
		if ( 'create' === $action && ! post_type_exists( $type ) ) {
			return __( 'Give an existing post type as fields.type to create a post.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Only the post types Sitewright handles (Sitewright_Items::refuse_type).
	 *
	 * @param string               $key    Post id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_target( string $key, string $action, array $fields ): ?WP_Error {
		return Sitewright_Items::refuse_type( $this->target_type( $key, $action, $fields ) );
	}

	/**
	 * Core's capabilities of the post type: create, edit or delete the post, and publish when the change publishes.
	 *
	 * @param string               $key    Post id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		$object = get_post_type_object( $this->target_type( $key, $action, $fields ) );
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
	 * Creates, updates, deletes, trashes or restores the post; a creation answers the new id.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Post id or 'new'.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write_post( $action, 'new' === $key ? 0 : (int) $key, $fields );
		if ( is_wp_error( $saved ) ) {
			return $saved;
		}
		return 'delete' === $action ? $key : (string) $saved;
	}

	/**
	 * The newest revision after a write (none after a deletion).
	 *
	 * @param string $action Action.
	 * @param string $key    Post id.
	 */
	public function revision( string $action, string $key ): ?int {
		return 'delete' === $action ? null : self::latest_revision( (int) $key );
	}

	/**
	 * The post's row.
	 *
	 * @param string $key Post id or 'new'.
	 * @return array{0: array<int, int>, 1: array<int, string>}
	 */
	public function rows( string $key ): array {
		return array( 'new' === $key ? array() : array( (int) $key ), array() );
	}

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
		// The local date too: a floating draft's (post_date_gmt 0000-00-00 00:00:00) is kept only there.
		$state = array( 'date_local' => $post->post_date ) + Sitewright_Post_Terms::post_state( $post );
		if ( 'attachment' === $post->post_type ) {
			$state['alt'] = (string) get_post_meta( $post->ID, '_wp_attachment_image_alt', true );
		}
		return $state;
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
		$data = self::post_data( $fields, $id );
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
			$data      += self::floating_date_kept( $current, $fields );
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
		$meta = self::write_post_meta( (int) $saved, $fields );
		if ( is_wp_error( $meta ) ) {
			return $meta;
		}
		return (int) $saved;
	}

	/**
	 * The wp_insert_post / wp_update_post columns of the planned fields (a GMT date also sets the local one; a
	 * recorded local date is written as it was).
	 *
	 * @param array<string, mixed> $fields Fields.
	 * @param int                  $id     Post id (0 when creating).
	 * @return array<string, mixed>
	 */
	private static function post_data( array $fields, int $id ): array {
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
		if ( isset( $fields['date_local'] ) && is_string( $fields['date_local'] ) && '' !== $fields['date_local'] ) {
			// The local date as recorded (undo gives a floating draft its own date back, not the time of the undo).
			$data['post_date'] = $fields['date_local'];
			$data['edit_date'] = true;
			if ( ! isset( $data['post_date_gmt'] ) && '0000-00-00 00:00:00' !== (string) get_post_field( 'post_date_gmt', $id ) ) {
				$data['post_date_gmt'] = get_gmt_from_date( $fields['date_local'] );
			}
		}
		return $data;
	}

	/**
	 * A floating draft's own local date (post_date_gmt 0000-00-00 00:00:00: "publish immediately"), for a write that
	 * leaves it floating and plans no date: WordPress dates such a draft "now" on every save (wp_update_post), a
	 * change the owner's card never showed, and undo had to send the date back. A write that publishes or schedules
	 * the draft, or plans a date, is dated as WordPress dates it (the publication's time, not the draft's).
	 *
	 * @param WP_Post|null         $post   The post before the write.
	 * @param array<string, mixed> $fields Fields.
	 * @return array<string, mixed> post_date with edit_date, or nothing.
	 */
	private static function floating_date_kept( ?WP_Post $post, array $fields ): array {
		if ( ! $post || '0000-00-00 00:00:00' !== $post->post_date_gmt || isset( $fields['date'] ) || isset( $fields['date_local'] ) ) {
			return array();
		}
		$status = isset( $fields['status'] ) && is_string( $fields['status'] ) ? $fields['status'] : $post->post_status;
		// The statuses wp_update_post re-dates (and whose GMT date wp_insert_post then keeps floating).
		if ( ! in_array( $status, array( 'draft', 'pending', 'auto-draft' ), true ) || ! in_array( $post->post_status, array( 'draft', 'pending', 'auto-draft' ), true ) ) {
			return array();
		}
		return array(
			'post_date' => $post->post_date,
			'edit_date' => true,
		);
	}

	/**
	 * Writes what is not a column: the post's terms, an image's alt text, the featured image.
	 *
	 * @param int                  $id     Post id.
	 * @param array<string, mixed> $fields Fields.
	 * @return true|WP_Error
	 */
	private static function write_post_meta( int $id, array $fields ) {
		$terms = Sitewright_Post_Terms::write_post_terms( $id, $fields );
		if ( is_wp_error( $terms ) ) {
			return $terms;
		}
		if ( array_key_exists( 'alt', $fields ) ) {
			update_post_meta( $id, '_wp_attachment_image_alt', wp_slash( (string) $fields['alt'] ) );
		}
		if ( array_key_exists( 'featured_media', $fields ) ) {
			$media = (int) $fields['featured_media'];
			if ( $media > 0 ) {
				set_post_thumbnail( $id, $media );
			} else {
				delete_post_thumbnail( $id );
			}
		}
		return true;
	}
}
