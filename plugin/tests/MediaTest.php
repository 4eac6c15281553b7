<?php
/**
 * POST /sitewright/v1/media: an attachment from base64 bytes, checked again by WordPress; and undoing an upload
 * (an items delete) keeps the attachment while something on the site uses it.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Media uploads.
 */
final class MediaTest extends Sitewright_Test_Case {

	/**
	 * Verifies a signed request to $route with a token holding $scopes.
	 *
	 * @param array<int, string> $scopes Token scopes.
	 * @param string             $route  Route.
	 */
	private function sign_in( array $scopes, string $route = '/sitewright/v1/media' ): void {
		$creds = Sitewright_Credentials::create( $scopes );
		$this->assertTrue(
			Sitewright_Auth::verify(
				$this->signed(
					$creds,
					array(
						'method' => 'POST',
						'route'  => $route,
					)
				),
				$this->now_ms()
			)
		);
	}

	/**
	 * A small PNG made with GD.
	 */
	private function png(): string {
		$image = imagecreatetruecolor( 12, 8 );
		imagefill( $image, 0, 0, (int) imagecolorallocate( $image, 200, 80, 40 ) );
		ob_start();
		imagepng( $image );
		return (string) ob_get_clean();
	}

	/**
	 * Uploads through the route.
	 *
	 * @param string $bytes    File.
	 * @param string $filename Name.
	 */
	private function upload( string $bytes, string $filename ): WP_REST_Response {
		return $this->dispatch(
			'POST',
			'/sitewright/v1/media',
			array(
				'filename' => $filename,
				'data'     => base64_encode( $bytes ), // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_encode
				'title'    => 'Shop front',
				'alt'      => 'The shop front in the morning',
			)
		);
	}

	public function test_an_image_becomes_an_unattached_attachment_with_its_alt_text_and_version(): void {
		$this->sign_in( array( 'site:read', 'media:write' ) );
		$response = $this->upload( $this->png(), 'front.png' );
		$this->assertSame( 201, $response->get_status() );
		$data = $response->get_data();
		$id   = (int) $data['media']['id'];
		try {
			$this->assertSame( 'post:' . $id, $data['ref'] );
			$this->assertSame( 'attachment', get_post_type( $id ) );
			$this->assertSame( 'image/png', get_post_mime_type( $id ) );
			$this->assertSame( 'inherit', $data['after']['status'] );
			$this->assertSame( 0, $data['after']['parent'] );
			$this->assertSame( 'The shop front in the morning', get_post_meta( $id, '_wp_attachment_image_alt', true ) );
			$this->assertSame( array( 12, 8 ), array( $data['media']['width'], $data['media']['height'] ) );
			$this->assertSame( Sitewright_Items::read( 'post:' . $id )['version'], $data['version'] );
			$this->assertFileExists( (string) get_attached_file( $id ) );
		} finally {
			wp_delete_attachment( $id, true );
		}
	}

	public function test_a_pdf_becomes_an_attachment_too(): void {
		$this->sign_in( array( 'site:read', 'media:write' ) );
		$pdf      = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/MediaBox[0 0 3 3]/Parent 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
		$response = $this->upload( $pdf, 'menu.pdf' );
		$this->assertSame( 201, $response->get_status() );
		$id = (int) $response->get_data()['media']['id'];
		try {
			$this->assertSame( 'application/pdf', get_post_mime_type( $id ) );
		} finally {
			wp_delete_attachment( $id, true );
		}
	}

	public function test_text_named_like_an_image_is_refused_and_nothing_is_made(): void {
		$this->sign_in( array( 'site:read', 'media:write' ) );
		$before   = (int) wp_count_posts( 'attachment' )->inherit;
		$response = $this->upload( 'this is not a picture', 'front.png' );
		$this->assertSame( 415, $response->get_status() );
		$this->assertSame( $before, (int) wp_count_posts( 'attachment' )->inherit );
	}

	public function test_a_token_without_media_write_is_refused(): void {
		$this->sign_in( array( 'site:read', 'content:write' ) );
		$this->assertSame( 403, $this->upload( $this->png(), 'front.png' )->get_status() );
	}

	public function test_undoing_an_upload_keeps_it_while_a_page_shows_it_and_deletes_it_once_nothing_does(): void {
		$this->sign_in( array( 'site:read', 'media:write' ) );
		$id = (int) $this->upload( $this->png(), 'front.png' )->get_data()['media']['id'];
		Sitewright_Auth::reset();
		$page = (int) wp_insert_post(
			array(
				'post_type'    => 'page',
				'post_status'  => 'publish',
				'post_title'   => 'Uses the picture',
				'post_content' => '<!-- wp:image {"id":' . $id . '} --><figure class="wp-block-image"><img src="x" class="wp-image-' . $id . '"/></figure><!-- /wp:image -->',
			)
		);
		try {
			$this->assertTrue( Sitewright_Media::in_use( $id ) );
			$version = Sitewright_Items::read( 'post:' . $id )['version'];
			$result  = Sitewright_Items::apply_batch(
				array(
					array(
						'ref'    => 'post:' . $id,
						'expect' => $version,
						'action' => 'delete',
					),
				)
			);
			$this->assertIsArray( $result );
			$this->assertSame( 'attachment', get_post_type( $id ), 'kept while the page shows it' );

			wp_delete_post( $page, true );
			$this->assertFalse( Sitewright_Media::in_use( $id ) );
			$result = Sitewright_Items::apply_batch(
				array(
					array(
						'ref'    => 'post:' . $id,
						'expect' => $version,
						'action' => 'delete',
					),
				)
			);
			$this->assertIsArray( $result );
			$this->assertNull( get_post( $id ) );
		} finally {
			wp_delete_post( $page, true );
			wp_delete_attachment( $id, true );
		}
	}

	public function test_a_featured_image_counts_as_a_use(): void {
		$this->sign_in( array( 'site:read', 'media:write' ) );
		$id   = (int) $this->upload( $this->png(), 'front.png' )->get_data()['media']['id'];
		$post = (int) wp_insert_post(
			array(
				'post_type'   => 'post',
				'post_status' => 'draft',
				'post_title'  => 'Featured',
			)
		);
		try {
			$this->assertFalse( Sitewright_Media::in_use( $id ) );
			set_post_thumbnail( $post, $id );
			$this->assertTrue( Sitewright_Media::in_use( $id ) );
		} finally {
			wp_delete_post( $post, true );
			wp_delete_attachment( $id, true );
		}
	}
}
