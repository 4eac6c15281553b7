<?php
/**
 * Checks that the site can be driven by Sitewright, each with pass/warn/fail and a fix a person can follow.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Preflight checks.
 */
final class Sitewright_Preflight {

	public const MIN_PHP = '8.1';
	public const MIN_WP  = '6.1';

	/**
	 * Plugins known to block or restrict the REST API or custom Authorization headers: basename => name.
	 *
	 * @return array<string, string>
	 */
	public static function security_plugins(): array {
		return array(
			'wordfence/wordfence.php'                     => 'Wordfence',
			'better-wp-security/better-wp-security.php'   => 'Solid Security (iThemes Security)',
			'ithemes-security-pro/ithemes-security-pro.php' => 'Solid Security Pro',
			'all-in-one-wp-security-and-firewall/wp-security.php' => 'All-In-One Security (AIOS)',
			'sucuri-scanner/sucuri.php'                   => 'Sucuri Security',
			'wp-simple-firewall/icwp-wpsf.php'            => 'Shield Security',
			'wp-cerber/wp-cerber.php'                     => 'WP Cerber',
			'ninjafirewall/ninjafirewall.php'             => 'NinjaFirewall',
			'disable-json-api/disable-json-api.php'       => 'Disable REST API',
			'disable-wp-rest-api/disable-wp-rest-api.php' => 'Disable WP REST API',
			'hide-my-wp/index.php'                        => 'Hide My WP Ghost',
			'perfmatters/perfmatters.php'                 => 'Perfmatters',
			'clearfy/clearfy.php'                         => 'Clearfy',
			'jwt-authentication-for-wp-rest-api/jwt-auth.php' => 'JWT Authentication for WP REST API',
		);
	}

	/**
	 * Runs every check.
	 *
	 * @param array<string, mixed>|null $context Sitewright_Auth::context() of the signed request, if any.
	 * @return array{status: string, checks: array<int, array{id: string, status: string, message: string, fix: string}>}
	 */
	public static function run( ?array $context ): array {
		$checks = array(
			self::https(),
			self::permalinks(),
			self::authorization_header( $context ),
			self::clock( $context ),
			self::php_version(),
			self::wp_version(),
			self::security_plugins_check(),
			self::core_routes(),
			self::salts(),
			self::tables(),
		);
		$status = 'pass';
		foreach ( $checks as $check ) {
			if ( 'fail' === $check['status'] ) {
				$status = 'fail';
				break;
			}
			if ( 'warn' === $check['status'] ) {
				$status = 'warn';
			}
		}
		return array(
			'status' => $status,
			'checks' => $checks,
		);
	}

	/**
	 * One check.
	 *
	 * @param string $id      Check id.
	 * @param string $status  One of pass, warn or fail.
	 * @param string $message What was found.
	 * @param string $fix     What to do (empty on pass).
	 * @return array{id: string, status: string, message: string, fix: string}
	 */
	private static function check( string $id, string $status, string $message, string $fix = '' ): array {
		return array(
			'id'      => $id,
			'status'  => $status,
			'message' => $message,
			'fix'     => $fix,
		);
	}

	/**
	 * The site's address is https.
	 */
	private static function https(): array {
		$home = (string) wp_parse_url( home_url(), PHP_URL_SCHEME );
		if ( 'https' === $home ) {
			return self::check( 'https', 'pass', __( 'The site address uses https.', 'sitewright-connector' ) );
		}
		return self::check(
			'https',
			'fail',
			__( 'The site address does not use https, so requests and credentials could be read in transit.', 'sitewright-connector' ),
			__( 'Install a TLS certificate (most hosts offer free ones) and change both addresses in Settings → General to https://.', 'sitewright-connector' )
		);
	}

	/**
	 * Pretty permalinks, so the REST API answers at /wp-json/.
	 */
	private static function permalinks(): array {
		if ( '' !== (string) get_option( 'permalink_structure' ) ) {
			return self::check( 'permalinks', 'pass', __( 'The REST API is reachable at /wp-json/.', 'sitewright-connector' ) );
		}
		return self::check(
			'permalinks',
			'warn',
			__( 'Permalinks are set to Plain, so the REST API answers only at ?rest_route=. Sitewright works, but some firewalls and caches treat those URLs badly.', 'sitewright-connector' ),
			__( 'In Settings → Permalinks, choose any structure other than Plain and save.', 'sitewright-connector' )
		);
	}

	/**
	 * Where the Authorization header arrived.
	 *
	 * @param array<string, mixed>|null $context Signed request context.
	 */
	private static function authorization_header( ?array $context ): array {
		$source = $context['auth_source'] ?? null;
		if ( 'HTTP_AUTHORIZATION' === $source ) {
			return self::check( 'authorization_header', 'pass', __( 'The Authorization header reaches WordPress.', 'sitewright-connector' ) );
		}
		if ( null !== $source ) {
			return self::check(
				'authorization_header',
				'warn',
				/* translators: %s: where the header was found */
				sprintf( __( 'The server moved the Authorization header (found in %s). It works, but some setups drop it entirely.', 'sitewright-connector' ), $source ),
				__( 'On Apache, add to .htaccess: SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1', 'sitewright-connector' )
			);
		}
		return self::check(
			'authorization_header',
			'warn',
			__( 'Not checked: this check needs a signed request from Sitewright.', 'sitewright-connector' ),
			__( 'Run the preflight from Sitewright.', 'sitewright-connector' )
		);
	}

	/**
	 * Clock skew between the service's timestamp and the site's clock.
	 *
	 * @param array<string, mixed>|null $context Signed request context.
	 */
	private static function clock( ?array $context ): array {
		if ( ! isset( $context['skew_ms'] ) ) {
			return self::check( 'clock_skew', 'warn', __( 'Not checked: this check needs a signed request from Sitewright.', 'sitewright-connector' ), __( 'Run the preflight from Sitewright.', 'sitewright-connector' ) );
		}
		$skew_s = abs( (int) $context['skew_ms'] ) / 1000;
		/* translators: %s: seconds */
		$message = sprintf( __( 'The site\'s clock and Sitewright\'s differ by %s seconds.', 'sitewright-connector' ), number_format( $skew_s, 1 ) );
		if ( $skew_s <= 30 ) {
			return self::check( 'clock_skew', 'pass', $message );
		}
		return self::check(
			'clock_skew',
			$skew_s <= 300 ? 'warn' : 'fail',
			$message . ' ' . __( 'Requests more than 300 seconds off are refused.', 'sitewright-connector' ),
			__( 'Ask your host to synchronise the server clock (NTP).', 'sitewright-connector' )
		);
	}

	/**
	 * PHP version.
	 */
	private static function php_version(): array {
		/* translators: %s: version */
		$message = sprintf( __( 'PHP %s.', 'sitewright-connector' ), PHP_VERSION );
		if ( version_compare( PHP_VERSION, self::MIN_PHP, '>=' ) ) {
			return self::check( 'php_version', 'pass', $message );
		}
		return self::check( 'php_version', 'fail', $message, __( 'Ask your host for PHP 8.1 or newer.', 'sitewright-connector' ) );
	}

	/**
	 * WordPress version.
	 */
	private static function wp_version(): array {
		global $wp_version;
		/* translators: %s: version */
		$message = sprintf( __( 'WordPress %s.', 'sitewright-connector' ), $wp_version );
		if ( version_compare( (string) $wp_version, self::MIN_WP, '>=' ) ) {
			return self::check( 'wp_version', 'pass', $message );
		}
		return self::check( 'wp_version', 'fail', $message, __( 'Update WordPress to 6.1 or newer in Dashboard → Updates.', 'sitewright-connector' ) );
	}

	/**
	 * Active plugins known to block REST requests or strip Authorization headers.
	 */
	private static function security_plugins_check(): array {
		$active = (array) get_option( 'active_plugins', array() );
		$found  = array();
		foreach ( self::security_plugins() as $basename => $name ) {
			if ( in_array( $basename, $active, true ) ) {
				$found[] = $name;
			}
		}
		if ( ! $found ) {
			return self::check( 'security_plugins', 'pass', __( 'No plugin known to block the REST API is active.', 'sitewright-connector' ) );
		}
		return self::check(
			'security_plugins',
			'warn',
			/* translators: %s: plugin names */
			sprintf( __( 'Active plugins that can block REST requests or Authorization headers: %s.', 'sitewright-connector' ), implode( ', ', $found ) ),
			__( 'In those plugins, allow the REST API for authenticated requests and the routes /wp-json/sitewright/v1/ and /wp-json/wp/v2/.', 'sitewright-connector' )
		);
	}

	/**
	 * Core content routes are registered (some plugins remove them).
	 */
	private static function core_routes(): array {
		$routes  = rest_get_server()->get_routes();
		$missing = array();
		foreach ( array( '/wp/v2/pages', '/wp/v2/posts', '/wp/v2/media' ) as $route ) {
			if ( ! isset( $routes[ $route ] ) ) {
				$missing[] = $route;
			}
		}
		if ( ! $missing ) {
			return self::check( 'core_routes', 'pass', __( 'The core REST routes for pages, posts and media are available.', 'sitewright-connector' ) );
		}
		return self::check(
			'core_routes',
			'fail',
			/* translators: %s: routes */
			sprintf( __( 'Core REST routes are missing: %s.', 'sitewright-connector' ), implode( ', ', $missing ) ),
			__( 'A plugin or theme disables parts of the REST API; allow it for authenticated requests.', 'sitewright-connector' )
		);
	}

	/**
	 * The secret's encryption key comes from wp-config.php.
	 */
	private static function salts(): array {
		if ( Sitewright_Crypto::has_config_salts() ) {
			return self::check( 'secret_keys', 'pass', __( 'wp-config.php defines the secret keys that protect the stored Sitewright secret.', 'sitewright-connector' ) );
		}
		return self::check(
			'secret_keys',
			'warn',
			__( 'wp-config.php does not define AUTH_KEY and SECURE_AUTH_KEY, so the stored Sitewright secret is protected only by keys kept in the database.', 'sitewright-connector' ),
			__( 'Add unique AUTH_KEY and SECURE_AUTH_KEY values to wp-config.php, then reconnect the site.', 'sitewright-connector' )
		);
	}

	/**
	 * The plugin's tables exist.
	 */
	private static function tables(): array {
		if ( Sitewright_Schema::tables_exist() ) {
			return self::check( 'plugin_tables', 'pass', __( 'The plugin\'s tables exist.', 'sitewright-connector' ) );
		}
		return self::check( 'plugin_tables', 'fail', __( 'The plugin\'s tables are missing.', 'sitewright-connector' ), __( 'Deactivate and activate Sitewright Connector in Plugins.', 'sitewright-connector' ) );
	}
}
