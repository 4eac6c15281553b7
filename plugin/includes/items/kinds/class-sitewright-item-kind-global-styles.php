<?php
/**
 * `global_styles:<stylesheet>`: the user's global styles of the active block theme (Sitewright_Design_Items).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Global styles as an item.
 */
final class Sitewright_Item_Kind_Global_Styles extends Sitewright_Item_Kind {

	/**
	 * Design is site-wide: always seen.
	 *
	 * @param string               $key    Theme.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$places->add( 'design', __( 'the site-wide global styles', 'sitewright-connector' ), home_url( '/' ) );
	}
}
