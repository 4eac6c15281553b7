<?php
/**
 * The registry of item kinds: the class that handles each kind of ref. Another part of the plugin (a page builder)
 * adds its kind with the `sitewright_item_kinds` filter; the kind must also be in vocabulary.json's items.kinds.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Item kinds by name.
 */
final class Sitewright_Item_Kinds {

	/**
	 * The kinds, built on first use.
	 *
	 * @var array<string, Sitewright_Item_Kind>|null
	 */
	private static ?array $kinds = null;

	/**
	 * Every kind by name.
	 *
	 * @return array<string, Sitewright_Item_Kind>
	 */
	public static function all(): array {
		if ( null === self::$kinds ) {
			$kinds = array(
				'post'          => new Sitewright_Item_Kind_Post( 'post' ),
				'option'        => new Sitewright_Item_Kind_Option( 'option' ),
				'custom_css'    => new Sitewright_Item_Kind_Custom_Css( 'custom_css' ),
				'menu'          => new Sitewright_Item_Kind_Menu( 'menu' ),
				'global_styles' => new Sitewright_Item_Kind_Global_Styles( 'global_styles' ),
				'template_part' => new Sitewright_Item_Kind_Template( 'template_part' ),
				'template'      => new Sitewright_Item_Kind_Template( 'template' ),
				'term'          => new Sitewright_Item_Kind_Term( 'term' ),
				'seo'           => new Sitewright_Item_Kind_Seo( 'seo' ),
			);
			/**
			 * The item kinds, by the kind part of their refs.
			 *
			 * @param array<string, Sitewright_Item_Kind> $kinds Kinds.
			 */
			$filtered    = apply_filters( 'sitewright_item_kinds', $kinds );
			self::$kinds = array_filter( is_array( $filtered ) ? $filtered : $kinds, static fn( $kind ) => $kind instanceof Sitewright_Item_Kind );
		}
		return self::$kinds;
	}

	/**
	 * The kind of this name, or null.
	 *
	 * @param string $name Kind name.
	 */
	public static function get( string $name ): ?Sitewright_Item_Kind {
		return self::all()[ $name ] ?? null;
	}

	/**
	 * Forgets the built registry (a test that adds a kind with the filter).
	 */
	public static function reset(): void {
		self::$kinds = null;
	}
}
