<?php
/**
 * The plugin's side of pairing: the service URL rules, the outcome in words, and discarding credentials on failure.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Pairing.
 */
final class PairingTest extends Sitewright_Test_Case {

	public function test_the_service_must_be_https(): void {
		$this->assertSame( 'https://app.example.com', Sitewright_Pairing::normalize_service_url( ' https://app.example.com/ ' ) );
		foreach ( array( 'http://app.example.com', 'http://localhost:3000', 'ftp://x', 'app.example.com', 'https://user:pw@app.example.com', 'https://app.example.com/?a=1', '' ) as $bad ) {
			$this->assertInstanceOf( WP_Error::class, Sitewright_Pairing::normalize_service_url( $bad ), $bad );
		}
	}

	public function test_each_refusal_of_the_service_is_explained_in_words(): void {
		$cases = array(
			array( 401, array( 'code' => 'invalid_code', 'details' => array( 'attemptsLeft' => 3 ) ), '3 attempts left' ),
			array( 401, array( 'code' => 'invalid_code', 'details' => array( 'attemptsLeft' => 1 ) ), '1 attempt left' ),
			array( 410, array( 'code' => 'code_expired' ), 'expired' ),
			array( 429, array( 'code' => 'locked' ), 'locked' ),
			array( 409, array( 'code' => 'code_used' ), 'already used' ),
			array( 404, array( 'code' => 'no_pending_pairing' ), 'not waiting for' ),
			array( 429, array( 'code' => 'rate_limited' ), 'Wait a minute' ),
			array( 500, array(), 'HTTP 500' ),
		);
		foreach ( $cases as list( $status, $error, $words ) ) {
			$outcome = Sitewright_Pairing::describe_failure( $status, $error );
			$this->assertFalse( $outcome['ok'] );
			$this->assertStringContainsString( $words, $outcome['message'] );
		}
	}

	public function test_an_unreachable_service_leaves_no_credentials_behind(): void {
		$socket = stream_socket_server( 'tcp://127.0.0.1:0' );
		$port   = (int) substr( (string) stream_socket_get_name( $socket, false ), strlen( '127.0.0.1:' ) );
		fclose( $socket );

		$outcome = Sitewright_Pairing::connect( 'https://localhost:' . $port, 'BCDF-GHJK', array( 'site:read' ) );
		$this->assertFalse( $outcome['ok'] );
		$this->assertSame( 'unreachable', $outcome['code'] );
		$this->assertStringContainsString( 'Could not reach Sitewright', $outcome['message'] );
		$this->assertSame( array(), Sitewright_Credentials::all() );
	}

	public function test_connect_refuses_missing_code_or_scopes_before_creating_anything(): void {
		$this->assertSame( 'bad_code', Sitewright_Pairing::connect( 'https://app.example.com', '  ', array( 'site:read' ) )['code'] );
		$this->assertSame( 'no_scopes', Sitewright_Pairing::connect( 'https://app.example.com', 'BCDFGHJK', array( 'root' ) )['code'] );
		$this->assertSame( array(), Sitewright_Credentials::all() );
	}
}
