<?php
/**
 * The plugin reads only what the token may (SECURITY.md, v1.2): the items route takes only the post types
 * Sitewright's operations use and refuses any other by name — an order with a customer's address, a privacy
 * request — for reads, writes, deletions and creations alike, whatever the token's scopes.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Post types the items route refuses.
 */
final class ReadsTest extends Sitewright_Test_Case {

	/**
	 * A registered private type with capabilities of its own, like a shop's orders.
	 */
	protected function setUp(): void {
		parent::setUp();
		register_post_type(
			'shop_order',
			array(
				'public'          => false,
				'capability_type' => 'shop_order',
				'map_meta_cap'    => true,
			)
		);
	}

	/**
	 * Unregisters it.
	 */
	protected function tearDown(): void {
		unregister_post_type( 'shop_order' );
		parent::tearDown();
	}

	/**
	 * Signs a request to /items with every scope.
	 *
	 * @param string $method Method.
	 */
	private function sign_in( string $method ): void {
		$creds = Sitewright_Credentials::create( Sitewright_Scopes::ALL );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds, array( 'method' => $method, 'route' => '/sitewright/v1/items' ) ), $this->now_ms() ) );
	}

	public function test_orders_and_privacy_requests_are_refused_by_name_for_reads_writes_deletions_and_creations(): void {
		$order   = (int) wp_insert_post(
			array(
				'post_type'    => 'shop_order',
				'post_status'  => 'publish',
				'post_title'   => 'Order 1001',
				'post_content' => 'ana@example.com, 1 Main Street',
			)
		);
		$request = (int) wp_insert_post(
			array(
				'post_type'   => 'user_request',
				'post_status' => 'request-pending',
				'post_title'  => 'ana@example.com',
			)
		);
		try {
			foreach ( array( $order => 'shop_order', $request => 'user_request' ) as $id => $type ) {
				$this->sign_in( 'GET' );
				$read = $this->dispatch( 'GET', '/sitewright/v1/items', array( 'refs' => "post:$id" ) );
				$this->assertSame( 403, $read->get_status(), $type );
				$this->assertSame( 'sitewright_type_not_allowed', $read->get_data()['code'] );
				$this->assertStringContainsString( $type, $read->get_data()['message'] );
				$this->assertStringNotContainsString( 'ana@example.com', (string) wp_json_encode( $read->get_data() ) );

				foreach ( array( 'update', 'delete', 'trash' ) as $action ) {
					$this->sign_in( 'POST' );
					$write = $this->dispatch(
						'POST',
						'/sitewright/v1/items',
						array(
							'changes' => array(
								array(
									'ref'    => "post:$id",
									'expect' => 'x',
									'action' => $action,
									'fields' => 'update' === $action ? array( 'title' => 'Changed' ) : array(),
								),
							),
						)
					);
					$this->assertSame( 403, $write->get_status(), "$action $type" );
					$this->assertSame( 'sitewright_type_not_allowed', $write->get_data()['code'] );
				}
				$this->assertNotNull( get_post( $id ) );
			}
			$this->sign_in( 'POST' );
			$create = $this->dispatch(
				'POST',
				'/sitewright/v1/items',
				array(
					'changes' => array(
						array(
							'ref'    => 'post:new',
							'expect' => null,
							'action' => 'create',
							'fields' => array(
								'type'  => 'user_request',
								'title' => 'bob@example.com',
							),
						),
					),
				)
			);
			$this->assertSame( 403, $create->get_status() );
			$this->assertSame( 'sitewright_type_not_allowed', $create->get_data()['code'] );
		} finally {
			wp_delete_post( $order, true );
			wp_delete_post( $request, true );
		}
	}
}
