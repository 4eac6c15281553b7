<?php
/**
 * The design item `elementor_kit:active`: Elementor's global colours and fonts, kept in the active kit's
 * `_elementor_page_settings` (`system_colors`/`custom_colors` with `color`, `system_typography`/`custom_typography`
 * with `typography_font_family`). State: `{kit, colors: {id: value|null}, fonts: {id: family|null}, labels, rest}`:
 * `rest` is a hash of every other kit setting, so a person's save in Elementor's Site Settings makes a write or an
 * undo stale. A change names only the tokens it sets; null removes the key (what a token without one had), so undo
 * gives the stored settings back byte for byte. A write clears Elementor's caches site-wide: the kit's CSS shows on
 * every page (docs/page-builders.md, "Kit").
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Elementor's kit (global colours and fonts) as an item.
 */
final class Sitewright_Item_Kind_Elementor_Kit extends Sitewright_Item_Kind {

	/** Where Elementor keeps the kit's settings. */
	public const SETTINGS_KEY = '_elementor_page_settings';

	/** Each writable field: the kit's lists that hold its tokens, and the key holding a token's value. */
	private const TOKENS = array(
		'colors' => array( array( 'system_colors', 'custom_colors' ), 'color' ),
		'fonts'  => array( array( 'system_typography', 'custom_typography' ), 'typography_font_family' ),
	);

	/** A colour as Elementor's colour picker stores one: a hex code or rgb()/rgba(). */
	private const COLOUR = '/^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|rgba?\([0-9.,\s%]{5,40}\))$/';

	/** A font family name (Elementor lists Google and system fonts by name). */
	private const FONT = '/^[A-Za-z0-9][A-Za-z0-9 _-]{0,99}$/';

	/**
	 * Adds the kind to the registry.
	 *
	 * @param array<string, Sitewright_Item_Kind> $kinds Kinds.
	 * @return array<string, Sitewright_Item_Kind>
	 */
	public static function register( array $kinds ): array {
		$kinds['elementor_kit'] = new self( 'elementor_kit' );
		return $kinds;
	}

	/**
	 * One key: `active`, the kit Elementor uses now (its id is part of the state).
	 *
	 * @param string $key The ref's key.
	 */
	public function valid_key( string $key ): bool {
		return 'active' === $key;
	}

	/**
	 * The active kit's tokens, or [null, ''] when Elementor has no active kit.
	 *
	 * @param string $key The ref's key (`active`).
	 * @return array{0: array<string, mixed>|null, 1: string}
	 */
	public function read_item( string $key ): array {
		$kit = self::kit_id();
		if ( 0 === $kit ) {
			return array( null, '' );
		}
		wp_cache_delete( $kit, 'post_meta' );
		$stored   = self::settings( $kit );
		$unsaved  = array_values( array_diff( array_keys( self::defaults() ), array_keys( $stored ) ) );
		$settings = $stored + self::defaults();
		$rest     = $settings;
		$state    = array(
			'kit'     => $kit,
			'saved'   => metadata_exists( 'post', $kit, self::SETTINGS_KEY ),
			'unsaved' => $unsaved,
			'labels'  => array(),
		);
		foreach ( self::TOKENS as $field => list( $lists, $value_key ) ) {
			$state[ $field ] = array();
			foreach ( $lists as $list ) {
				foreach ( (array) ( $settings[ $list ] ?? array() ) as $index => $token ) {
					if ( ! is_array( $token ) || ! is_string( $token['_id'] ?? null ) ) {
						continue;
					}
					$state[ $field ][ $token['_id'] ] = isset( $token[ $value_key ] ) ? (string) $token[ $value_key ] : null;
					$state['labels'][ $token['_id'] ] = (string) ( $token['title'] ?? $token['_id'] );
					unset( $rest[ $list ][ $index ][ $value_key ] );
				}
			}
			$state[ $field ] = $state[ $field ] ? $state[ $field ] : new stdClass();
		}
		$state['labels'] = $state['labels'] ? $state['labels'] : new stdClass();
		// Every other kit setting, so a person's save in Site Settings since the read makes the item stale (whether
		// Elementor's default tokens are stored yet or not: that is `unsaved`).
		ksort( $rest );
		$state['rest'] = hash( 'sha256', (string) wp_json_encode( $rest ) );
		return array( $state, __( 'Elementor global colours and fonts', 'sitewright-connector' ) );
	}

	/**
	 * Why the change cannot be written, or null: colors and fonts objects of the kit's token ids to a value or null;
	 * unsaved and saved (what undo sends back for a kit whose tokens were Elementor's defaults) as read.
	 *
	 * @param string               $key    The ref's key (`active`).
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function refuse_fields( string $key, string $action, array $fields ): ?string {
		if ( array() === array_intersect_key( $fields, self::TOKENS ) ) {
			return __( 'A kit change names the colours or fonts it sets.', 'sitewright-connector' );
		}
		if ( array_key_exists( 'saved', $fields ) && ! is_bool( $fields['saved'] ) ) {
			return __( 'saved must be true or false.', 'sitewright-connector' );
		}
		if ( array_key_exists( 'unsaved', $fields ) && ( ! is_array( $fields['unsaved'] ) || array_diff( $fields['unsaved'], array_keys( self::defaults() ) ) ) ) {
			return __( 'unsaved lists only the kit\'s own token lists.', 'sitewright-connector' );
		}
		list( $state ) = $this->read_item( $key );
		foreach ( array_intersect_key( $fields, self::TOKENS ) as $field => $tokens ) {
			if ( ! is_array( $tokens ) || array() === $tokens || array_is_list( $tokens ) ) {
				/* translators: %s: colors or fonts */
				return sprintf( __( '%s must be an object of the kit\'s token ids.', 'sitewright-connector' ), $field );
			}
			foreach ( $tokens as $id => $value ) {
				if ( null === $state || ! array_key_exists( (string) $id, (array) $state[ $field ] ) ) {
					/* translators: %s: a token id */
					return sprintf( __( 'The kit has no token %s.', 'sitewright-connector' ), (string) $id );
				}
				if ( null !== $value && ( ! is_string( $value ) || ! preg_match( 'colors' === $field ? self::COLOUR : self::FONT, $value ) ) ) {
					/* translators: %s: a token id */
					return sprintf( __( 'The value for %s is not a colour or font name Elementor takes.', 'sitewright-connector' ), (string) $id );
				}
			}
		}
		return null;
	}

	/**
	 * Whether the agent user may change the site's design.
	 *
	 * @param string               $key    The ref's key (`active`).
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 */
	public function can_write( string $key, string $action, array $fields ): bool {
		$kit = self::kit_id();
		return current_user_can( 'edit_theme_options' ) && ( 0 === $kit || current_user_can( 'edit_post', $kit ) );
	}

	/**
	 * Sets the named tokens in the kit's settings (nothing else), checks they read back, clears Elementor's caches.
	 * A token list Elementor still takes from its defaults is stored first; undo names it in `unsaved` again.
	 *
	 * @param string               $action Action.
	 * @param string               $key    The ref's key (`active`).
	 * @param array<string, mixed> $fields Fields (checked by refuse_fields).
	 * @return string|WP_Error
	 */
	public function write_item( string $action, string $key, array $fields ) {
		$kit      = self::kit_id();
		$settings = self::with_tokens( self::settings( $kit ), $fields );
		foreach ( (array) ( $fields['unsaved'] ?? array() ) as $list ) {
			unset( $settings[ $list ] );
		}
		if ( false === ( $fields['saved'] ?? true ) && array() === $settings ) {
			delete_post_meta( $kit, self::SETTINGS_KEY );
		} else {
			update_post_meta( $kit, self::SETTINGS_KEY, wp_slash( $settings ) );
		}
		wp_cache_delete( $kit, 'post_meta' );
		if ( self::settings( $kit ) !== $settings ) {
			return new WP_Error(
				'sitewright_filtered',
				__( 'The site would have stored other kit settings than planned; nothing was written.', 'sitewright-connector' ),
				array( 'status' => 409 )
			);
		}
		Sitewright_Elementor_Cache::clear_site();
		return $key;
	}

	/**
	 * The settings with the named tokens set (null: the token's value key removed).
	 *
	 * @param array<string, mixed> $settings Stored settings.
	 * @param array<string, mixed> $fields   Fields.
	 * @return array<string, mixed>
	 */
	private static function with_tokens( array $settings, array $fields ): array {
		foreach ( array_intersect_key( $fields, self::TOKENS ) as $field => $tokens ) {
			list( $lists, $value_key ) = self::TOKENS[ $field ];
			foreach ( $lists as $list ) {
				$settings += array_intersect_key( self::defaults(), array( $list => true ) );
				foreach ( (array) ( $settings[ $list ] ?? array() ) as $index => $token ) {
					$id = is_array( $token ) ? ( $token['_id'] ?? null ) : null;
					if ( ! is_string( $id ) || ! array_key_exists( $id, $tokens ) ) {
						continue;
					}
					if ( null === $tokens[ $id ] ) {
						unset( $settings[ $list ][ $index ][ $value_key ] );
					} else {
						$settings[ $list ][ $index ][ $value_key ] = (string) $tokens[ $id ];
					}
				}
			}
		}
		return $settings;
	}

	/**
	 * The kit's row and the option naming it, locked with the batch.
	 *
	 * @param string $key The ref's key (`active`).
	 * @return array{0: array<int, int>, 1: array<int, string>}
	 */
	public function rows( string $key ): array {
		$kit = self::kit_id();
		return array( $kit ? array( $kit ) : array(), array( 'elementor_active_kit' ) );
	}

	/**
	 * The kit's colours and fonts show on every page Elementor renders.
	 *
	 * @param string               $key    The ref's key (`active`).
	 * @param string               $action Action.
	 * @param array<string, mixed> $fields Fields.
	 * @param Sitewright_Places    $places Places.
	 */
	public function places( string $key, string $action, array $fields, Sitewright_Places $places ): void {
		$places->add( 'design', __( 'Elementor\'s global colours and fonts, on every Elementor page', 'sitewright-connector' ), home_url( '/' ) );
	}

	/**
	 * The active kit's post id, or 0 when there is none.
	 */
	private static function kit_id(): int {
		wp_cache_delete( 'elementor_active_kit', 'options' );
		$kit  = (int) get_option( 'elementor_active_kit', 0 );
		$post = $kit ? get_post( $kit ) : null;
		return $post instanceof WP_Post && 'elementor_library' === $post->post_type ? $kit : 0;
	}

	/**
	 * The token lists Elementor uses while the kit has not stored them (its controls' defaults: a new kit stores
	 * none), when Elementor is loaded.
	 *
	 * @return array<string, array<int, mixed>>
	 */
	private static function defaults(): array {
		if ( ! class_exists( '\Elementor\Plugin' ) || ! isset( \Elementor\Plugin::$instance->kits_manager ) ) {
			return array();
		}
		$kit = \Elementor\Plugin::$instance->kits_manager->get_active_kit();
		if ( ! $kit || ! method_exists( $kit, 'get_controls' ) ) {
			return array();
		}
		$defaults = array();
		foreach ( self::TOKENS as list( $lists ) ) {
			foreach ( $lists as $list ) {
				$control = $kit->get_controls( $list );
				if ( is_array( $control['default'] ?? null ) && array() !== $control['default'] ) {
					$defaults[ $list ] = $control['default'];
				}
			}
		}
		return $defaults;
	}

	/**
	 * The kit's settings as stored (an empty list when it has none yet).
	 *
	 * @param int $kit Kit post id.
	 * @return array<string, mixed>
	 */
	private static function settings( int $kit ): array {
		$settings = get_post_meta( $kit, self::SETTINGS_KEY, true );
		return is_array( $settings ) ? $settings : array();
	}
}
