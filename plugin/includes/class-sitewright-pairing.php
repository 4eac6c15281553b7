<?php
/**
 * Connecting to the service: new credentials, POST <service>/sites/redeem, the outcome in words.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The redeem step of pairing.
 */
final class Sitewright_Pairing {

	public const SERVICE_OPTION = 'sitewright_service_url';

	/**
	 * Validates the service URL: https, or http to a loopback host when SITEWRIGHT_ALLOW_HTTP_SERVICE is set.
	 *
	 * @param string $url As typed.
	 * @return string|WP_Error The URL without trailing slash.
	 */
	public static function normalize_service_url( string $url ) {
		$url    = untrailingslashit( trim( $url ) );
		$parts  = wp_parse_url( $url );
		$scheme = is_array( $parts ) ? strtolower( (string) ( $parts['scheme'] ?? '' ) ) : '';
		$host   = is_array( $parts ) ? strtolower( trim( (string) ( $parts['host'] ?? '' ), '[]' ) ) : '';
		if ( '' === $host || isset( $parts['user'] ) || isset( $parts['pass'] ) || isset( $parts['query'] ) || isset( $parts['fragment'] ) ) {
			return new WP_Error( 'sitewright_bad_service_url', __( 'Enter the Sitewright address, like https://app.example.com.', 'sitewright-connector' ) );
		}
		$loopback = in_array( $host, array( 'localhost', '127.0.0.1', '::1' ), true );
		if ( 'https' === $scheme || ( 'http' === $scheme && $loopback && defined( 'SITEWRIGHT_ALLOW_HTTP_SERVICE' ) && SITEWRIGHT_ALLOW_HTTP_SERVICE ) ) {
			return $url;
		}
		return new WP_Error( 'sitewright_bad_service_url', __( 'The Sitewright address must start with https://.', 'sitewright-connector' ) );
	}

	/**
	 * Creates credentials, sends them with the pairing code, keeps them only if the service accepted them.
	 *
	 * @param string             $service_url Service URL as typed.
	 * @param string             $code        Pairing code as typed.
	 * @param array<int, string> $scopes      Scopes the administrator ticked.
	 * @return array{ok: bool, message: string, code: string}
	 */
	public static function connect( string $service_url, string $code, array $scopes ): array {
		$service = self::normalize_service_url( $service_url );
		if ( is_wp_error( $service ) ) {
			return self::outcome( false, $service->get_error_message(), 'bad_service_url' );
		}
		$code = trim( $code );
		if ( '' === $code || strlen( $code ) > 32 ) {
			return self::outcome( false, __( 'Enter the pairing code that Sitewright shows you.', 'sitewright-connector' ), 'bad_code' );
		}
		$scopes = Sitewright_Scopes::sanitize( $scopes );
		if ( ! $scopes ) {
			return self::outcome( false, __( 'Tick at least one permission.', 'sitewright-connector' ), 'no_scopes' );
		}

		$credentials = Sitewright_Credentials::create( $scopes, Sitewright_Credentials::STATUS_PENDING, $service );
		$body        = array(
			'code'    => $code,
			'siteUrl' => home_url(),
			'restUrl' => rest_url(),
			'token'   => $credentials['token'],
			'secret'  => $credentials['secret'],
			'plugin'  => array( 'version' => SITEWRIGHT_VERSION ),
			'site'    => array_merge( Sitewright_Site_Info::collect(), array( 'scopes' => $scopes ) ),
		);
		$response    = wp_remote_post( $service . '/sites/redeem', self::request_args( wp_json_encode( $body ) ) );

		if ( is_wp_error( $response ) ) {
			Sitewright_Credentials::revoke( $credentials['id'] );
			return self::outcome(
				false,
				/* translators: 1: service URL, 2: error */
				sprintf( __( 'Could not reach Sitewright at %1$s (%2$s). Check the address and try again.', 'sitewright-connector' ), $service, $response->get_error_message() ),
				'unreachable'
			);
		}
		$status = (int) wp_remote_retrieve_response_code( $response );
		$json   = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		$error  = is_array( $json ) && isset( $json['error'] ) && is_array( $json['error'] ) ? $json['error'] : array();
		if ( 200 === $status ) {
			Sitewright_Credentials::activate( $credentials['id'] );
			// One connection at a time: the new token replaces earlier ones.
			Sitewright_Credentials::revoke_all( $credentials['id'] );
			update_option( self::SERVICE_OPTION, $service, false );
			return self::outcome( true, __( 'Connected. Go back to Sitewright to confirm the connection.', 'sitewright-connector' ), 'connected' );
		}
		Sitewright_Credentials::revoke( $credentials['id'] );
		return self::describe_failure( $status, $error );
	}

	/**
	 * The outcome of a refused redeem, in words.
	 *
	 * @param int                  $status HTTP status.
	 * @param array<string, mixed> $error  The service's error object.
	 * @return array{ok: bool, message: string, code: string}
	 */
	public static function describe_failure( int $status, array $error ): array {
		$code = isset( $error['code'] ) && is_string( $error['code'] ) ? $error['code'] : '';
		switch ( $code ) {
			case 'invalid_code':
				$left = isset( $error['details']['attemptsLeft'] ) ? (int) $error['details']['attemptsLeft'] : null;
				if ( null === $left ) {
					return self::outcome( false, __( 'That code is not right. Check it and try again.', 'sitewright-connector' ), $code );
				}
				return self::outcome(
					false,
					/* translators: %d: attempts left */
					sprintf( _n( 'That code is not right. %d attempt left.', 'That code is not right. %d attempts left.', $left, 'sitewright-connector' ), $left ),
					$code
				);
			case 'code_expired':
				return self::outcome( false, __( 'That code has expired. Start a new pairing in Sitewright and enter the new code.', 'sitewright-connector' ), $code );
			case 'locked':
				return self::outcome( false, __( 'Too many wrong codes: this pairing is locked. Start again in Sitewright.', 'sitewright-connector' ), $code );
			case 'code_used':
				return self::outcome( false, __( 'That code was already used. Start a new pairing in Sitewright.', 'sitewright-connector' ), $code );
			case 'no_pending_pairing':
				/* translators: %s: site URL */
				return self::outcome( false, sprintf( __( 'Sitewright is not waiting for %s. Start pairing in Sitewright with exactly this site address.', 'sitewright-connector' ), home_url() ), $code );
			case 'rate_limited':
				return self::outcome( false, __( 'Too many attempts from this server. Wait a minute and try again.', 'sitewright-connector' ), $code );
		}
		return self::outcome(
			false,
			/* translators: %d: HTTP status */
			sprintf( __( 'Sitewright refused the connection (HTTP %d). Try again, or start a new pairing.', 'sitewright-connector' ), $status ),
			'' !== $code ? $code : 'http_' . $status
		);
	}

	/**
	 * Request arguments: verified TLS (with a private CA from SITEWRIGHT_CA_FILE when set), no redirects.
	 *
	 * @param string                $body    JSON body.
	 * @param array<string, string> $headers More headers (the abilities' signed calls).
	 * @return array<string, mixed>
	 */
	public static function request_args( string $body, array $headers = array() ): array {
		$args = array(
			'timeout'     => 15,
			'redirection' => 0,
			'sslverify'   => true,
			'headers'     => array_merge(
				array(
					'Content-Type' => 'application/json',
					'Accept'       => 'application/json',
				),
				$headers
			),
			'body'        => $body,
			'user-agent'  => 'SitewrightConnector/' . SITEWRIGHT_VERSION . '; ' . home_url(),
		);
		if ( defined( 'SITEWRIGHT_CA_FILE' ) && is_readable( (string) SITEWRIGHT_CA_FILE ) ) {
			$args['sslcertificates'] = (string) SITEWRIGHT_CA_FILE;
		}
		return $args;
	}

	/**
	 * An outcome.
	 *
	 * @param bool   $ok      Success.
	 * @param string $message For the administrator.
	 * @param string $code    Machine-readable.
	 * @return array{ok: bool, message: string, code: string}
	 */
	private static function outcome( bool $ok, string $message, string $code ): array {
		return array(
			'ok'      => $ok,
			'message' => $message,
			'code'    => $code,
		);
	}
}
