<?php
/**
 * Authenticates signed requests from the service (docs/signing.md) and enforces the token's
 * scopes on every REST dispatch made while one is served.
 *
 * Verification runs on rest_authentication_errors, which WordPress applies once, to the request it is serving,
 * before routing; the route is the one WordPress will dispatch ($wp->query_vars['rest_route'], untrailingslashed,
 * exactly what WP_REST_Request::get_route() reports), the query comes from the raw query string (PHP's $_GET would
 * merge repeated names), the body from WP_REST_Server::get_raw_data() (the bytes WordPress parses).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Signed-request authentication.
 */
final class Sitewright_Auth {

	public const WINDOW_MS = 300000;

	/**
	 * The signed channel's refusals and their HTTP status: the closed list every refusal comes from (docs/signing.md;
	 * plugin/vocabulary.json holds the same table, which the app reads).
	 */
	public const ERRORS = array(
		'sitewright_bad_token'                => 401,
		'sitewright_bad_signature'            => 401,
		'sitewright_stale_timestamp'          => 401,
		'sitewright_replayed'                 => 401,
		'sitewright_method_override'          => 400,
		'sitewright_scope'                    => 403,
		'sitewright_replay_cache_unavailable' => 503,
	);

	/**
	 * What the verified request looked like (for preflight and info), or null.
	 *
	 * @var array<string, mixed>|null
	 */
	private static ?array $context = null;

	/**
	 * Hooks into the REST server.
	 */
	public static function register_hooks(): void {
		add_filter( 'rest_authentication_errors', array( self::class, 'authenticate' ), 1 );
		add_filter( 'rest_pre_dispatch', array( self::class, 'enforce_scopes' ), 1, 3 );
	}

	/**
	 * The verified request's context: token row, where the Authorization header was found, timestamp and skew.
	 *
	 * @return array<string, mixed>|null
	 */
	public static function context(): ?array {
		return self::$context;
	}

	/**
	 * Forgets the current request (tests run several in one process).
	 */
	public static function reset(): void {
		self::$context = null;
		Sitewright_Agent_User::reset();
	}

	/**
	 * Filter for rest_authentication_errors: leaves requests that are not ours alone, refuses bad signed ones.
	 *
	 * @param WP_Error|null|true $result Result so far.
	 * @return WP_Error|null|true
	 */
	public static function authenticate( $result ) {
		$server                         = self::server_vars();
		list( $authorization, $source ) = self::read_authorization( $server );
		$bearer                         = self::bearer( $authorization );
		$has_signed_headers             = isset( $server['HTTP_X_SITEWRIGHT_SIGNATURE'] ) || isset( $server['HTTP_X_SITEWRIGHT_TIMESTAMP'] );
		if ( ! $has_signed_headers && ( null === $bearer || strncmp( $bearer, Sitewright_Crypto::TOKEN_PREFIX, strlen( Sitewright_Crypto::TOKEN_PREFIX ) ) !== 0 ) ) {
			return $result;
		}

		$route = '/';
		if ( isset( $GLOBALS['wp'] ) && $GLOBALS['wp'] instanceof WP && isset( $GLOBALS['wp']->query_vars['rest_route'] ) && is_string( $GLOBALS['wp']->query_vars['rest_route'] ) ) {
			$route = Sitewright_Signature::untrailingslash( $GLOBALS['wp']->query_vars['rest_route'] );
		}

		$verdict = self::verify(
			array(
				'method'       => isset( $server['REQUEST_METHOD'] ) ? (string) $server['REQUEST_METHOD'] : 'GET',
				'route'        => $route,
				'query_string' => isset( $server['QUERY_STRING'] ) ? (string) $server['QUERY_STRING'] : '',
				'body'         => (string) WP_REST_Server::get_raw_data(),
				'bearer'       => $bearer,
				'timestamp'    => $server['HTTP_X_SITEWRIGHT_TIMESTAMP'] ?? null,
				'signature'    => $server['HTTP_X_SITEWRIGHT_SIGNATURE'] ?? null,
				'override'     => isset( $server['HTTP_X_HTTP_METHOD_OVERRIDE'] ) || isset( $_GET['_method'] ), // phpcs:ignore WordPress.Security.NonceVerification.Recommended
				'form'         => self::has_form_body( $server ),
				'auth_source'  => $source,
			),
			(int) floor( microtime( true ) * 1000 )
		);
		if ( is_wp_error( $verdict ) ) {
			return $verdict;
		}
		return true;
	}

	/**
	 * Verifies one signed request and, on success, makes the agent user current with the token's scopes.
	 * Order: method override, token, timestamp window, parameters (flat, each name once, no form body), signature
	 * (constant time), replay cache (atomic insert).
	 *
	 * @param array<string, mixed> $request Method, route, query_string, body, bearer, timestamp, signature, override,
	 *                                      form (PHP parsed a form or multipart body), auth_source.
	 * @param int                  $now_ms  Current time in milliseconds.
	 * @return true|WP_Error
	 */
	public static function verify( array $request, int $now_ms ) {
		self::reset();
		$pairs = Sitewright_Signature::parse_query_string( (string) $request['query_string'] );
		foreach ( $pairs as $pair ) {
			// PHP turns spaces and dots in names into underscores, so `.method` also reaches WordPress as `_method`.
			if ( '_method' === strtr( $pair[0], ' .', '__' ) ) {
				$request['override'] = true;
			}
		}
		if ( ! empty( $request['override'] ) ) {
			return self::error( 'sitewright_method_override', __( 'Signed requests cannot override their method (_method or X-HTTP-Method-Override): send the real method.', 'sitewright-connector' ) );
		}

		$token = is_string( $request['bearer'] ) ? $request['bearer'] : '';
		$row   = '' === $token ? null : Sitewright_Credentials::find_by_token( $token );
		if ( null === $row || Sitewright_Credentials::STATUS_ACTIVE !== $row['status'] ) {
			return self::error( 'sitewright_bad_token', __( 'The Sitewright token is missing, unknown or revoked. Reconnect the site from Sitewright.', 'sitewright-connector' ) );
		}
		$secret = Sitewright_Crypto::open( $row['sealed_secret'], $row['token_hash'] );
		if ( null === $secret ) {
			return self::error( 'sitewright_bad_token', __( 'This token can no longer be used (the site\'s secret keys changed). Reconnect the site from Sitewright.', 'sitewright-connector' ) );
		}

		$timestamp = $request['timestamp'];
		if ( ! is_string( $timestamp ) || ! preg_match( '/^[0-9]{1,16}$/D', $timestamp ) ) {
			return self::error( 'sitewright_bad_signature', __( 'The X-Sitewright-Timestamp header must be unix time in milliseconds.', 'sitewright-connector' ) );
		}
		$timestamp_ms = (int) $timestamp;
		if ( abs( $now_ms - $timestamp_ms ) > self::WINDOW_MS ) {
			return self::error(
				'sitewright_stale_timestamp',
				__( 'The request timestamp is more than 300 seconds away from the site\'s clock. Check both clocks.', 'sitewright-connector' ),
				array( 'serverTime' => $now_ms )
			);
		}

		if ( ! Sitewright_Signature::is_flat( $pairs ) ) {
			return self::error( 'sitewright_bad_signature', __( 'Signed requests take only flat query parameters (no name[] or name[key]).', 'sitewright-connector' ) );
		}
		$repeated = Sitewright_Signature::repeated_name( $pairs );
		if ( null !== $repeated ) {
			return self::error(
				'sitewright_bad_signature',
				/* translators: %s: query parameter name */
				sprintf( __( 'Signed requests take each query parameter once; "%s" is repeated (PHP would act on the last value only).', 'sitewright-connector' ), $repeated )
			);
		}
		if ( ! empty( $request['form'] ) ) {
			return self::error( 'sitewright_bad_signature', __( 'Signed requests carry their parameters in the signed query or a JSON body, never in a form or multipart body (the signature covers only the raw body).', 'sitewright-connector' ) );
		}
		$string_to_sign = Sitewright_Signature::string_to_sign( $timestamp, (string) $request['method'], (string) $request['route'], $pairs, (string) $request['body'] );
		if ( ! Sitewright_Signature::verify( $secret, $string_to_sign, $request['signature'] ) ) {
			return self::error( 'sitewright_bad_signature', __( 'The request signature does not match. The secret, method, route, query or body differ from what was signed.', 'sitewright-connector' ) );
		}

		$expires_at = intdiv( max( $timestamp_ms, $now_ms ), 1000 ) + intdiv( self::WINDOW_MS, 1000 ) + 60;
		try {
			$fresh = Sitewright_Replay_Cache::remember( (string) Sitewright_Signature::parse_header( $request['signature'] ), $expires_at );
		} catch ( RuntimeException $e ) {
			return self::error( 'sitewright_replay_cache_unavailable', __( 'The site could not record the request, so it was refused. Check the database.', 'sitewright-connector' ) );
		}
		if ( ! $fresh ) {
			return self::error( 'sitewright_replayed', __( 'This signed request was already received once; each signature is accepted only once.', 'sitewright-connector' ) );
		}

		Sitewright_Credentials::touch( $row['id'] );
		self::$context = array(
			'token'        => $row,
			'auth_source'  => $request['auth_source'] ?? null,
			'timestamp_ms' => $timestamp_ms,
			'skew_ms'      => $now_ms - $timestamp_ms,
			'route'        => $request['route'],
		);
		Sitewright_Agent_User::act_with( $row['scopes'] );
		return true;
	}

	/**
	 * Filter for rest_pre_dispatch: every dispatch during a signed request (embeds and internal ones too) must be
	 * allowed by the token's scopes.
	 *
	 * @param mixed           $result  Result so far.
	 * @param WP_REST_Server  $server  Server.
	 * @param WP_REST_Request $request Request.
	 * @return mixed
	 */
	public static function enforce_scopes( $result, $server, $request ) {
		$scopes = Sitewright_Agent_User::scopes();
		if ( null === $scopes || ! $request instanceof WP_REST_Request ) {
			return $result;
		}
		$method = $request->get_method();
		$route  = $request->get_route();
		if ( ! Sitewright_Scopes::allows( $scopes, $method, $route ) ) {
			$required = Sitewright_Scopes::required( $method, $route );
			return self::error(
				'sitewright_scope',
				null === $required
					? __( 'Sitewright tokens are never allowed to make this request.', 'sitewright-connector' )
					/* translators: %s: list of scopes */
					: sprintf( __( 'This token lacks the scope this request needs: %s.', 'sitewright-connector' ), implode( ', ', $required ) ),
				array( 'required' => $required )
			);
		}
		return $result;
	}

	/**
	 * The Authorization header and where it was found: hosts (Apache with CGI/FastCGI) drop it or move it.
	 *
	 * @param array<string, mixed> $server The $_SERVER array.
	 * @return array{0: ?string, 1: ?string}
	 */
	public static function read_authorization( array $server ): array {
		foreach ( array( 'HTTP_AUTHORIZATION', 'REDIRECT_HTTP_AUTHORIZATION' ) as $name ) {
			if ( isset( $server[ $name ] ) && is_string( $server[ $name ] ) && '' !== $server[ $name ] ) {
				return array( $server[ $name ], $name );
			}
		}
		if ( function_exists( 'getallheaders' ) ) {
			$headers = getallheaders();
			if ( is_array( $headers ) ) {
				foreach ( $headers as $name => $value ) {
					if ( is_string( $name ) && 0 === strcasecmp( $name, 'authorization' ) && is_string( $value ) && '' !== $value ) {
						return array( $value, 'getallheaders' );
					}
				}
			}
		}
		return array( null, null );
	}

	/**
	 * The token of a `Bearer <token>` header, or null.
	 *
	 * @param string|null $authorization Header value.
	 */
	public static function bearer( ?string $authorization ): ?string {
		if ( null === $authorization || ! preg_match( '/^Bearer[ \t]+(\S+)[ \t]*$/iD', $authorization, $matches ) ) {
			return null;
		}
		return $matches[1];
	}

	/**
	 * Whether PHP parsed parameters or files out of the body behind the raw body: a form or multipart body, whose
	 * fields reach WordPress through $_POST and $_FILES (get_body_params(), get_file_params()) while the raw body
	 * that was hashed can be empty (PHP keeps no php://input for multipart/form-data).
	 *
	 * @param array<string, mixed> $server The $_SERVER array.
	 */
	public static function has_form_body( array $server ): bool {
		// phpcs:ignore WordPress.Security.NonceVerification.Missing -- only counted, never read: the request is refused.
		if ( ! empty( $_POST ) || ! empty( $_FILES ) ) {
			return true;
		}
		$type = strtolower( trim( (string) ( $server['CONTENT_TYPE'] ?? $server['HTTP_CONTENT_TYPE'] ?? '' ) ) );
		$type = trim( explode( ';', $type, 2 )[0] );
		return 'multipart/form-data' === $type || 'application/x-www-form-urlencoded' === $type;
	}

	/**
	 * The server variables, unslashed.
	 *
	 * @return array<string, mixed>
	 */
	private static function server_vars(): array {
		return wp_unslash( $_SERVER ); // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized
	}

	/**
	 * A refusal from the closed list, with the status the list gives it.
	 *
	 * @param string               $code    Error code, a key of ERRORS.
	 * @param string               $message Message a person can act on.
	 * @param array<string, mixed> $extra   More data.
	 */
	public static function error( string $code, string $message, array $extra = array() ): WP_Error {
		return new WP_Error( $code, $message, array_merge( array( 'status' => self::ERRORS[ $code ] ?? 500 ), $extra ) );
	}
}
