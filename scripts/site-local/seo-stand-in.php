<?php
/**
 * Plugin Name: Sitewright SEO stand-in (local sites only)
 * Description: Stands in for Yoast SEO so SEO operations can be tried on a local site (npm run site:local --
 * --seo-stand-in): Yoast's version constant, which makes Sitewright read and write Yoast's post meta keys, and the
 * meta description printed in the head from Yoast's own key, as Yoast does. Not Yoast: no sitemaps, no analysis.
 *
 * @package Sitewright
 */

defined( 'ABSPATH' ) || exit;

define( 'WPSEO_VERSION', '24.0-stand-in' );

foreach ( array( '_yoast_wpseo_title', '_yoast_wpseo_metadesc', '_yoast_wpseo_focuskw', '_yoast_wpseo_canonical', '_yoast_wpseo_meta-robots-noindex' ) as $sitewright_seo_key ) {
	register_meta(
		'post',
		$sitewright_seo_key,
		array(
			'type'         => 'string',
			'single'       => true,
			'show_in_rest' => false,
		)
	);
}

add_action(
	'wp_head',
	static function (): void {
		if ( ! is_singular() ) {
			return;
		}
		$description = (string) get_post_meta( (int) get_queried_object_id(), '_yoast_wpseo_metadesc', true );
		if ( '' !== $description ) {
			echo '<meta name="description" content="' . esc_attr( $description ) . '" />' . "\n";
		}
	}
);
