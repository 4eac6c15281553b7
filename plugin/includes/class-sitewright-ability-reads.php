<?php
/**
 * The read abilities, answered inside WordPress as the calling user (docs/abilities.md): the site's facts, pages
 * and posts listed, one page or post read. Core's REST routes do the reading, so core's own permission checks
 * apply to the caller as they would to the block editor.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * Reads for abilities.
 */
final class Sitewright_Ability_Reads {

	/**
	 * Runs one read.
	 *
	 * @param string               $operation Operation name (a read of abilities.json).
	 * @param array<string, mixed> $input     Input, validated by WordPress against the operation's schema.
	 * @return array{summary: string, data: mixed}|WP_Error
	 */
	public static function run( string $operation, array $input ) {
		switch ( $operation ) {
			case 'get_site_info':
				return array(
					'summary' => __( 'Read the site\'s details.', 'sitewright-connector' ),
					'data'    => Sitewright_Site_Info::collect(),
				);
			case 'list_pages':
				return self::listing( 'pages', $input );
			case 'list_posts':
				return self::listing( 'posts', $input );
			case 'read_page':
				return self::read_one( 'post' === ( $input['type'] ?? 'page' ) ? 'posts' : 'pages', (int) ( $input['id'] ?? 0 ) );
		}
		return new WP_Error( 'sitewright_unknown_operation', __( 'This ability has no reader here.', 'sitewright-connector' ), array( 'status' => 404 ) );
	}

	/**
	 * Pages or posts, one page of the list, compact.
	 *
	 * @param string               $base  REST base (pages or posts).
	 * @param array<string, mixed> $input Search, status, page, perPage.
	 * @return array{summary: string, data: mixed}|WP_Error
	 */
	private static function listing( string $base, array $input ) {
		$status = (string) ( $input['status'] ?? 'any' );
		$params = array(
			'context'  => 'edit',
			'page'     => (int) ( $input['page'] ?? 1 ),
			'per_page' => (int) ( $input['perPage'] ?? 20 ),
			'status'   => 'any' === $status ? array( 'publish', 'draft', 'pending', 'private', 'future' ) : array( $status ),
		);
		if ( isset( $input['search'] ) && '' !== $input['search'] ) {
			$params['search'] = (string) $input['search'];
		}
		$response = self::get( '/wp/v2/' . $base, $params );
		if ( is_wp_error( $response ) ) {
			return $response;
		}
		$items = array();
		foreach ( (array) $response->get_data() as $post ) {
			$items[] = array(
				'id'       => (int) $post['id'],
				'title'    => (string) ( $post['title']['raw'] ?? '' ),
				'status'   => (string) $post['status'],
				'link'     => (string) $post['link'],
				'modified' => (string) $post['modified_gmt'],
			);
		}
		$headers = $response->get_headers();
		return array(
			/* translators: 1: how many, 2: pages or posts */
			'summary' => sprintf( __( 'Listed %1$d %2$s.', 'sitewright-connector' ), count( $items ), $base ),
			'data'    => array(
				'items' => $items,
				'total' => (int) ( $headers['X-WP-Total'] ?? count( $items ) ),
				'pages' => (int) ( $headers['X-WP-TotalPages'] ?? 1 ),
			),
		);
	}

	/**
	 * One page or post as the editor stores it.
	 *
	 * @param string $base REST base.
	 * @param int    $id   Post id.
	 * @return array{summary: string, data: mixed}|WP_Error
	 */
	private static function read_one( string $base, int $id ) {
		$response = self::get( '/wp/v2/' . $base . '/' . $id, array( 'context' => 'edit' ) );
		if ( is_wp_error( $response ) ) {
			return $response;
		}
		$post = (array) $response->get_data();
		return array(
			/* translators: %d: post id */
			'summary' => sprintf( __( 'Read %d.', 'sitewright-connector' ), $id ),
			'data'    => array(
				'id'       => (int) $post['id'],
				'type'     => (string) $post['type'],
				'title'    => (string) ( $post['title']['raw'] ?? '' ),
				'status'   => (string) $post['status'],
				'slug'     => (string) $post['slug'],
				'link'     => (string) $post['link'],
				'content'  => (string) ( $post['content']['raw'] ?? '' ),
				'excerpt'  => (string) ( $post['excerpt']['raw'] ?? '' ),
				'modified' => (string) $post['modified_gmt'],
			),
		);
	}

	/**
	 * A GET on a core route, as the current user.
	 *
	 * @param string               $route  Route.
	 * @param array<string, mixed> $params Query.
	 * @return WP_REST_Response|WP_Error
	 */
	private static function get( string $route, array $params ) {
		$request = new WP_REST_Request( 'GET', $route );
		$request->set_query_params( $params );
		$response = rest_do_request( $request );
		if ( $response->is_error() ) {
			return $response->as_error();
		}
		return $response;
	}
}
