<?php
/**
 * What the site is: name, URLs, versions, theme, page builder. Sent to the service when connecting and served
 * by GET /sitewright/v1/info.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Site facts and page builder detection.
 */
final class Sitewright_Site_Info {

	/** Everything features() can report. */
	public const FEATURES = array( 'custom_css', 'terms', 'media_alt', 'seo', 'media_upload' );

	/**
	 * Page builders: id => [label, plugin basenames, theme templates, content needles, post meta keys].
	 *
	 * @return array<string, array{label: string, plugins: array<int, string>, themes: array<int, string>, content: array<int, string>, meta: array<int, string>}>
	 */
	public static function builders(): array {
		return array(
			'elementor'      => array(
				'label'   => 'Elementor',
				'plugins' => array( 'elementor/elementor.php', 'elementor-pro/elementor-pro.php' ),
				'themes'  => array( 'hello-elementor' ),
				'content' => array( 'elementor-widget' ),
				'meta'    => array( '_elementor_edit_mode', '_elementor_data' ),
			),
			'divi'           => array(
				'label'   => 'Divi',
				'plugins' => array( 'divi-builder/divi-builder.php' ),
				'themes'  => array( 'Divi', 'Extra' ),
				'content' => array( '[et_pb_section' ),
				'meta'    => array( '_et_pb_use_builder' ),
			),
			'beaver-builder' => array(
				'label'   => 'Beaver Builder',
				'plugins' => array( 'beaver-builder-lite-version/fl-builder.php', 'bb-plugin/fl-builder.php' ),
				'themes'  => array( 'bb-theme' ),
				'content' => array( 'fl-builder-content' ),
				'meta'    => array( '_fl_builder_enabled', '_fl_builder_data' ),
			),
			'bricks'         => array(
				'label'   => 'Bricks',
				'plugins' => array(),
				'themes'  => array( 'bricks' ),
				'content' => array( 'brxe-' ),
				'meta'    => array( '_bricks_page_content_2', '_bricks_editor_mode' ),
			),
			'oxygen'         => array(
				'label'   => 'Oxygen',
				'plugins' => array( 'oxygen/functions.php' ),
				'themes'  => array(),
				'content' => array( '[ct_section' ),
				'meta'    => array( 'ct_builder_shortcodes', 'ct_builder_json' ),
			),
			'wpbakery'       => array(
				'label'   => 'WPBakery',
				'plugins' => array( 'js_composer/js_composer.php' ),
				'themes'  => array(),
				'content' => array( '[vc_row' ),
				'meta'    => array( '_wpb_vc_js_status' ),
			),
			'classic-editor' => array(
				'label'   => 'Classic editor',
				'plugins' => array( 'classic-editor/classic-editor.php', 'disable-gutenberg/disable-gutenberg.php' ),
				'themes'  => array(),
				'content' => array(),
				'meta'    => array(),
			),
			'gutenberg'      => array(
				'label'   => 'Block editor (Gutenberg)',
				'plugins' => array( 'gutenberg/gutenberg.php' ),
				'themes'  => array(),
				'content' => array( '<!-- wp:' ),
				'meta'    => array(),
			),
		);
	}

	/**
	 * The site's facts.
	 *
	 * @return array<string, mixed>
	 */
	public static function collect(): array {
		global $wp_version;
		$theme = wp_get_theme();
		return array(
			'name'          => get_bloginfo( 'name' ),
			'description'   => get_bloginfo( 'description' ),
			'homeUrl'       => home_url(),
			'siteUrl'       => site_url(),
			'restUrl'       => rest_url(),
			'adminUrl'      => admin_url(),
			'language'      => get_bloginfo( 'language' ),
			'timezone'      => wp_timezone_string(),
			'wordpress'     => (string) $wp_version,
			'php'           => PHP_VERSION,
			'plugin'        => array( 'version' => SITEWRIGHT_VERSION ),
			'multisite'     => is_multisite(),
			'permalinks'    => '' !== (string) get_option( 'permalink_structure' ),
			'theme'         => array(
				'name'         => (string) $theme->get( 'Name' ),
				'stylesheet'   => $theme->get_stylesheet(),
				'template'     => $theme->get_template(),
				'version'      => (string) $theme->get( 'Version' ),
				'isBlockTheme' => function_exists( 'wp_is_block_theme' ) && wp_is_block_theme(),
			),
			'pageBuilder'   => self::primary_builder(),
			'pageBuilders'  => self::detect_builders(),
			'activePlugins' => array_values( (array) get_option( 'active_plugins', array() ) ),
			'features'      => self::features(),
			'seo'           => Sitewright_Item_Kind_Seo::active(),
			'mediaMaxBytes' => Sitewright_Media::max_bytes(),
		);
	}

	/**
	 * What this plugin adds beyond core's routes: `custom_css` (GET/POST /sitewright/v1/custom-css) unless the site
	 * forbids editing CSS; `terms` and `media_alt` (categories, tags and alt text as items); `seo` when an SEO plugin
	 * whose fields Sitewright writes is active.
	 *
	 * @return array<int, string>
	 */
	public static function features(): array {
		$features = Sitewright_Agent_User::site_allows_custom_css() ? array( 'custom_css' ) : array();
		// Categories, tags and alt text as items; POST /sitewright/v1/media, the largest file it takes in `mediaMaxBytes`.
		$features = array_merge( $features, array( 'terms', 'media_alt', 'media_upload' ) );
		$seo      = Sitewright_Item_Kind_Seo::active();
		return $seo && $seo['writable'] ? array_merge( $features, array( 'seo' ) ) : $features;
	}

	/**
	 * The builder most likely used for pages: a detected third-party builder, else classic editor, else Gutenberg.
	 */
	public static function primary_builder(): string {
		$found = self::detect_builders();
		$ids   = array_column( $found, 'id' );
		foreach ( array_keys( self::builders() ) as $id ) {
			if ( in_array( $id, $ids, true ) && 'gutenberg' !== $id ) {
				return $id;
			}
		}
		return 'gutenberg';
	}

	/**
	 * Every builder with evidence: active plugin, active theme, page content or post meta.
	 *
	 * @return array<int, array{id: string, name: string, evidence: array<int, string>}>
	 */
	public static function detect_builders(): array {
		$active_plugins = (array) get_option( 'active_plugins', array() );
		$templates      = array( get_stylesheet(), get_template() );
		$pages          = get_posts(
			array(
				'post_type'   => array( 'page', 'post' ),
				'post_status' => array( 'publish', 'draft', 'private' ),
				'numberposts' => 20,
				'orderby'     => 'modified',
			)
		);
		$found          = array();
		foreach ( self::builders() as $id => $builder ) {
			$evidence = array();
			if ( array_intersect( $builder['plugins'], $active_plugins ) ) {
				$evidence[] = 'plugin';
			}
			if ( array_intersect( array_map( 'strtolower', $builder['themes'] ), array_map( 'strtolower', $templates ) ) ) {
				$evidence[] = 'theme';
			}
			foreach ( $pages as $page ) {
				if ( self::content_matches( (string) $page->post_content, $builder['content'] ) ) {
					$evidence[] = 'content';
					break;
				}
			}
			foreach ( $pages as $page ) {
				foreach ( $builder['meta'] as $key ) {
					if ( '' !== (string) get_post_meta( $page->ID, $key, true ) ) {
						$evidence[] = 'meta';
						break 2;
					}
				}
			}
			if ( 'gutenberg' === $id && ! in_array( 'classic-editor/classic-editor.php', $active_plugins, true ) && function_exists( 'use_block_editor_for_post_type' ) && use_block_editor_for_post_type( 'page' ) ) {
				$evidence[] = 'editor';
			}
			if ( $evidence ) {
				$found[] = array(
					'id'       => $id,
					'name'     => $builder['label'],
					'evidence' => array_values( array_unique( $evidence ) ),
				);
			}
		}
		return $found;
	}

	/**
	 * Whether content holds any needle.
	 *
	 * @param string             $content Post content.
	 * @param array<int, string> $needles Strings to look for.
	 */
	private static function content_matches( string $content, array $needles ): bool {
		foreach ( $needles as $needle ) {
			if ( false !== strpos( $content, $needle ) ) {
				return true;
			}
		}
		return false;
	}
}
