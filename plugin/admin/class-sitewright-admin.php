<?php
/**
 * Settings → Sitewright: connect with a pairing code, see the connection, revoke it.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The admin screen. Every action checks manage_options and a nonce; every output is escaped.
 */
final class Sitewright_Admin {

	public const PAGE            = 'sitewright';
	private const NOTICE         = 'sitewright_notice_';
	private const CONNECT        = 'sitewright_connect';
	private const REVOKE         = 'sitewright_revoke';
	private const DEFAULT_SCOPES = array( 'site:read', 'content:read', 'content:write', 'media:write' );

	/**
	 * Hooks.
	 */
	public static function register_hooks(): void {
		add_action( 'admin_menu', array( self::class, 'add_page' ) );
		add_action( 'admin_post_' . self::CONNECT, array( self::class, 'handle_connect' ) );
		add_action( 'admin_post_' . self::REVOKE, array( self::class, 'handle_revoke' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( SITEWRIGHT_PLUGIN_FILE ), array( self::class, 'action_links' ) );
	}

	/**
	 * Adds Settings → Sitewright.
	 */
	public static function add_page(): void {
		add_options_page(
			__( 'Sitewright', 'sitewright-connector' ),
			__( 'Sitewright', 'sitewright-connector' ),
			'manage_options',
			self::PAGE,
			array( self::class, 'render' )
		);
	}

	/**
	 * A Settings link on the Plugins screen.
	 *
	 * @param array<int|string, string> $links Links.
	 * @return array<int|string, string>
	 */
	public static function action_links( $links ) {
		$links[] = '<a href="' . esc_url( self::page_url() ) . '">' . esc_html__( 'Settings', 'sitewright-connector' ) . '</a>';
		return $links;
	}

	/**
	 * The screen's URL.
	 */
	public static function page_url(): string {
		return admin_url( 'options-general.php?page=' . self::PAGE );
	}

	/**
	 * Human labels of the scopes.
	 *
	 * @return array<string, string>
	 */
	public static function scope_labels(): array {
		return array(
			'site:read'      => __( 'Read site information and run checks', 'sitewright-connector' ),
			'content:read'   => __( 'Read pages, posts and media (including drafts)', 'sitewright-connector' ),
			'content:write'  => __( 'Create, edit and delete pages and posts', 'sitewright-connector' ),
			'media:write'    => __( 'Upload media', 'sitewright-connector' ),
			'design:write'   => __( 'Change menus, templates and global styles', 'sitewright-connector' ),
			'settings:write' => __( 'Change site settings', 'sitewright-connector' ),
		);
	}

	/**
	 * Handles "Connect".
	 */
	public static function handle_connect(): void {
		self::require_capability();
		check_admin_referer( self::CONNECT );
		$service = isset( $_POST['sitewright_service_url'] ) ? esc_url_raw( wp_unslash( (string) $_POST['sitewright_service_url'] ) ) : '';
		$code    = isset( $_POST['sitewright_code'] ) ? sanitize_text_field( wp_unslash( (string) $_POST['sitewright_code'] ) ) : '';
		$scopes  = isset( $_POST['sitewright_scopes'] ) && is_array( $_POST['sitewright_scopes'] )
			? array_map( 'sanitize_text_field', wp_unslash( $_POST['sitewright_scopes'] ) )
			: array();
		$outcome = Sitewright_Pairing::connect( $service, $code, $scopes );
		if ( ! $outcome['ok'] && '' !== $service ) {
			// Keep what was typed so the administrator only fixes the code.
			update_option( Sitewright_Pairing::SERVICE_OPTION, untrailingslashit( $service ), false );
		}
		self::notice( $outcome['ok'] ? 'success' : 'error', $outcome['message'], $outcome['code'] );
		wp_safe_redirect( self::page_url() );
		exit;
	}

	/**
	 * Handles "Revoke".
	 */
	public static function handle_revoke(): void {
		self::require_capability();
		check_admin_referer( self::REVOKE );
		$count = Sitewright_Credentials::revoke_all();
		self::notice(
			'success',
			$count > 0
				? __( 'Disconnected: Sitewright can no longer make changes to this site.', 'sitewright-connector' )
				: __( 'There was no connection to revoke.', 'sitewright-connector' ),
			'revoked'
		);
		wp_safe_redirect( self::page_url() );
		exit;
	}

	/**
	 * Only administrators who can manage options act on the connection (each handler then checks its nonce).
	 */
	private static function require_capability(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You are not allowed to manage the Sitewright connection.', 'sitewright-connector' ), 403 );
		}
	}

	/**
	 * Stores a one-time notice for the current administrator.
	 *
	 * @param string $type    Either success or error.
	 * @param string $message Text.
	 * @param string $code    Outcome code.
	 */
	private static function notice( string $type, string $message, string $code ): void {
		set_transient(
			self::NOTICE . get_current_user_id(),
			array(
				'type'    => $type,
				'message' => $message,
				'code'    => $code,
			),
			5 * MINUTE_IN_SECONDS
		);
	}

	/**
	 * Renders the screen.
	 */
	public static function render(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'You are not allowed to manage the Sitewright connection.', 'sitewright-connector' ), 403 );
		}
		$notice = get_transient( self::NOTICE . get_current_user_id() );
		delete_transient( self::NOTICE . get_current_user_id() );
		$tokens  = Sitewright_Credentials::all();
		$service = (string) get_option( Sitewright_Pairing::SERVICE_OPTION, '' );
		$format  = get_option( 'date_format' ) . ' ' . get_option( 'time_format' );
		?>
		<div class="wrap" id="sitewright-settings">
			<h1><?php esc_html_e( 'Sitewright', 'sitewright-connector' ); ?></h1>
			<?php if ( is_array( $notice ) ) : ?>
				<div class="notice notice-<?php echo esc_attr( 'success' === $notice['type'] ? 'success' : 'error' ); ?>" data-outcome="<?php echo esc_attr( (string) $notice['code'] ); ?>" role="alert">
					<p><?php echo esc_html( (string) $notice['message'] ); ?></p>
				</div>
			<?php endif; ?>

			<h2><?php esc_html_e( 'Connection', 'sitewright-connector' ); ?></h2>
			<?php if ( ! $tokens ) : ?>
				<p id="sitewright-status" data-status="disconnected"><?php esc_html_e( 'Not connected.', 'sitewright-connector' ); ?></p>
			<?php else : ?>
				<table class="widefat striped" id="sitewright-status" data-status="connected">
					<thead>
						<tr>
							<th><?php esc_html_e( 'Token', 'sitewright-connector' ); ?></th>
							<th><?php esc_html_e( 'Status', 'sitewright-connector' ); ?></th>
							<th><?php esc_html_e( 'Permissions', 'sitewright-connector' ); ?></th>
							<th><?php esc_html_e( 'Created', 'sitewright-connector' ); ?></th>
							<th><?php esc_html_e( 'Last request', 'sitewright-connector' ); ?></th>
						</tr>
					</thead>
					<tbody>
					<?php foreach ( $tokens as $token ) : ?>
						<tr>
							<td><code>swt_…<?php echo esc_html( (string) $token['last_four'] ); ?></code><br><?php echo esc_html( (string) $token['service_url'] ); ?></td>
							<td>
								<?php
								if ( Sitewright_Credentials::STATUS_PENDING === $token['status'] ) {
									esc_html_e( 'Waiting for Sitewright', 'sitewright-connector' );
								} elseif ( null === $token['confirmed_at'] ) {
									esc_html_e( 'Connected, not confirmed yet', 'sitewright-connector' );
								} else {
									esc_html_e( 'Confirmed', 'sitewright-connector' );
								}
								?>
							</td>
							<td><?php echo esc_html( implode( ', ', (array) $token['scopes'] ) ); ?></td>
							<td><?php echo esc_html( wp_date( $format, (int) $token['created_at'] ) ); ?></td>
							<td><?php echo esc_html( null === $token['last_used_at'] ? __( 'Never', 'sitewright-connector' ) : wp_date( $format, (int) $token['last_used_at'] ) ); ?></td>
						</tr>
					<?php endforeach; ?>
					</tbody>
				</table>
				<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
					<input type="hidden" name="action" value="<?php echo esc_attr( self::REVOKE ); ?>">
					<?php wp_nonce_field( self::REVOKE ); ?>
					<?php submit_button( __( 'Revoke', 'sitewright-connector' ), 'delete', 'sitewright-revoke', false ); ?>
				</form>
			<?php endif; ?>

			<h2><?php esc_html_e( 'Connect to Sitewright', 'sitewright-connector' ); ?></h2>
			<p><?php esc_html_e( 'In Sitewright, start pairing with this site\'s address, then enter the code it shows.', 'sitewright-connector' ); ?></p>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" id="sitewright-connect">
				<input type="hidden" name="action" value="<?php echo esc_attr( self::CONNECT ); ?>">
				<?php wp_nonce_field( self::CONNECT ); ?>
				<table class="form-table" role="presentation">
					<tr>
						<th scope="row"><label for="sitewright_service_url"><?php esc_html_e( 'Sitewright address', 'sitewright-connector' ); ?></label></th>
						<td><input type="url" class="regular-text" id="sitewright_service_url" name="sitewright_service_url" value="<?php echo esc_attr( $service ); ?>" placeholder="https://app.sitewright.example" required></td>
					</tr>
					<tr>
						<th scope="row"><label for="sitewright_code"><?php esc_html_e( 'Pairing code', 'sitewright-connector' ); ?></label></th>
						<td><input type="text" class="regular-text code" id="sitewright_code" name="sitewright_code" autocomplete="off" spellcheck="false" maxlength="32" required></td>
					</tr>
					<tr>
						<th scope="row"><?php esc_html_e( 'Permissions', 'sitewright-connector' ); ?></th>
						<td>
							<fieldset>
							<?php foreach ( self::scope_labels() as $scope => $label ) : ?>
								<label>
									<input type="checkbox" name="sitewright_scopes[]" value="<?php echo esc_attr( $scope ); ?>" <?php checked( in_array( $scope, self::DEFAULT_SCOPES, true ) ); ?>>
									<?php echo esc_html( $label ); ?> <code><?php echo esc_html( $scope ); ?></code>
								</label><br>
							<?php endforeach; ?>
							</fieldset>
						</td>
					</tr>
				</table>
				<?php submit_button( __( 'Connect', 'sitewright-connector' ), 'primary', 'sitewright-connect-submit' ); ?>
			</form>
		</div>
		<?php
	}
}
