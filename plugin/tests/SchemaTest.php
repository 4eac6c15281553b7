<?php
/**
 * Every plugin route declares the schema of what it answers, and /info and /preflight answer nothing they do not
 * declare (the app parses both with zod: lib/sites/plugin-schemas.ts).
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Route schemas.
 */
final class SchemaTest extends Sitewright_Test_Case {

	public function test_every_plugin_route_declares_its_schema(): void {
		$server = rest_get_server();
		foreach ( array_keys( $server->get_routes( 'sitewright/v1' ) ) as $route ) {
			if ( '/sitewright/v1' === $route ) {
				continue;
			}
			$options = $server->get_route_options( $route );
			$this->assertIsCallable( $options['schema'] ?? null, $route );
			$schema = call_user_func( $options['schema'] );
			$this->assertSame( 'object', $schema['type'], $route );
			$this->assertNotEmpty( $schema['properties'], $route );
		}
	}

	public function test_info_declares_every_field_it_returns_features_and_the_block_theme_included(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/info' );
		$this->assertSame( 200, $response->get_status() );
		$data   = json_decode( (string) wp_json_encode( $response->get_data() ), true );
		$schema = ( new Sitewright_REST_Info_Controller() )->get_item_schema();

		$this->assertSame( array(), $this->undeclared( $data, $schema ) );
		$this->assertTrue( rest_validate_value_from_schema( $data, $schema, 'info' ) );
		$this->assertArrayHasKey( 'features', $schema['properties'] );
		$this->assertSame( wp_is_block_theme(), $data['theme']['isBlockTheme'] );
		$this->assertSame( get_stylesheet(), $data['theme']['stylesheet'] );
		$this->assertIsString( $data['theme']['name'] );
	}

	public function test_preflight_declares_every_field_it_returns(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Auth::verify( $this->signed( $creds ), $this->now_ms() ) );
		$response = $this->dispatch( 'GET', '/sitewright/v1/preflight' );
		$this->assertSame( 200, $response->get_status() );
		$data   = json_decode( (string) wp_json_encode( $response->get_data() ), true );
		$schema = ( new Sitewright_REST_Preflight_Controller() )->get_item_schema();
		$this->assertSame( array(), $this->undeclared( $data, $schema ) );
		$this->assertTrue( rest_validate_value_from_schema( $data, $schema, 'preflight' ) );
	}

	/**
	 * Paths of fields in $data that $schema does not declare (objects with properties, and arrays of them).
	 *
	 * @param mixed                $data   A decoded answer.
	 * @param array<string, mixed> $schema JSON schema.
	 * @param string               $path   Where we are.
	 * @return array<int, string>
	 */
	private function undeclared( $data, array $schema, string $path = '' ): array {
		$missing = array();
		if ( isset( $schema['properties'] ) && is_array( $data ) ) {
			foreach ( $data as $key => $value ) {
				if ( ! isset( $schema['properties'][ $key ] ) ) {
					$missing[] = $path . '/' . $key;
					continue;
				}
				$missing = array_merge( $missing, $this->undeclared( $value, $schema['properties'][ $key ], $path . '/' . $key ) );
			}
		} elseif ( isset( $schema['items'] ) && is_array( $data ) ) {
			foreach ( $data as $index => $value ) {
				$missing = array_merge( $missing, $this->undeclared( $value, $schema['items'], $path . '/' . $index ) );
			}
		}
		return $missing;
	}
}
