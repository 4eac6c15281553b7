<?php
/**
 * `template_part:<slug>` and `template:<slug>`: a template part (header, footer...) or a whole template (index,
 * single, page...) of the active block theme. State: `{type, theme, slug, area, customised, content}` (`area` for
 * parts only). The first write of a theme-provided one makes it a customised `wp_template_part` / `wp_template`
 * post; `customised: false` removes the customisation (the theme's file shows again), which is how undo reverses
 * that first write.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Templates and template parts as items.
 */
final class Sitewright_Item_Kind_Template extends Sitewright_Block_Theme_Item_Kind {

	/** The post type behind each template kind. */
	private const TEMPLATE_TYPES = array(
		'template_part' => 'wp_template_part',
		'template'      => 'wp_template',
	);

	/**
	 * Reads the active theme's template (part): the customised post if any, else the theme's file.
	 *
	 * @param string $key Slug.
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		$template = self::template( $this->name, $key );
		if ( ! $template ) {
			return array( null, $key );
		}
		$state = array(
			'type'       => self::TEMPLATE_TYPES[ $this->name ],
			'theme'      => (string) $template->theme,
			'slug'       => (string) $template->slug,
			'area'       => (string) $template->area,
			'customised' => 'custom' === $template->source,
			'content'    => (string) $template->content,
		);
		if ( 'template' === $this->name ) {
			unset( $state['area'] );
		}
		return array( $state, (string) ( $template->title ? $template->title : $template->slug ) );
	}

	/**
	 * Block markup of at most 256 KiB; `customised: false` only where the theme has a file to go back to.
	 *
	 * @param string               $key    Slug.
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		$refused = self::refuse_customised( $fields );
		if ( null !== $refused ) {
			return $refused;
		}
		if ( array_key_exists( 'content', $fields ) && ( ! is_string( $fields['content'] ) || strlen( $fields['content'] ) > self::MAX_BYTES ) ) {
			return __( 'content must be block markup of at most 256 KiB.', 'sitewright-connector' );
		}
		if ( false === ( $fields['customised'] ?? null ) && ! get_block_file_template( get_stylesheet() . '//' . $key, self::TEMPLATE_TYPES[ $this->name ] ) ) {
			return __( 'This template is not provided by the theme, so there is no theme version to go back to.', 'sitewright-connector' );
		}
		return null;
	}

	/**
	 * Saves the content (customising the theme's on first write) or removes the customisation.
	 *
	 * @param string               $action Action.
	 * @param string               $key    Slug.
	 * @param array<string, mixed> $fields Fields.
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$saved = self::write_template( $this->name, $key, $fields );
		self::clean_theme_json();
		return is_wp_error( $saved ) ? $saved : $key;
	}

	/**
	 * The customised post's id, or 0 while the theme's file shows.
	 *
	 * @param string $key Slug.
	 */
	public function post_id( string $key ): int {
		$template = self::template( $this->name, $key );
		return $template && 'custom' === $template->source ? (int) $template->wp_id : 0;
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
		if ( 'template_part' === $this->name ) {
			/* translators: %s: a template part's slug, e.g. header */
			$places->add( 'template_part', sprintf( __( 'the %s template part', 'sitewright-connector' ), $key ), home_url( '/' ) );
			return;
		}
		/* translators: %s: a template's slug, e.g. single */
		$places->add( 'template', sprintf( __( 'the %s template', 'sitewright-connector' ), $key ) );
	}

	/**
	 * The active theme's template or template part with this slug (the customised post if any, else the theme's file).
	 *
	 * @param string $kind Kind: template or template_part.
	 * @param string $slug Slug.
	 */
	private static function template( string $kind, string $slug ): ?WP_Block_Template {
		if ( ! isset( self::TEMPLATE_TYPES[ $kind ] ) || ! self::applies( $kind, $slug ) ) {
			return null;
		}
		$type     = self::TEMPLATE_TYPES[ $kind ];
		$template = get_block_template( get_stylesheet() . '//' . $slug, $type );
		if ( $template && 'custom' === $template->source && 'publish' !== get_post_status( (int) $template->wp_id ) ) {
			// A trashed or draft customisation is not what visitors see: the theme's file is.
			$template = get_block_file_template( get_stylesheet() . '//' . $slug, $type );
		}
		return $template instanceof WP_Block_Template ? $template : null;
	}

	/**
	 * Saves a template's or template part's content (customising a theme-provided one on first write), or removes the
	 * customisation so the theme's file shows again.
	 *
	 * @param string               $kind   Kind: template or template_part.
	 * @param string               $slug   Slug.
	 * @param array<string, mixed> $fields Fields.
	 * @return true|WP_Error
	 */
	private static function write_template( string $kind, string $slug, array $fields ) {
		$template = self::template( $kind, $slug );
		if ( ! $template ) {
			return new WP_Error( 'rest_invalid_param', __( 'The active theme has no such template.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$type      = self::TEMPLATE_TYPES[ $kind ];
		$custom_id = 'custom' === $template->source ? (int) $template->wp_id : 0;
		if ( ! $custom_id ) {
			// A trashed or draft customisation is replaced, not revived.
			$stale = get_block_template( get_stylesheet() . '//' . $slug, $type );
			if ( $stale && 'custom' === $stale->source ) {
				wp_delete_post( (int) $stale->wp_id, true );
			}
		}
		if ( false === ( $fields['customised'] ?? null ) ) {
			if ( $custom_id && ! wp_delete_post( $custom_id, true ) ) {
				return new WP_Error( 'sitewright_not_deleted', __( 'The template could not be reset to the theme\'s.', 'sitewright-connector' ), array( 'status' => 500 ) );
			}
			return true;
		}
		$content = array_key_exists( 'content', $fields ) ? (string) $fields['content'] : (string) $template->content;
		$saved   = $custom_id ? wp_update_post(
			wp_slash(
				array(
					'ID'           => $custom_id,
					'post_content' => $content,
				)
			),
			true
		) : self::insert_template( $template, $type, $content );
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( $saved->get_error_code(), $saved->get_error_message(), array( 'status' => 400 ) );
		}
		return true;
	}

	/**
	 * Makes a theme's template (or part) a customised post, as the Site Editor does on its first save.
	 *
	 * @param WP_Block_Template $template The theme's template.
	 * @param string            $type     Post type: wp_template or wp_template_part.
	 * @param string            $content  Block markup.
	 * @return int|WP_Error
	 */
	private static function insert_template( WP_Block_Template $template, string $type, string $content ) {
		$saved = wp_insert_post(
			wp_slash(
				array(
					'post_type'    => $type,
					'post_status'  => 'publish',
					'post_name'    => (string) $template->slug,
					'post_title'   => (string) ( $template->title ? $template->title : $template->slug ),
					'post_excerpt' => (string) $template->description,
					'post_content' => $content,
				)
			),
			true
		);
		if ( ! is_wp_error( $saved ) ) {
			wp_set_post_terms( (int) $saved, array( get_stylesheet() ), 'wp_theme' );
			if ( 'wp_template_part' === $type ) {
				wp_set_post_terms( (int) $saved, array( (string) $template->area ), 'wp_template_part_area' );
			}
		}
		return $saved;
	}
}
