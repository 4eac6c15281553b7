<?php
/**
 * `template:<slug>` and `template_part:<slug>`: a template or template part of the active block theme
 * (Sitewright_Design_Items).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Templates and template parts as items.
 */
final class Sitewright_Item_Kind_Template extends Sitewright_Item_Kind {

	/**
	 * The kind: template or template_part.
	 *
	 * @var string
	 */
	private string $kind;

	/**
	 * A kind of template.
	 *
	 * @param string $kind Template or template_part.
	 */
	public function __construct( string $kind ) {
		$this->kind = $kind;
	}

	/**
	 * A template or part is design: counted as seen (erring on visible even if no template uses the part).
	 *
	 * @param string               $key    Slug.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		if ( 'template_part' === $this->kind ) {
			/* translators: %s: a template part's slug, e.g. header */
			$places->add( 'template_part', sprintf( __( 'the %s template part', 'sitewright-connector' ), $key ), home_url( '/' ) );
			return;
		}
		/* translators: %s: a template's slug, e.g. single */
		$places->add( 'template', sprintf( __( 'the %s template', 'sitewright-connector' ), $key ) );
	}
}
