<?php
/**
 * Verification of signed requests against the real token store and replay cache (WordPress on SQLite).
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Signed-request authentication.
 */
final class AuthTest extends Sitewright_Test_Case {

	/**
	 * Credentials for the test.
	 *
	 * @param array<int, string> $scopes Scopes.
	 * @return array<string, mixed>
	 */
	private function credentials( array $scopes = array( 'site:read', 'content:read', 'content:write' ) ): array {
		return Sitewright_Credentials::create( $scopes );
	}

	public function test_accepts_a_correctly_signed_request_and_acts_as_the_agent_with_the_tokens_scopes(): void {
		$creds  = $this->credentials( array( 'site:read', 'content:read' ) );
		$result = Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() );
		$this->assertTrue( $result );
		$this->assertSame( Sitewright_Agent_User::id(), get_current_user_id() );
		$this->assertSame( array( 'site:read', 'content:read' ), Sitewright_Agent_User::scopes() );
		$row = Sitewright_Credentials::find_by_token( $creds['token'] );
		$this->assertNotNull( $row['confirmed_at'] );
		$this->assertNotNull( $row['last_used_at'] );
	}

	public function test_accepts_a_signed_post_with_a_query_and_a_body(): void {
		$creds   = $this->credentials();
		$request = array(
			'method'       => 'POST',
			'route'        => '/wp/v2/pages/12',
			'query_string' => 'b=2&a=1&c=0&_fields=id%2Ctitle&q=caf%C3%A9+au+lait',
			'body'         => '{"title":"New"}',
		);
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, $request ), $this->now_ms() ) );
	}

	public function test_refuses_a_wrong_secret(): void {
		$creds            = $this->credentials();
		$forged           = $creds;
		$forged['secret'] = Sitewright_Crypto::new_secret();
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $forged ), $this->now_ms() ), 'sitewright_bad_signature' );
		$this->assertSame( 0, get_current_user_id() );
	}

	public function test_refuses_any_change_to_method_route_query_or_body_after_signing(): void {
		$creds   = $this->credentials();
		$request = array(
			'method'       => 'POST',
			'route'        => '/wp/v2/pages/12',
			'query_string' => 'a=1',
			'body'         => '{"title":"New"}',
		);
		$changes = array(
			array( 'method' => 'PUT' ),
			array( 'route' => '/wp/v2/pages/13' ),
			array( 'query_string' => 'a=2' ),
			array( 'query_string' => 'a=1&b=1' ),
			array( 'query_string' => '' ),
			array( 'body' => '{"title":"Evil"}' ),
			array( 'body' => '' ),
			array( 'timestamp' => (string) ( $this->now_ms() - 1 ) ),
		);
		foreach ( $changes as $change ) {
			$result = Sitewright_Auth::verify( $this->signed( $creds, $request, $change ), $this->now_ms() );
			$this->assertRefused( $result, 'sitewright_bad_signature' );
		}
	}

	public function test_refuses_a_missing_unknown_revoked_or_pending_token(): void {
		$creds = $this->credentials();
		foreach ( array( null, '', 'swt_nope', Sitewright_Crypto::new_token(), 'Basic abc' ) as $bearer ) {
			$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, array(), array( 'bearer' => $bearer ) ), $this->now_ms() ), 'sitewright_bad_token' );
		}
		Sitewright_Credentials::revoke( $creds['id'] );
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ), 'sitewright_bad_token' );

		$pending = Sitewright_Credentials::create( array( 'site:read' ), Sitewright_Credentials::STATUS_PENDING );
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $pending ), $this->now_ms() ), 'sitewright_bad_token' );
	}

	public function test_accepts_timestamps_299_seconds_off_and_refuses_301_either_way(): void {
		$creds = $this->credentials();
		$now   = $this->now_ms();
		foreach ( array( -299000, 299000 ) as $offset ) {
			$request = $this->signed( $creds, array( 'timestamp' => (string) ( $now + $offset ) ) );
			$this->assertTrue( Sitewright_Auth::verify( $request, $now ), "offset $offset" );
		}
		foreach ( array( -301000, 301000 ) as $offset ) {
			$request = $this->signed( $creds, array( 'timestamp' => (string) ( $now + $offset ) ) );
			$this->assertRefused( Sitewright_Auth::verify( $request, $now ), 'sitewright_stale_timestamp' );
		}
	}

	public function test_refuses_the_same_signed_request_the_second_time(): void {
		$creds   = $this->credentials();
		$request = $this->signed( $creds );
		$this->assertTrue( Sitewright_Auth::verify( $request, $this->now_ms() ) );
		$this->assertRefused( Sitewright_Auth::verify( $request, $this->now_ms() ), 'sitewright_replayed' );
	}

	public function test_refuses_method_overrides_on_signed_requests(): void {
		$creds = $this->credentials();
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, array( 'query_string' => '_method=DELETE' ) ), $this->now_ms() ), 'sitewright_method_override', 400 );
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, array(), array( 'override' => true ) ), $this->now_ms() ), 'sitewright_method_override', 400 );
		foreach ( array( '.method=DELETE', '%20method=DELETE', 'a=1&_method=PUT' ) as $query ) {
			$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, array( 'query_string' => $query ) ), $this->now_ms() ), 'sitewright_method_override', 400 );
		}
	}

	public function test_refuses_nested_query_parameters(): void {
		$creds = $this->credentials();
		foreach ( array( 'a[]=1', 'a[b]=1', 'a%5B%5D=1' ) as $query ) {
			$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, array( 'query_string' => $query ) ), $this->now_ms() ), 'sitewright_bad_signature' );
		}
	}

	public function test_refuses_a_query_name_given_twice_in_either_order_even_when_signed(): void {
		$creds = $this->credentials();
		foreach ( array( 'a=1&a=2', 'a=2&a=1', 'title=A&x=1&title=B', 'a.b=1&a_b=2', 'a+b=1&a_b=2' ) as $query ) {
			$request = array(
				'method'       => 'POST',
				'route'        => '/wp/v2/pages/12',
				'query_string' => $query,
			);
			$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, $request ), $this->now_ms() ), 'sitewright_bad_signature' );
		}
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'query_string' => 'a=1&b=1&ab=1' ) ), $this->now_ms() ) );
	}

	public function test_refuses_a_signed_request_whose_parameters_php_parsed_from_a_form_or_multipart_body(): void {
		$creds   = $this->credentials();
		$request = array(
			'method' => 'POST',
			'route'  => '/wp/v2/pages/12',
		);
		$this->assertRefused( Sitewright_Auth::verify( $this->signed( $creds, $request, array( 'form' => true ) ), $this->now_ms() ), 'sitewright_bad_signature' );
		$this->assertSame( 0, get_current_user_id() );

		$saved_post  = $_POST; // phpcs:ignore WordPress.Security.NonceVerification.Missing
		$saved_files = $_FILES;
		try {
			$this->assertFalse( Sitewright_Auth::has_form_body( array( 'CONTENT_TYPE' => 'application/json' ) ) );
			$this->assertFalse( Sitewright_Auth::has_form_body( array() ) );
			$this->assertTrue( Sitewright_Auth::has_form_body( array( 'CONTENT_TYPE' => 'multipart/form-data; boundary=x' ) ) );
			$this->assertTrue( Sitewright_Auth::has_form_body( array( 'CONTENT_TYPE' => ' Application/X-WWW-Form-Urlencoded;charset=UTF-8' ) ) );
			$_POST = array( 'title' => 'Evil' );
			$this->assertTrue( Sitewright_Auth::has_form_body( array( 'CONTENT_TYPE' => 'application/json' ) ) );
			$_POST  = array();
			$_FILES = array(
				'file' => array(
					'name'     => 'x.php',
					'tmp_name' => '/tmp/x',
				),
			);
			$this->assertTrue( Sitewright_Auth::has_form_body( array() ) );
		} finally {
			$_POST  = $saved_post;
			$_FILES = $saved_files;
		}
	}

	public function test_malformed_headers_are_refused_with_401_and_never_raise_an_error(): void {
		$creds  = $this->credentials();
		$values = array( null, '', ' ', '0', '-1', '1e3', 'abc', str_repeat( '9', 40 ), "1\n2", 'v1=', 'v1=' . str_repeat( 'g', 64 ), array( 'x' ), 3.5, "\xff\xfe", str_repeat( 'A', 10000 ) );
		for ( $i = 0; $i < 50; $i++ ) {
			$values[] = random_bytes( random_int( 1, 80 ) );
		}
		foreach ( array( 'timestamp', 'signature', 'bearer' ) as $field ) {
			foreach ( $values as $value ) {
				$result = Sitewright_Auth::verify( $this->signed( $creds, array(), array( $field => $value ) ), $this->now_ms() );
				$this->assertInstanceOf( WP_Error::class, $result, $field );
				$this->assertSame( 401, $result->get_error_data()['status'], $field );
			}
		}
	}

	public function test_reads_the_token_from_the_places_hosts_move_the_authorization_header_to(): void {
		$this->assertSame( array( 'Bearer a', 'HTTP_AUTHORIZATION' ), Sitewright_Auth::read_authorization( array( 'HTTP_AUTHORIZATION' => 'Bearer a' ) ) );
		$this->assertSame( array( 'Bearer b', 'REDIRECT_HTTP_AUTHORIZATION' ), Sitewright_Auth::read_authorization( array( 'REDIRECT_HTTP_AUTHORIZATION' => 'Bearer b' ) ) );
		$this->assertSame( 'swt_x', Sitewright_Auth::bearer( 'bearer   swt_x' ) );
		$this->assertNull( Sitewright_Auth::bearer( 'Basic swt_x' ) );
		$this->assertNull( Sitewright_Auth::bearer( 'Bearer a b' ) );
	}

	public function test_every_dispatch_during_a_signed_request_is_held_to_the_tokens_scopes(): void {
		$creds = $this->credentials( array( 'site:read', 'content:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );

		$write = $this->dispatch( 'POST', '/wp/v2/pages' );
		$this->assertSame( 403, $write->get_status() );
		$this->assertSame( 'sitewright_scope', $write->get_data()['code'] );

		$read = $this->dispatch( 'GET', '/wp/v2/pages' );
		$this->assertSame( 200, $read->get_status() );

		$users = $this->dispatch( 'GET', '/wp/v2/users' );
		$this->assertSame( 403, $users->get_status() );
	}

	public function test_the_request_wordpress_serves_is_verified_from_its_own_route_query_and_body(): void {
		$creds = $this->credentials( array( 'site:read' ) );
		$ts    = (string) $this->now_ms();
		$pairs = Sitewright_Signature::parse_query_string( 'rest_route=%2Fsitewright%2Fv1%2Finfo&x=1' );
		$sts   = Sitewright_Signature::string_to_sign( $ts, 'GET', '/sitewright/v1/info', $pairs, '' );

		$saved_server = $_SERVER;
		$saved_wp     = $GLOBALS['wp'];
		try {
			$_SERVER                   = array_merge(
				$_SERVER,
				array(
					'REQUEST_METHOD'              => 'GET',
					'QUERY_STRING'                => 'rest_route=%2Fsitewright%2Fv1%2Finfo&x=1',
					'HTTP_AUTHORIZATION'          => 'Bearer ' . $creds['token'],
					'HTTP_X_SITEWRIGHT_TIMESTAMP' => $ts,
					'HTTP_X_SITEWRIGHT_SIGNATURE' => Sitewright_Signature::sign( $creds['secret'], $sts ),
				)
			);
			$GLOBALS['wp']             = new WP();
			$GLOBALS['wp']->query_vars = array( 'rest_route' => '/sitewright/v1/info/' );
			$this->assertTrue( Sitewright_Auth::authenticate( null ) );
			$this->assertSame( 'HTTP_AUTHORIZATION', Sitewright_Auth::context()['auth_source'] );

			Sitewright_Auth::reset();
			$this->assertRefused( Sitewright_Auth::authenticate( null ), 'sitewright_replayed' );

			Sitewright_Auth::reset();
			$_SERVER['HTTP_X_SITEWRIGHT_TIMESTAMP'] = (string) ( (int) $ts + 1 );
			$_SERVER['HTTP_X_SITEWRIGHT_SIGNATURE'] = Sitewright_Signature::sign( $creds['secret'], Sitewright_Signature::string_to_sign( (string) ( (int) $ts + 1 ), 'GET', '/sitewright/v1/info', $pairs, '' ) );
			$_SERVER['CONTENT_TYPE']                = 'multipart/form-data; boundary=----x';
			$this->assertRefused( Sitewright_Auth::authenticate( null ), 'sitewright_bad_signature' );
			unset( $_SERVER['CONTENT_TYPE'] );

			Sitewright_Auth::reset();
			unset( $_SERVER['HTTP_X_SITEWRIGHT_SIGNATURE'], $_SERVER['HTTP_X_SITEWRIGHT_TIMESTAMP'] );
			$_SERVER['HTTP_AUTHORIZATION'] = 'Basic dXNlcjpwYXNz';
			$this->assertNull( Sitewright_Auth::authenticate( null ), 'requests that are not ours are left alone' );
		} finally {
			$_SERVER       = $saved_server;
			$GLOBALS['wp'] = $saved_wp;
		}
	}
}
