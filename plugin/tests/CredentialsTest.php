<?php
/**
 * Token storage: only a hash of the token and a sealed secret reach the database, so its contents alone cannot
 * forge a signed request.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Credentials at rest.
 */
final class CredentialsTest extends Sitewright_Test_Case {

	public function test_tokens_are_prefixed_random_and_stored_only_as_a_hash_with_their_last_four_characters(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertMatchesRegularExpression( '/^swt_[A-Za-z0-9_-]{43}$/', $creds['token'] );
		$this->assertMatchesRegularExpression( '/^sws_[A-Za-z0-9_-]{43}$/', $creds['secret'] );
		$this->assertNotSame( $creds['token'], Sitewright_Credentials::create( array( 'site:read' ) )['token'] );

		$row = Sitewright_Credentials::find_by_token( $creds['token'] );
		$this->assertSame( hash( 'sha256', $creds['token'] ), $row['token_hash'] );
		$this->assertSame( substr( $creds['token'], -4 ), $row['last_four'] );
		$this->assertSame( array( 'site:read' ), $row['scopes'] );
		$this->assertGreaterThan( 0, $row['created_at'] );
	}

	public function test_the_database_file_never_contains_the_token_or_the_secret(): void {
		global $wpdb;
		$creds = Sitewright_Credentials::create( array( 'site:read', 'content:read' ) );
		$wpdb->query( 'SELECT 1' );
		$bytes = (string) file_get_contents( SITEWRIGHT_TEST_DB_FILE );
		foreach ( glob( SITEWRIGHT_TEST_DB_FILE . '-*' ) ?: array() as $journal ) {
			$bytes .= (string) file_get_contents( $journal );
		}
		$this->assertStringContainsString( hash( 'sha256', $creds['token'] ), $bytes, 'the hash is there' );
		$this->assertStringNotContainsString( $creds['token'], $bytes );
		$this->assertStringNotContainsString( $creds['secret'], $bytes );
		$this->assertStringNotContainsString( substr( $creds['secret'], 4 ), $bytes );
	}

	public function test_with_only_the_database_contents_the_secret_cannot_be_recovered_or_used_to_forge(): void {
		global $wpdb;
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		$table = Sitewright_Schema::tokens_table();
		$row   = $wpdb->get_row( $wpdb->prepare( "SELECT token_hash, secret FROM {$table} WHERE id = %d", $creds['id'] ), ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared

		// Everything a database copy holds: every option (including any salts WordPress stored there).
		$options  = $wpdb->get_col( "SELECT option_value FROM {$wpdb->options}" );
		$material = implode( '', $options );
		$raw      = base64_decode( substr( $row['secret'], 3 ), true );
		$nonce    = substr( $raw, 0, SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES );
		$cipher   = substr( $raw, SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES );
		$attempts = array(
			hash_hkdf( 'sha256', $material, 32, 'sitewright-connector secret encryption v1' ),
			hash_hkdf( 'sha256', wp_salt( 'auth' ) . wp_salt( 'secure_auth' ), 32, 'sitewright-connector secret encryption v1' ),
			hash( 'sha256', $row['token_hash'], true ),
		);
		foreach ( $attempts as $key ) {
			$this->assertFalse( sodium_crypto_aead_xchacha20poly1305_ietf_decrypt( $cipher, $row['token_hash'], $nonce, $key ) );
		}

		// A forger who signs with what the database holds (the sealed blob or the hash) is refused.
		foreach ( array( $row['secret'], $row['token_hash'] ) as $guess ) {
			$forged = array(
				'token'  => $creds['token'],
				'secret' => $guess,
			);
			$this->assertRefused( Sitewright_Auth::verify( $this->signed( $forged ), $this->now_ms() ), 'sitewright_bad_signature' );
		}
		// And the real key, from wp-config.php's salts, does open it.
		$this->assertSame( $creds['secret'], Sitewright_Crypto::open( $row['secret'], $row['token_hash'] ) );
	}

	public function test_a_sealed_secret_moved_to_another_token_row_does_not_open(): void {
		$a  = Sitewright_Credentials::create( array( 'site:read' ) );
		$b  = Sitewright_Credentials::create( array( 'site:read' ) );
		$ra = Sitewright_Credentials::find_by_token( $a['token'] );
		$rb = Sitewright_Credentials::find_by_token( $b['token'] );
		$this->assertNull( Sitewright_Crypto::open( $ra['sealed_secret'], $rb['token_hash'] ) );
		$this->assertNull( Sitewright_Crypto::open( 'v1:' . base64_encode( 'short' ), $ra['token_hash'] ) );
		$this->assertNull( Sitewright_Crypto::open( 'garbage', $ra['token_hash'] ) );
	}

	public function test_revoking_removes_the_token_and_revoke_all_can_keep_one(): void {
		$a = Sitewright_Credentials::create( array( 'site:read' ) );
		$b = Sitewright_Credentials::create( array( 'site:read' ) );
		$c = Sitewright_Credentials::create( array( 'site:read' ) );
		$this->assertTrue( Sitewright_Credentials::revoke( $a['id'] ) );
		$this->assertNull( Sitewright_Credentials::find_by_token( $a['token'] ) );
		$this->assertSame( 1, Sitewright_Credentials::revoke_all( $c['id'] ) );
		$this->assertNull( Sitewright_Credentials::find_by_token( $b['token'] ) );
		$this->assertNotNull( Sitewright_Credentials::find_by_token( $c['token'] ) );
		$listed = Sitewright_Credentials::all();
		$this->assertCount( 1, $listed );
		$this->assertArrayNotHasKey( 'sealed_secret', $listed[0] );
		$this->assertArrayNotHasKey( 'token_hash', $listed[0] );
	}

	public function test_a_last_use_update_cannot_bring_back_a_revoked_token(): void {
		$creds = Sitewright_Credentials::create( array( 'site:read' ) );
		Sitewright_Credentials::revoke( $creds['id'] );
		Sitewright_Credentials::touch( $creds['id'] );
		$this->assertNull( Sitewright_Credentials::find_by_token( $creds['token'] ) );
	}
}
