<?php
/**
 * Base test case: resets the signed-request state and the current user around each test.
 *
 * @package Sitewright
 */

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/**
 * Shared helpers.
 */
abstract class Sitewright_Test_Case extends TestCase {

	/**
	 * Fresh state per test.
	 */
	protected function setUp(): void {
		parent::setUp();
		Sitewright_Auth::reset();
		wp_set_current_user( 0 );
		Sitewright_Credentials::revoke_all();
	}

	/**
	 * No signed context leaks into the next test.
	 */
	protected function tearDown(): void {
		Sitewright_Auth::reset();
		wp_set_current_user( 0 );
		parent::tearDown();
	}

	/**
	 * A signed request description for Sitewright_Auth::verify().
	 *
	 * @param array<string, mixed> $credentials From Sitewright_Credentials::create().
	 * @param array<string, mixed> $request     Method, route, query_string, body, timestamp.
	 * @param array<string, mixed> $overrides   Fields to change after signing.
	 * @return array<string, mixed>
	 */
	protected function signed( array $credentials, array $request = array(), array $overrides = array() ): array {
		$request = array_merge(
			array(
				'method'       => 'GET',
				'route'        => '/sitewright/v1/info',
				'query_string' => '',
				'body'         => '',
				'timestamp'    => (string) $this->now_ms(),
			),
			$request
		);
		$pairs   = Sitewright_Signature::parse_query_string( $request['query_string'] );
		$sts     = Sitewright_Signature::string_to_sign( $request['timestamp'], $request['method'], $request['route'], $pairs, $request['body'] );
		$request = array_merge(
			$request,
			array(
				'bearer'      => $credentials['token'],
				'signature'   => Sitewright_Signature::sign( $credentials['secret'], $sts ),
				'override'    => false,
				'auth_source' => 'HTTP_AUTHORIZATION',
			)
		);
		return array_merge( $request, $overrides );
	}

	/**
	 * Now in milliseconds.
	 */
	protected function now_ms(): int {
		return (int) floor( microtime( true ) * 1000 );
	}

	/**
	 * Asserts a WP_Error with a code and HTTP status.
	 *
	 * @param mixed  $result Result.
	 * @param string $code   Expected code.
	 * @param int    $status Expected status.
	 */
	protected function assertRefused( $result, string $code, int $status = 401 ): void {
		$this->assertInstanceOf( WP_Error::class, $result );
		$this->assertSame( $code, $result->get_error_code() );
		$this->assertSame( $status, $result->get_error_data()['status'] );
	}

	/**
	 * Dispatches an internal REST request and returns a response (errors converted as the server would).
	 *
	 * @param string               $method Method.
	 * @param string               $route  Route.
	 * @param array<string, mixed> $params Parameters.
	 */
	protected function dispatch( string $method, string $route, array $params = array() ): WP_REST_Response {
		$request = new WP_REST_Request( $method, $route );
		foreach ( $params as $name => $value ) {
			$request->set_param( $name, $value );
		}
		$response = rest_do_request( $request );
		return is_wp_error( $response ) ? rest_convert_error_to_response( $response ) : $response;
	}
}
