<?php
/**
 * `option:<name>`: one of the site settings vocabulary.json's items.options allows. State: `{value}`.
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
	 * Only the allowed options.
	 *
	 * @param string $key Option name.
	 */
	public function valid_key( string $key ): bool {
		return in_array( $key, Sitewright_Vocabulary::options(), true );
	}

	/**
	 * Reads the option (caches cleared).
	 *
	 * @param string $key Option name.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		wp_cache_delete( $key, 'options' );
		wp_cache_delete( 'alloptions', 'options' );
		return array( array( 'value' => get_option( $key ) ), $key );
	}

	/**
	 * The manage_options capability.
	 *
	 * @param string               $key    Option name.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		return current_user_can( 'manage_options' );
	}

	/**
	 * Updates the option.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Option name.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		update_option( $key, $fields['value'] ?? '' );
		return $key;
	}

	/**
	 * The option's row.
	 *
	 * @param string $key Option name.
	 * @return array{0: array<int, int>, 1: array<int, string>}
	 */
	public function rows( string $key ): array {
		return array( array(), array( $key ) );
	}

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
