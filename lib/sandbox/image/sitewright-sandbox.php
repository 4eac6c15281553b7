<?php
/**
 * Plugin Name: Sitewright sandbox
 * Description: Marks this WordPress as a disposable Sitewright sandbox, hands the service its plugin credentials
 * once at start, and lets its owner sign in with a one-time link that the service issues (the admin password is
 * never known to anyone).
 */
declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const SITEWRIGHT_SANDBOX_LOGIN_DIR = '/data/login/';
const SITEWRIGHT_SANDBOX_PROVISION_TOKEN = '/data/provision-token';
const SITEWRIGHT_SANDBOX_VIEWER_FILE = '/data/preview-viewer';

/**
 * POST /wp-json/sitewright-sandbox/v1/provision with `X-Sitewright-Provision: <the token the entrypoint wrote>`:
 * creates the connector's credentials for the service, once. The service reads the token through the engine
 * (only it can), so nobody else can claim them; the file is removed before the credentials are made.
 */
function sitewright_sandbox_register_provision_route(): void {
	register_rest_route(
		'sitewright-sandbox/v1',
		'/provision',
		array(
			'methods'             => 'POST',
			'callback'            => 'sitewright_sandbox_provision',
			'permission_callback' => 'sitewright_sandbox_provision_allowed',
			'args'                => array(
				'scopes'     => array( 'type' => 'array', 'items' => array( 'type' => 'string' ), 'required' => true ),
				'serviceUrl' => array( 'type' => 'string', 'default' => '' ),
				// The SHA-256 of the owner's preview token (lib/sandbox/preview-viewer.ts), kept for the preview.
				'viewer'     => array( 'type' => 'string', 'default' => '', 'pattern' => '^([0-9a-f]{64})?$' ),
			),
		)
	);
}
add_action( 'rest_api_init', 'sitewright_sandbox_register_provision_route' );

function sitewright_sandbox_provision_allowed( WP_REST_Request $request ): bool {
	$given = (string) $request->get_header( 'x_sitewright_provision' );
	$expected = is_file( SITEWRIGHT_SANDBOX_PROVISION_TOKEN ) ? trim( (string) file_get_contents( SITEWRIGHT_SANDBOX_PROVISION_TOKEN ) ) : '';
	return strlen( $expected ) === 64 && hash_equals( $expected, $given );
}

/**
 * @return WP_REST_Response|WP_Error
 */
function sitewright_sandbox_provision( WP_REST_Request $request ) {
	if ( ! @unlink( SITEWRIGHT_SANDBOX_PROVISION_TOKEN ) ) {
		return new WP_Error( 'sitewright_provisioned', 'This sandbox was already provisioned.', array( 'status' => 403 ) );
	}
	if ( ! class_exists( 'Sitewright_Credentials' ) ) {
		return new WP_Error( 'sitewright_no_plugin', 'The Sitewright Connector plugin is not active.', array( 'status' => 500 ) );
	}
	$created = Sitewright_Credentials::create( (array) $request['scopes'], Sitewright_Credentials::STATUS_ACTIVE, (string) $request['serviceUrl'] );
	return rest_ensure_response(
		array(
			'token'   => $created['token'],
			'secret'  => $created['secret'],
			'scopes'  => $created['scopes'],
			'viewer'  => '' !== (string) $request['viewer'] && sitewright_sandbox_keep_viewer( (string) $request['viewer'] ),
			'scripts' => sitewright_sandbox_scripts(),
		)
	);
}

/** Writes the preview viewer's hash as the service would through the engine: whole, readable by this user alone. */
function sitewright_sandbox_keep_viewer( string $hash ): bool {
	$partial = SITEWRIGHT_SANDBOX_VIEWER_FILE . '.partial';
	$old_umask = umask( 077 );
	$written = false !== file_put_contents( $partial, $hash ) && rename( $partial, SITEWRIGHT_SANDBOX_VIEWER_FILE );
	umask( $old_umask );
	return $written;
}

/**
 * How this PHP server came by its scripts so far; provisioning is its first request, so these are a cold start's:
 * `compiled` (opcache misses: compiled on this request) and `cached` (hits: taken compiled from the image's file
 * cache, or again from memory), and whether the file cache is on. Counts only, for the service's bench and tests.
 *
 * @return array{compiled: int, cached: int, fileCache: bool}|null
 */
function sitewright_sandbox_scripts(): ?array {
	$status = function_exists( 'opcache_get_status' ) ? opcache_get_status( false ) : false;
	if ( ! is_array( $status ) || empty( $status['opcache_statistics'] ) ) {
		return null;
	}
	return array(
		'compiled'  => (int) $status['opcache_statistics']['misses'],
		'cached'    => (int) $status['opcache_statistics']['hits'],
		'fileCache' => ! empty( $status['file_cache'] ),
	);
}

/**
 * Signs the owner in as the sandbox administrator when `?sitewright_login=<token>` names a live one-time token.
 * The service writes sha256(token) as a file holding its expiry; removing the file claims it, so a token works
 * once even under concurrent requests.
 */
function sitewright_sandbox_login(): void {
	if ( ! isset( $_GET['sitewright_login'] ) || ! is_string( $_GET['sitewright_login'] ) ) {
		return;
	}
	$token = (string) $_GET['sitewright_login'];
	if ( ! preg_match( '/^[A-Za-z0-9_-]{32,128}$/', $token ) ) {
		sitewright_sandbox_refuse();
	}
	$file = SITEWRIGHT_SANDBOX_LOGIN_DIR . hash( 'sha256', $token );
	$expires = is_file( $file ) ? (int) trim( (string) file_get_contents( $file ) ) : 0;
	if ( $expires === 0 || ! @unlink( $file ) || $expires < time() ) {
		sitewright_sandbox_refuse();
	}
	$admins = get_users( array( 'role' => 'administrator', 'number' => 1, 'orderby' => 'ID', 'order' => 'ASC', 'fields' => 'ID' ) );
	if ( empty( $admins ) ) {
		sitewright_sandbox_refuse();
	}
	wp_set_current_user( (int) $admins[0] );
	wp_set_auth_cookie( (int) $admins[0], false );
	wp_safe_redirect( admin_url() );
	exit;
}
add_action( 'init', 'sitewright_sandbox_login', 1 );

function sitewright_sandbox_refuse(): void {
	wp_die( esc_html__( 'This sign-in link is not valid any more. Open the sandbox again from Sitewright.' ), '', array( 'response' => 403 ) );
}

/**
 * When this sandbox expires, as the service's preview proxy tells it (`X-Sitewright-Sandbox-Expires`: unix
 * seconds). Null when the request did not come through the preview.
 */
function sitewright_sandbox_expires(): ?int {
	$given = isset( $_SERVER['HTTP_X_SITEWRIGHT_SANDBOX_EXPIRES'] ) ? (string) $_SERVER['HTTP_X_SITEWRIGHT_SANDBOX_EXPIRES'] : '';
	return preg_match( '/^[0-9]{9,11}$/', $given ) ? (int) $given : null;
}

function sitewright_sandbox_label(): string {
	$expires = sitewright_sandbox_expires();
	if ( null === $expires ) {
		return __( 'Sitewright sandbox: a disposable copy, not your live site' );
	}
	$minutes = max( 0, (int) ceil( ( $expires - time() ) / 60 ) );
	/* translators: 1: minutes left, 2: the expiry time in UTC */
	return sprintf( __( 'Sitewright sandbox: a disposable copy, not your live site. It is deleted in %1$d min (%2$s UTC).' ), $minutes, gmdate( 'H:i', $expires ) );
}

/** Says "sandbox" in the admin bar, on the front end and in wp-admin, so nobody mistakes it for the live site. */
function sitewright_sandbox_admin_bar( WP_Admin_Bar $bar ): void {
	$expires = sitewright_sandbox_expires();
	$bar->add_node(
		array(
			'id'    => 'sitewright-sandbox',
			'title' => esc_html( null === $expires ? __( 'Sitewright sandbox' ) : sprintf( __( 'Sitewright sandbox · expires %s UTC' ), gmdate( 'H:i', $expires ) ) ),
			'meta'  => array( 'title' => esc_attr( sitewright_sandbox_label() ) ),
		)
	);
}
add_action( 'admin_bar_menu', 'sitewright_sandbox_admin_bar', 5 );

function sitewright_sandbox_admin_notice(): void {
	echo '<div class="notice notice-warning" id="sitewright-sandbox-notice"><p>' . esc_html( sitewright_sandbox_label() ) . '</p></div>';
}
add_action( 'admin_notices', 'sitewright_sandbox_admin_notice' );

/**
 * True when this request is the owner's, through the service's preview: it carries the viewer token whose SHA-256
 * the service wrote to /data/preview-viewer (lib/sandbox/preview-viewer.ts). Browsers cannot send that header.
 */
function sitewright_sandbox_is_owner_preview(): bool {
	static $owner = null;
	if ( null === $owner ) {
		$given    = isset( $_SERVER['HTTP_X_SITEWRIGHT_PREVIEW_VIEWER'] ) ? (string) $_SERVER['HTTP_X_SITEWRIGHT_PREVIEW_VIEWER'] : '';
		$expected = is_file( SITEWRIGHT_SANDBOX_VIEWER_FILE ) ? trim( (string) file_get_contents( SITEWRIGHT_SANDBOX_VIEWER_FILE ) ) : '';
		$owner    = '' !== $given && 64 === strlen( $expected ) && hash_equals( $expected, hash( 'sha256', $given ) );
	}
	return $owner;
}

/**
 * In the owner's preview, a single post or page opens whatever its status (a draft the agent made, a private
 * page): the main query names those statuses itself, so WordPress needs no signed-in user to show them. Lists,
 * feeds and wp-admin are untouched.
 */
function sitewright_sandbox_preview_unpublished( WP_Query $query ): void {
	if ( is_admin() || ! $query->is_main_query() || ! $query->is_singular() || ! sitewright_sandbox_is_owner_preview() ) {
		return;
	}
	$query->set( 'post_status', array( 'publish', 'draft', 'pending', 'future', 'private' ) );
}
add_action( 'pre_get_posts', 'sitewright_sandbox_preview_unpublished' );

// Nothing a sandbox should show search engines or send anywhere.
add_filter( 'pre_option_blog_public', static fn () => '0' );
add_filter( 'xmlrpc_enabled', '__return_false' );
