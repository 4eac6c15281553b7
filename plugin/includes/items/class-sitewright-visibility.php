<?php
/**
 * Whether visitors would see a planned change, and where (POST /sitewright/v1/items/visibility, and the re-check of
 * POST /sitewright/v1/items with requireInvisible). Decided from WordPress's own data per item kind; when it cannot
 * tell, the change counts as visible (docs/visibility.md).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The visibility decision.
 */
final class Sitewright_Visibility {

	/**
	 * The answer for one validated change: `{ref, visible, places, more}`. Any failure answers visible.
	 *
	 * @param array<string, mixed> $change A change as POST /items carries it (already checked by refuse_change).
	 * @return array{ref: string, visible: bool, places: array<int, array<string, string>>, more: int}
	 */
	public static function of_change( array $change ): array {
		$ref    = (string) ( $change['ref'] ?? '' );
		$places = new Sitewright_Places();
		try {
			$parsed = Sitewright_Items::parse_ref( $ref );
			$kind   = null === $parsed ? null : Sitewright_Item_Kinds::get( $parsed[0] );
			if ( null === $kind ) {
				$places->unknown();
			} else {
				$kind->places( $parsed[1], (string) ( $change['action'] ?? '' ), (array) ( $change['fields'] ?? array() ), $places );
			}
		} catch ( Throwable $error ) {
			$places = new Sitewright_Places();
			$places->unknown();
		}
		return $places->answer( $ref );
	}

	/**
	 * The first change of a batch that visitors would see, with its index, or null when none would be.
	 *
	 * @param array<int, array<string, mixed>> $changes Validated changes.
	 * @return array{index: int, ref: string, places: array<int, array<string, string>>, more: int}|null
	 */
	public static function first_visible( array $changes ): ?array {
		foreach ( array_values( $changes ) as $index => $change ) {
			$answer = self::of_change( $change );
			if ( $answer['visible'] ) {
				return array(
					'index'  => $index,
					'ref'    => $answer['ref'],
					'places' => $answer['places'],
					'more'   => $answer['more'],
				);
			}
		}
		return null;
	}
}
