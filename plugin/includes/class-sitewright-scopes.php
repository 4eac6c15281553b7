<?php
/**
 * Which token scopes a REST route and method need, and which capabilities each scope lends the agent user.
 *
 * Pure data and functions (no WordPress calls), so the scope map is unit-tested on its own.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The scope map. It fails closed: a route that no family names (a newer core route, another plugin's, the Abilities
 * API's /wp-abilities/v1) is refused to Sitewright tokens, whatever their scopes.
 *
 * A family is `name => [route regex, scopes for reads, scopes for writes]`; the first family whose regex matches
 * wins. Scopes: a list that must ALL be held ([] = any valid token), or null = never allowed on the signed channel.
 * To give the agent a new route, add one family here (and a line to ScopesTest).
 */
final class Sitewright_Scopes {

	public const ALL = array( 'site:read', 'content:read', 'content:write', 'media:write', 'design:write', 'settings:write' );

	/** Methods that only read. WordPress answers HEAD with the GET handler, OPTIONS with the route's schema. */
	private const READ_METHODS = array( 'GET', 'HEAD', 'OPTIONS' );

	/** Where a block theme or a classic theme keeps its design: templates, styles, navigation, classic menus. */
	private const DESIGN_ROUTES = 'templates|template-parts|global-styles|navigation|menus|menu-items|menu-locations';

	/**
	 * The route families Sitewright's service and agent use, in match order; routes are matched case-insensitively,
	 * as WordPress matches them, after normalize_route().
	 *
	 * @return array<string, array{0: string, 1: ?array<int, string>, 2: ?array<int, string>}>
	 */
	public static function rules(): array {
		return array(
			// The plugin's own routes.
			'sitewright-index'   => array( '#^/sitewright/v1$#i', array( 'site:read' ), null ),
			'sitewright-revoke'  => array( '#^/sitewright/v1/revoke$#i', null, array() ),
			'sitewright-info'    => array( '#^/sitewright/v1/(info|preflight)$#i', array( 'site:read' ), null ),
			'sitewright-export'  => array( '#^/sitewright/v1/export$#i', array( 'site:read', 'content:read' ), null ),
			'sitewright-import'  => array( '#^/sitewright/v1/import$#i', null, array( 'content:write', 'design:write', 'settings:write' ) ),
			'sitewright-css'     => array( '#^/sitewright/v1/custom-css$#i', array( 'site:read' ), array( 'design:write' ) ),
			// Items: the controller checks each item's kind (content, design or settings write) on top.
			'sitewright-items'   => array( '#^/sitewright/v1/items$#i', array( 'site:read' ), array( 'site:read' ) ),
			// Where planned changes would be seen: changes nothing; the controller checks each item's read scope.
			'sitewright-visible' => array( '#^/sitewright/v1/items/visibility$#i', null, array( 'site:read' ) ),
			// Purging caches before the look at the live site changes nothing a visitor sees.
			'sitewright-purge'   => array( '#^/sitewright/v1/purge$#i', null, array( 'site:read' ) ),
			// An attachment from a file the owner attached in the chat (not used by anything yet: not visible).
			'sitewright-media'   => array( '#^/sitewright/v1/media$#i', null, array( 'media:write' ) ),
			// Core: who the agent is, and the site's settings.
			'core-me'            => array( '#^/wp/v2/users/me$#i', array( 'site:read' ), null ),
			'core-settings'      => array( '#^/wp/v2/settings$#i', array( 'site:read' ), array( 'settings:write' ) ),
			// Core content: pages and posts (with their revisions and autosaves), their terms, synced patterns.
			'core-content'       => array( '#^/wp/v2/(pages|posts|categories|tags|blocks)(/.*)?$#i', array( 'content:read' ), array( 'content:write' ) ),
			'core-content-types' => array( '#^/wp/v2/(types|taxonomies|statuses|block-types)(/.*)?$#i', array( 'content:read' ), null ),
			'core-media'         => array( '#^/wp/v2/media(/.*)?$#i', array( 'content:read' ), array( 'media:write' ) ),
			// Core design.
			'core-design'        => array( '#^/wp/v2/(' . self::DESIGN_ROUTES . ')(/.*)?$#i', array( 'content:read' ), array( 'design:write' ) ),
		);
	}

	/**
	 * The scopes a request needs: a list that must all be held, or null when the signed channel never allows it.
	 *
	 * @param string $method HTTP method.
	 * @param string $route  REST route (WP_REST_Request::get_route()).
	 * @return array<int, string>|null
	 */
	public static function required( string $method, string $route ): ?array {
		$route = self::normalize_route( $route );
		$read  = in_array( strtoupper( $method ), self::READ_METHODS, true );
		foreach ( self::rules() as $rule ) {
			if ( preg_match( $rule[0], $route ) ) {
				return $read ? $rule[1] : $rule[2];
			}
		}
		// Fail closed: a route no family names is never allowed.
		return null;
	}

	/**
	 * Whether a token with $scopes may make this request.
	 *
	 * @param array<int, string> $scopes Token scopes.
	 * @param string             $method HTTP method.
	 * @param string             $route  REST route.
	 */
	public static function allows( array $scopes, string $method, string $route ): bool {
		$required = self::required( $method, $route );
		if ( null === $required ) {
			return false;
		}
		return array() === array_diff( $required, $scopes );
	}

	/**
	 * Collapses repeated slashes and trailing slashes so odd spellings cannot slip past a rule.
	 *
	 * @param string $route REST route.
	 */
	public static function normalize_route( string $route ): string {
		$route = (string) preg_replace( '#/{2,}#', '/', '/' . ltrim( $route, '/' ) );
		$route = rtrim( $route, '/\\' );
		return '' === $route ? '/' : $route;
	}

	/**
	 * Keeps only known scopes, de-duplicated, in canonical order.
	 *
	 * @param array<int, mixed> $scopes Requested scopes.
	 * @return array<int, string>
	 */
	public static function sanitize( array $scopes ): array {
		return array_values( array_intersect( self::ALL, array_map( 'strval', $scopes ) ) );
	}

	/**
	 * The primitive capabilities the agent user holds while a token with these scopes is in use.
	 * No scope lends unfiltered_html, user, plugin or theme-install capabilities.
	 *
	 * @param array<int, string> $scopes Token scopes.
	 * @return array<int, string>
	 */
	public static function capabilities( array $scopes ): array {
		$content_read  = array(
			'read',
			'read_private_posts',
			'read_private_pages',
			// Core needs edit_* to list drafts or use context=edit; writes are still refused by the scope map.
			'edit_posts',
			'edit_pages',
			'edit_others_posts',
			'edit_others_pages',
			'edit_published_posts',
			'edit_published_pages',
			'edit_private_posts',
			'edit_private_pages',
		);
		$content_write = array_merge(
			$content_read,
			array(
				'publish_posts',
				'publish_pages',
				'delete_posts',
				'delete_pages',
				'delete_others_posts',
				'delete_others_pages',
				'delete_published_posts',
				'delete_published_pages',
				'delete_private_posts',
				'delete_private_pages',
				'manage_categories',
				'moderate_comments',
			)
		);
		$map           = array(
			'site:read'      => array( 'read' ),
			'content:read'   => $content_read,
			'content:write'  => $content_write,
			'media:write'    => array( 'read', 'upload_files', 'edit_posts' ),
			'design:write'   => array( 'read', 'edit_theme_options' ),
			'settings:write' => array( 'read', 'manage_options' ),
		);
		$caps          = array();
		foreach ( self::sanitize( $scopes ) as $scope ) {
			$caps = array_merge( $caps, $map[ $scope ] );
		}
		return array_values( array_unique( $caps ) );
	}
}
