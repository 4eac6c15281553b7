<?php
/**
 * Cache purging and public addresses, for Sitewright's look at the live site after a write (docs/verification.md):
 * before the service fetches a page as an anonymous visitor, the plugin purges what it can name for the items a
 * change set touched — WordPress's object cache and the purge functions of the page-cache plugins most sites run —
 * and says which public URL shows each item.
 *
 * Each page cache is called through the public function or action its plugin documents (read in its public source):
 * WP Rocket (rocket_clean_post, rocket_clean_domain), W3 Total Cache (w3tc_flush_post, w3tc_flush_all), WP Super
 * Cache (wp_cache_post_change, wp_cache_clear_cache), LiteSpeed Cache (litespeed_purge_post, litespeed_purge_all
 * actions), Cache Enabler (cache_enabler_clear_page_cache_by_post, cache_enabler_clear_complete_cache actions),
 * WP Fastest Cache (wpfc_clear_post_cache_by_id, wpfc_clear_all_cache), SiteGround Speed Optimizer
 * (sg_cachepress_purge_cache), Nginx Helper (rt_nginx_helper_purge_all action), Breeze (breeze_clear_all_cache
 * action). A cache none of these names can hook `sitewright_purge_post` and `sitewright_purge_all`.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Purges and public URLs.
 */
final class Sitewright_Cache {

	/**
	 * Purges the caches of the given refs and returns where a visitor sees each.
	 *
	 * @param array<int, string> $refs Valid item refs (Sitewright_Items::parse_ref).
	 * @return array{urls: array<int, array{ref: string, url: string|null, public: bool}>, home: string, purged: array<int, string>}
	 */
	public static function purge( array $refs ): array {
		$urls           = array();
		$post_ids       = array();
		$everything     = false;
		$builder_caches = array();
		foreach ( $refs as $ref ) {
			$parsed = Sitewright_Items::parse_ref( $ref );
			if ( null === $parsed ) {
				continue;
			}
			list( $kind, $key ) = $parsed;
			if ( 'elementor' === $kind ) {
				$builder_caches = Sitewright_Elementor_Cache::clear_page( (int) $key );
				$post_ids[]     = (int) $key;
				$urls[]         = self::post_entry( $ref, get_post( (int) $key ) );
				continue;
			}
			if ( 'elementor_kit' === $kind ) {
				// The kit's colours and fonts show on every Elementor page: its caches are cleared site-wide.
				$builder_caches = Sitewright_Elementor_Cache::clear_site();
				$everything     = true;
				$urls[]         = self::home_entry( $ref );
				continue;
			}
			if ( 'post' === $kind && ctype_digit( $key ) ) {
				$post = get_post( (int) $key );
				if ( $post instanceof WP_Post && in_array( $post->post_type, Sitewright_Vocabulary::design_post_types(), true ) ) {
					$everything = true;
					$urls[]     = self::home_entry( $ref );
					continue;
				}
				$post_ids[] = (int) $key;
				$urls[]     = self::post_entry( $ref, $post );
				continue;
			}
			// Settings, CSS, menus, styles and template parts show on every page: the home page stands for them.
			$everything = true;
			$urls[]     = self::home_entry( $ref );
		}

		$purged = array_merge( array( 'WordPress object cache' ), $builder_caches );
		foreach ( $post_ids as $id ) {
			clean_post_cache( $id );
		}
		if ( $everything ) {
			wp_cache_flush();
		}
		foreach ( self::page_caches() as $name => $callbacks ) {
			if ( ! $callbacks['present']() ) {
				continue;
			}
			try {
				if ( $everything ) {
					$callbacks['all']();
				} else {
					foreach ( $post_ids as $id ) {
						$callbacks['post']( $id );
					}
				}
				$purged[] = $name;
			} catch ( Throwable $error ) {
				// A cache plugin's failure must not hide the others; the look at the page tells the rest.
				continue;
			}
		}
		if ( $everything ) {
			do_action( 'sitewright_purge_all' );
		} else {
			foreach ( $post_ids as $id ) {
				do_action( 'sitewright_purge_post', $id );
			}
		}
		return array(
			'urls'   => $urls,
			'home'   => home_url( '/' ),
			'purged' => $purged,
		);
	}

	/**
	 * Where a post is seen: its permalink when visitors can see it, otherwise none.
	 *
	 * @param string       $ref  Ref.
	 * @param WP_Post|null $post Post (null when it no longer exists).
	 * @return array{ref: string, url: string|null, public: bool}
	 */
	private static function post_entry( string $ref, $post ): array {
		$public = $post instanceof WP_Post && 'publish' === $post->post_status && '' === $post->post_password && is_post_type_viewable( $post->post_type );
		$url    = $post instanceof WP_Post ? get_permalink( $post ) : false;
		return array(
			'ref'    => $ref,
			'url'    => is_string( $url ) ? $url : null,
			'public' => $public,
		);
	}

	/**
	 * The home page, for what shows on every page.
	 *
	 * @param string $ref Ref.
	 * @return array{ref: string, url: string, public: bool}
	 */
	private static function home_entry( string $ref ): array {
		return array(
			'ref'    => $ref,
			'url'    => home_url( '/' ),
			'public' => true,
		);
	}

	/**
	 * The page caches Sitewright knows how to purge: whether each is present, and how to purge a post or everything.
	 *
	 * @return array<string, array{present: callable, post: callable, all: callable}>
	 */
	private static function page_caches(): array {
		// phpcs:disable WordPress.NamingConventions.PrefixAllGlobals.NonPrefixedHooknameFound, Generic.CodeAnalysis.UnusedFunctionParameter.Found -- other plugins' public hooks; every "post" purge takes the id, some caches purge all.
		$caches = array(
			'WP Rocket'                  => array(
				'present' => static fn() => function_exists( 'rocket_clean_post' ),
				'post'    => static fn( int $id ) => rocket_clean_post( $id ),
				'all'     => static fn() => function_exists( 'rocket_clean_domain' ) ? rocket_clean_domain() : null,
			),
			'W3 Total Cache'             => array(
				'present' => static fn() => function_exists( 'w3tc_flush_post' ),
				'post'    => static fn( int $id ) => w3tc_flush_post( $id ),
				'all'     => static fn() => function_exists( 'w3tc_flush_all' ) ? w3tc_flush_all() : null,
			),
			'WP Super Cache'             => array(
				'present' => static fn() => function_exists( 'wp_cache_post_change' ),
				'post'    => static fn( int $id ) => wp_cache_post_change( $id ),
				'all'     => static fn() => function_exists( 'wp_cache_clear_cache' ) ? wp_cache_clear_cache() : null,
			),
			'LiteSpeed Cache'            => array(
				'present' => static fn() => (bool) has_action( 'litespeed_purge_post' ),
				'post'    => static fn( int $id ) => do_action( 'litespeed_purge_post', $id ),
				'all'     => static fn() => do_action( 'litespeed_purge_all' ),
			),
			'Cache Enabler'              => array(
				'present' => static fn() => (bool) has_action( 'cache_enabler_clear_page_cache_by_post' ),
				'post'    => static fn( int $id ) => do_action( 'cache_enabler_clear_page_cache_by_post', $id ),
				'all'     => static fn() => do_action( 'cache_enabler_clear_complete_cache' ),
			),
			'WP Fastest Cache'           => array(
				'present' => static fn() => function_exists( 'wpfc_clear_post_cache_by_id' ),
				'post'    => static fn( int $id ) => wpfc_clear_post_cache_by_id( $id ),
				'all'     => static fn() => function_exists( 'wpfc_clear_all_cache' ) ? wpfc_clear_all_cache( true ) : null,
			),
			'SiteGround Speed Optimizer' => array(
				'present' => static fn() => function_exists( 'sg_cachepress_purge_cache' ),
				'post'    => static fn( int $id ) => sg_cachepress_purge_cache( (string) get_permalink( $id ) ),
				'all'     => static fn() => sg_cachepress_purge_cache(),
			),
			'Nginx Helper'               => array(
				'present' => static fn() => (bool) has_action( 'rt_nginx_helper_purge_all' ),
				'post'    => static fn( int $id ) => do_action( 'rt_nginx_helper_purge_all' ),
				'all'     => static fn() => do_action( 'rt_nginx_helper_purge_all' ),
			),
			'Breeze'                     => array(
				'present' => static fn() => (bool) has_action( 'breeze_clear_all_cache' ),
				'post'    => static fn( int $id ) => do_action( 'breeze_clear_all_cache' ),
				'all'     => static fn() => do_action( 'breeze_clear_all_cache' ),
			),
		);
		// phpcs:enable
		return $caches;
	}
}
