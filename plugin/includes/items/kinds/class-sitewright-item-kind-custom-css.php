<?php
/**
 * `custom_css:<stylesheet>`: the Customizer's additional CSS of a theme.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Custom CSS as an item.
 */
final class Sitewright_Item_Kind_Custom_Css extends Sitewright_Item_Kind {

	/**
	 * Design is site-wide: always seen.
	 *
	 * @param string               $key    Theme.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$places->add( 'design', __( 'the site-wide custom CSS', 'sitewright-connector' ), home_url( '/' ) );
	}
}
