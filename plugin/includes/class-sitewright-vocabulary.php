<?php
/**
 * What the plugin and the Sitewright app agree on, read from vocabulary.json at the plugin's root: the same file the
 * app imports (lib/vocabulary.ts), so the items protocol's kinds, fields, options and post types are written once.
 * Decoded once per request. A missing or broken file reads as empty lists: every item is refused (fails closed).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The shared vocabulary.
 */
final class Sitewright_Vocabulary {

	/**
	 * The decoded file, once read.
	 *
	 * @var array<string, mixed>|null
	 */
	private static ?array $data = null;

	/**
	 * The whole file.
	 *
	 * @return array<string, mixed>
	 */
	public static function data(): array {
		if ( null === self::$data ) {
			$decoded    = wp_json_file_decode( dirname( __DIR__ ) . '/vocabulary.json', array( 'associative' => true ) );
			self::$data = is_array( $decoded ) ? $decoded : array();
		}
		return self::$data;
	}

	/**
	 * One kind of item ref: its actions, fields, createFields, readScope and writeScope; null for an unknown kind.
	 *
	 * @param string $kind Kind (post, option, custom_css, menu, global_styles, template_part).
	 * @return array<string, mixed>|null
	 */
	public static function item_kind( string $kind ): ?array {
		$kinds = self::item_kinds();
		return isset( $kinds[ $kind ] ) && is_array( $kinds[ $kind ] ) ? $kinds[ $kind ] : null;
	}

	/**
	 * Every kind of item ref, by name.
	 *
	 * @return array<string, array<string, mixed>>
	 */
	public static function item_kinds(): array {
		return (array) ( self::data()['items']['kinds'] ?? array() );
	}

	/**
	 * A list of strings from a kind (actions, fields, createFields).
	 *
	 * @param string $kind Kind.
	 * @param string $key  List name.
	 * @return array<int, string>
	 */
	public static function item_list( string $kind, string $key ): array {
		return array_values( array_map( 'strval', (array) ( self::item_kind( $kind )[ $key ] ?? array() ) ) );
	}

	/**
	 * The options an option: ref may name.
	 *
	 * @return array<int, string>
	 */
	public static function options(): array {
		return array_map( 'strval', array_keys( (array) ( self::data()['items']['options'] ?? array() ) ) );
	}

	/**
	 * The post types a post: ref may be.
	 *
	 * @return array<int, string>
	 */
	public static function post_types(): array {
		return array_values( array_map( 'strval', (array) ( self::data()['items']['postTypes'] ?? array() ) ) );
	}

	/**
	 * The post types that are the site's design (design:write).
	 *
	 * @return array<int, string>
	 */
	public static function design_post_types(): array {
		return array_map( 'strval', array_keys( (array) ( self::data()['items']['designPostTypes'] ?? array() ) ) );
	}

	/**
	 * A number from limits, or the fallback when the file lacks it.
	 *
	 * @param string $name     Limit name.
	 * @param int    $fallback Value when absent.
	 */
	public static function limit( string $name, int $fallback = 0 ): int {
		$value = self::data()['limits'][ $name ] ?? null;
		return is_int( $value ) ? $value : $fallback;
	}
}
