<?php
/**
 * Base for the plugin's REST controllers: the namespace and a permission check that fails closed.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Shared by every sitewright/v1 controller.
 */
abstract class Sitewright_REST_Controller extends WP_REST_Controller {

	/**
	 * Namespace of every route.
	 *
	 * @var string
	 */
	protected $namespace = 'sitewright/v1';

	/**
	 * Allows only a verified signed request whose token's scopes cover this route and method. The scope check also
	 * runs on rest_pre_dispatch; repeating it here keeps each route closed even if that filter were removed.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return true|WP_Error
	 */
	public function signed_permission( $request ) {
		$context = Sitewright_Auth::context();
		$scopes  = Sitewright_Agent_User::scopes();
		if ( null === $context || null === $scopes || get_current_user_id() !== Sitewright_Agent_User::id() ) {
			return Sitewright_Auth::error( 'sitewright_bad_token', __( 'This route answers only signed requests from Sitewright.', 'sitewright-connector' ) );
		}
		if ( ! Sitewright_Scopes::allows( $scopes, $request->get_method(), $request->get_route() ) ) {
			return Sitewright_Auth::error(
				'sitewright_scope',
				__( 'This token\'s scopes do not allow this request.', 'sitewright-connector' ),
				array( 'required' => Sitewright_Scopes::required( $request->get_method(), $request->get_route() ) )
			);
		}
		return true;
	}

	/**
	 * The verified token's row.
	 *
	 * @return array<string, mixed>
	 */
	protected function token(): array {
		$context = Sitewright_Auth::context();
		return is_array( $context ) ? (array) $context['token'] : array();
	}
}
