<?php
/**
 * `term:<id>` (or `term:new`): a category or tag (Sitewright_Term_Items).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Terms as items.
 */
final class Sitewright_Item_Kind_Term extends Sitewright_Item_Kind {

	/**
	 * A term is seen where Sitewright_Term_Places finds it; a new term is used nowhere yet.
	 *
	 * @param string               $key    Term id or 'new'.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$term = 'new' === $key ? null : get_term( (int) $key );
		if ( $term instanceof WP_Term ) {
			Sitewright_Term_Places::add( $term, $places );
		}
	}
}
