<?php
/**
 * The PHP signer agrees byte for byte with test/vectors/signing.json, which the TypeScript client also loads.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Shared test vectors.
 */
final class SignatureVectorsTest extends Sitewright_Test_Case {

	/**
	 * The vector file.
	 *
	 * @return array<string, mixed>
	 */
	private static function file(): array {
		$data = json_decode( (string) file_get_contents( SITEWRIGHT_TEST_VECTORS ), true );
		self::assertIsArray( $data, 'test/vectors/signing.json must be valid JSON' );
		return $data;
	}

	/**
	 * One data set per vector.
	 *
	 * @return array<string, array{0: array<string, mixed>, 1: string}>
	 */
	public function vectors(): array {
		$data = self::file();
		$sets = array();
		foreach ( $data['vectors'] as $vector ) {
			$sets[ $vector['name'] ] = array( $vector, $data['secret'] );
		}
		return $sets;
	}

	/**
	 * @dataProvider vectors
	 *
	 * @param array<string, mixed> $vector A vector.
	 * @param string               $secret The file's secret.
	 */
	public function test_builds_the_same_canonical_route_string_and_signature_as_the_vector( array $vector, string $secret ): void {
		$pairs = array_map(
			static function ( array $pair ): array {
				return array( (string) $pair[0], (string) $pair[1] );
			},
			$vector['query']
		);
		$this->assertSame( $vector['canonicalRoute'], Sitewright_Signature::canonical_route( $vector['route'], $pairs ) );
		$this->assertSame( $vector['bodySha256'], hash( 'sha256', $vector['body'] ) );
		$sts = Sitewright_Signature::string_to_sign( $vector['timestamp'], $vector['method'], $vector['route'], $pairs, $vector['body'] );
		$this->assertSame( $vector['stringToSign'], $sts );
		$this->assertSame( $vector['signature'], Sitewright_Signature::sign( $secret, $sts ) );
		$this->assertTrue( Sitewright_Signature::verify( $secret, $sts, $vector['signature'] ) );
	}

	/**
	 * @dataProvider vectors
	 *
	 * @param array<string, mixed> $vector A vector.
	 * @param string               $secret The file's secret.
	 */
	public function test_reads_the_same_parameters_back_from_the_query_string_a_client_sends( array $vector, string $secret ): void {
		$flat = true;
		foreach ( $vector['query'] as $pair ) {
			$flat = $flat && false === strpbrk( (string) $pair[0], '[]' );
		}
		if ( ! $flat ) {
			$this->assertFalse( Sitewright_Signature::is_flat( Sitewright_Signature::parse_query_string( $this->encode_query( $vector['query'], 'rawurlencode' ) ) ) );
			return;
		}
		// What the plugin sees is the raw query string, encoded either way clients commonly encode it.
		foreach ( array( 'rawurlencode', 'urlencode' ) as $encoder ) {
			$pairs = Sitewright_Signature::parse_query_string( $this->encode_query( $vector['query'], $encoder ) );
			$this->assertSame( $vector['canonicalRoute'], Sitewright_Signature::canonical_route( $vector['route'], $pairs ), $encoder );
		}
	}

	/**
	 * Builds a query string from pairs.
	 *
	 * @param array<int, array{0: string, 1: string}> $pairs   Pairs.
	 * @param callable                                $encoder Either rawurlencode or urlencode.
	 */
	private function encode_query( array $pairs, callable $encoder ): string {
		return implode(
			'&',
			array_map(
				static function ( array $pair ) use ( $encoder ): string {
					return $encoder( (string) $pair[0] ) . '=' . $encoder( (string) $pair[1] );
				},
				$pairs
			)
		);
	}

	public function test_the_vector_file_covers_queries_bodies_and_both_kinds_of_route(): void {
		$data = self::file();
		$this->assertGreaterThanOrEqual( 5, count( $data['vectors'] ) );
		$this->assertNotEmpty( array_filter( $data['vectors'], static fn( array $v ): bool => '' !== $v['body'] ) );
		$this->assertNotEmpty( array_filter( $data['vectors'], static fn( array $v ): bool => array() !== $v['query'] ) );
		$this->assertNotEmpty( array_filter( $data['vectors'], static fn( array $v ): bool => 0 === strpos( $v['route'], '/wp/v2/' ) ) );
	}

	public function test_rejects_malformed_signature_headers_without_errors(): void {
		$sts = "1\nGET\n/\n" . hash( 'sha256', '' );
		$bad = array( null, '', 'v1=', 'v1=zz', 'v2=' . str_repeat( 'a', 64 ), 'v1=' . str_repeat( 'a', 63 ), 'v1=' . str_repeat( 'a', 65 ), array( 'v1=x' ), 42, "v1=\0", 'v1=' . str_repeat( 'é', 32 ) );
		foreach ( $bad as $header ) {
			$this->assertFalse( Sitewright_Signature::verify( 'secret', $sts, $header ) );
		}
	}
}
