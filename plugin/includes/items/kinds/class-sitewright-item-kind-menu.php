<?php
/**
 * `menu:<id>`: a classic menu, its name and items.
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
}
