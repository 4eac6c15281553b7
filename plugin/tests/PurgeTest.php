<?php
/**
 * POST /sitewright/v1/purge: purges the page caches it can name and answers where a visitor sees each item.
 *
 * @package Sitewright
 */

declare(strict_types=1);

if ( ! function_exists( 'rocket_clean_post' ) ) {
	/**
	 * A page cache with WP Rocket's public purge functions (they only record here).
	 *
	 * @param int $id Post id.
	 */
	function rocket_clean_post( $id ) {
		$GLOBALS['sitewright_test_purges'][] = array( 'post', (int) $id );
	}
	/**
	 * WP Rocket's whole-domain purge.
	 */
	function rocket_clean_domain() {
		$GLOBALS['sitewright_test_purges'][] = array( 'all', 0 );
	}
}

/**
 * Purge.
 */
final class PurgeTest extends Sitewright_Test_Case {

	/**
	 * The recorded purges start empty.
	 */
	protected function setUp(): void {
		parent::setUp();
		$GLOBALS['sitewright_test_purges'] = array();
	}

	/**
	 * Signs a purge request with the given scopes and dispatches it.
	 *
	 * @param array<int, string> $scopes Scopes.
	 * @param array<int, string> $refs   Refs.
	 */
	private function purge( array $scopes, array $refs ): WP_REST_Response {
		$creds = Sitewright_Credentials::create( $scopes );
		$body  = (string) wp_json_encode( array( 'refs' => $refs ) );
		$this->assertTrue(
			Sitewright_Auth::verify(
				$this->signed(
					$creds,
					array(
						'method' => 'POST',
						'route'  => '/sitewright/v1/purge',
						'body'   => $body,
					)
				),
				$this->now_ms()
			)
		);
		return $this->dispatch( 'POST', '/sitewright/v1/purge', array( 'refs' => $refs ) );
	}

	public function test_a_published_page_is_purged_in_the_page_cache_and_its_permalink_is_named(): void {
		$page = wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'publish',
				'post_title'  => 'Purged page',
			)
		);
		try {
			$response = $this->purge( array( 'site:read' ), array( "post:$page" ) );
			$this->assertSame( 200, $response->get_status() );
			$data = $response->get_data();
			$this->assertSame( get_permalink( $page ), $data['urls'][0]['url'] );
			$this->assertTrue( $data['urls'][0]['public'] );
			$this->assertContains( 'WP Rocket', $data['purged'] );
			$this->assertSame( array( array( 'post', $page ) ), $GLOBALS['sitewright_test_purges'] );
		} finally {
			wp_delete_post( $page, true );
		}
	}

	public function test_a_draft_is_not_public_and_a_setting_purges_everything_and_points_at_the_home_page(): void {
		$draft = wp_insert_post(
			array(
				'post_type'   => 'page',
				'post_status' => 'draft',
				'post_title'  => 'Draft page',
			)
		);
		try {
			$data = $this->purge( array( 'site:read' ), array( "post:$draft", 'option:blogname' ) )->get_data();
			$this->assertFalse( $data['urls'][0]['public'] );
			$this->assertSame( home_url( '/' ), $data['urls'][1]['url'] );
			$this->assertContains( array( 'all', 0 ), $GLOBALS['sitewright_test_purges'] );
		} finally {
			wp_delete_post( $draft, true );
		}
	}

	public function test_unknown_refs_are_refused_and_nothing_is_purged(): void {
		$response = $this->purge( array( 'site:read' ), array( 'user:1' ) );
		$this->assertSame( 400, $response->get_status() );
		$this->assertSame( array(), $GLOBALS['sitewright_test_purges'] );
	}
}
