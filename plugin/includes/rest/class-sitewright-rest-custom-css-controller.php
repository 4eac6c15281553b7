<?php
/**
 * GET and POST /sitewright/v1/custom-css: the Customizer's "Additional CSS" of the active theme, which WordPress 6.1
 * has no REST route for.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Custom CSS.
 */
final class Sitewright_REST_Custom_CSS_Controller extends Sitewright_REST_Controller {

	/** Longest CSS accepted, in bytes. */
	public const MAX_BYTES = 65536;

	/**
	 * Resource base.
	 *
	 * @var string
	 */
	protected $rest_base = 'custom-css';

	/**
	 * Registers GET and POST /custom-css.
	 */
	public function register_routes(): void {
		register_rest_route(
			$this->namespace,
			'/' . $this->rest_base,
			array(
				array(
					'methods'             => WP_REST_Server::READABLE,
					'callback'            => array( $this, 'get_item' ),
					'permission_callback' => array( $this, 'signed_permission' ),
					'args'                => array(),
				),
				array(
					'methods'             => WP_REST_Server::CREATABLE,
					'callback'            => array( $this, 'update_item' ),
					'permission_callback' => array( $this, 'update_item_permissions_check' ),
					'args'                => array(
						'css' => array(
							'description'       => __( 'The whole custom CSS of the active theme (replaces what is there).', 'sitewright-connector' ),
							'type'              => 'string',
							'validate_callback' => array( self::class, 'validate_css' ),
						),
					),
				),
				'schema' => array( $this, 'get_public_item_schema' ),
			)
		);
	}

	/**
	 * Signed, scoped, and the agent may edit CSS (core's edit_css, which the agent holds only with design:write).
	 *
	 * @param WP_REST_Request $request Request.
	 * @return true|WP_Error
	 */
	public function update_item_permissions_check( $request ) {
		$allowed = $this->signed_permission( $request );
		if ( true !== $allowed ) {
			return $allowed;
		}
		if ( ! current_user_can( 'edit_css' ) ) {
			return new WP_Error(
				'rest_cannot_edit',
				__( 'This site does not allow editing its custom CSS.', 'sitewright-connector' ),
				array( 'status' => 403 )
			);
		}
		return true;
	}

	/**
	 * Refuses CSS that is too long or holds markup, as core's Customizer does (WP_Customize_Custom_CSS_Setting::validate),
	 * so nothing can close the <style> element the CSS is printed in.
	 *
	 * @param mixed           $value   The css parameter.
	 * @param WP_REST_Request $request Request.
	 * @param string          $param   Parameter name.
	 * @return true|WP_Error
	 */
	public static function validate_css( $value, $request, $param ) {
		$valid = rest_validate_request_arg( $value, $request, $param );
		if ( true !== $valid ) {
			return $valid;
		}
		if ( strlen( $value ) > self::MAX_BYTES ) {
			/* translators: %d: maximum length in bytes */
			return new WP_Error( 'rest_invalid_param', sprintf( __( 'Custom CSS may be at most %d bytes long.', 'sitewright-connector' ), self::MAX_BYTES ), array( 'status' => 400 ) );
		}
		if ( preg_match( '#</?\w+#', $value ) ) {
			return new WP_Error( 'rest_invalid_param', __( 'Markup is not allowed in CSS.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		return true;
	}

	/**
	 * The active theme's custom CSS.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response
	 */
	public function get_item( $request ) {
		return rest_ensure_response(
			array(
				'css'        => wp_get_custom_css(),
				'stylesheet' => get_stylesheet(),
			)
		);
	}

	/**
	 * Replaces the active theme's custom CSS.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public function update_item( $request ) {
		// Not a `required` arg: WordPress checks those before the permission callback, and anonymous calls get 401 first.
		if ( ! isset( $request['css'] ) ) {
			return new WP_Error( 'rest_missing_callback_param', __( 'Give the new CSS as `css`.', 'sitewright-connector' ), array( 'status' => 400 ) );
		}
		$saved = Sitewright_Custom_CSS::save( (string) $request['css'] );
		if ( is_wp_error( $saved ) ) {
			return new WP_Error( 'sitewright_custom_css_not_saved', $saved->get_error_message(), array( 'status' => 500 ) );
		}
		return rest_ensure_response(
			array(
				'css'        => wp_get_custom_css(),
				'stylesheet' => get_stylesheet(),
			)
		);
	}

	/**
	 * The response schema.
	 *
	 * @return array<string, mixed>
	 */
	public function get_item_schema() {
		return array(
			'$schema'    => 'http://json-schema.org/draft-04/schema#',
			'title'      => 'sitewright-custom-css',
			'type'       => 'object',
			'properties' => array(
				'css'        => array( 'type' => 'string' ),
				'stylesheet' => array( 'type' => 'string' ),
			),
		);
	}
}
