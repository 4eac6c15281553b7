<?php
/**
 * The contract every item kind (`post`, `term`, `option`, …) keeps: one class per kind, found through
 * Sitewright_Item_Kinds by the kind part of a ref (`kind:key`).
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
	 * Adds the places where visitors would see the change (none: they would not see it). Called for a change
	 * refuse_change accepted; the key may be `new` for a creation.
	 *
	 * @param string               $key    The ref's key.
	 * @param string               $action The change's action.
	 * @param array<string, mixed> $fields The change's fields.
	 * @param Sitewright_Places    $places Places.
	 */
	abstract public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void;
}
