<?php
/**
 * `option:<name>`: one of the site settings in vocabulary.json's items.options.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Settings as items.
 */
final class Sitewright_Item_Kind_Option extends Sitewright_Item_Kind {

	/**
	 * A setting is site-wide: always seen.
	 *
	 * @param string               $key    Option name.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$names = (array) ( Sitewright_Vocabulary::data()['items']['options'] ?? array() );
		/* translators: %s: a setting's name, e.g. Site title */
		$places->add( 'setting', sprintf( __( 'the site-wide setting “%s”', 'sitewright-connector' ), (string) ( $names[ $key ] ?? $key ) ), home_url( '/' ) );
	}
}
