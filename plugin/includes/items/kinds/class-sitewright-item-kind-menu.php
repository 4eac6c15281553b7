<?php
/**
 * `menu:<id>`: a classic menu. State: its name and items in order, each parent given as a position in that list.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Classic menus as items.
 */
final class Sitewright_Item_Kind_Menu extends Sitewright_Item_Kind {

	/**
	 * Reads the menu.
	 *
	 * @param string $key Menu term id.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		clean_term_cache( (int) $key, 'nav_menu' );
		$menu = wp_get_nav_menu_object( (int) $key );
		return $menu ? array( self::menu_state( $menu ), $menu->name ) : array( null, '' );
	}

	/**
	 * The edit_theme_options capability.
	 *
	 * @param string               $key    Menu term id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		return current_user_can( 'edit_theme_options' );
	}

	/**
	 * Makes the menu hold exactly the given name and items.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Menu term id.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write_menu( (int) $key, $fields );
		return is_wp_error( $saved ) ? $saved : $key;
	}

	/**
	 * A menu is design: counted as seen, named.
	 *
	 * @param string               $key    Menu id.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$menu = wp_get_nav_menu_object( (int) $key );
		/* translators: %s: a menu's name */
		$places->add( 'menu', sprintf( __( 'the classic menu %s', 'sitewright-connector' ), $menu ? $menu->name : $key ) );
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
