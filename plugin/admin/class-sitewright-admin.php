<?php
/**
 * Settings → Sitewright: connect with a pairing code, see the connection, change its permissions, revoke it.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * The admin screen. Every action checks manage_options and a nonce; every output is escaped.
 */
final class Sitewright_Admin {

	public const PAGE        = 'sitewright';
	private const NOTICE     = 'sitewright_notice_';
	private const CONNECT    = 'sitewright_connect';
	private const REVOKE     = 'sitewright_revoke';
	public const SAVE_SCOPES = 'sitewright_save_scopes';
	/** Form action: whether the proposing abilities are public to AI tools (docs/abilities.md). */
	public const SAVE_ABILITIES = 'sitewright_save_abilities';
	/**
	 * Everything is ticked: the owner's click in Sitewright is what guards every change visitors would see, so a
	 * narrower default only makes ordinary requests (a colour, the site title) fail.
	 */
	public const DEFAULT_SCOPES = Sitewright_Scopes::ALL;
	/** Without it the service cannot read /info or run checks: the connection would be dead, so it is always kept. */
	public const REQUIRED_SCOPE = 'site:read';

	/**
	 * Hooks.
	 */
	public static function register_hooks(): void {
		add_action( 'admin_menu', array( self::class, 'add_page' ) );
		add_action( 'admin_post_' . self::CONNECT, array( self::class, 'handle_connect' ) );
		add_action( 'admin_post_' . self::REVOKE, array( self::class, 'handle_revoke' ) );
		add_action( 'admin_post_' . self::SAVE_SCOPES, array( self::class, 'handle_save_scopes' ) );
		add_action( 'admin_post_' . self::SAVE_ABILITIES, array( self::class, 'handle_save_abilities' ) );
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
	 * Each scope in plain words: the checkbox's label. The same words as the app's (plugin/vocabulary.json).
	 *
	 * @return array<string, string>
	 */
	public static function scope_labels(): array {
		return array(
			'site:read'      => __( 'See the site\'s details', 'sitewright-connector' ),
			'content:read'   => __( 'Read pages and posts', 'sitewright-connector' ),
			'content:write'  => __( 'Edit pages and posts', 'sitewright-connector' ),
			'media:write'    => __( 'Upload media', 'sitewright-connector' ),
			'design:write'   => __( 'Change the design', 'sitewright-connector' ),
			'settings:write' => __( 'Change site settings', 'sitewright-connector' ),
		);
	}

	/**
	 * What the assistant may then do, and that visible changes still wait for the owner's approval.
	 *
	 * @return array<string, string>
	 */
	public static function scope_explanations(): array {
		return array(
			'site:read'      => __( 'Read the site\'s name, theme and settings and check the connection. Always on: Sitewright needs it to stay connected.', 'sitewright-connector' ),
			'content:read'   => __( 'Read pages, posts, menus, styles and media (drafts included), to find what you ask about.', 'sitewright-connector' ),
			'content:write'  => __( 'Create drafts and change pages and posts. Anything visitors would see (publishing, editing a published page, trashing) still waits for your approval in Sitewright.', 'sitewright-connector' ),
			'media:write'    => __( 'Add images and files to the media library.', 'sitewright-connector' ),
			'design:write'   => __( 'Change colours, fonts, menus, the header and footer, and custom CSS. Each change still waits for your approval in Sitewright before visitors see it.', 'sitewright-connector' ),
			'settings:write' => __( 'Change the site title, tagline and other settings. Each change still waits for your approval in Sitewright.', 'sitewright-connector' ),
		);
	}

	/**
	 * The ticked scopes of a submitted form, with the one the connection cannot live without.
	 *
	 * @return array<int, string>
	 */
	private static function posted_scopes(): array {
		// phpcs:ignore WordPress.Security.NonceVerification.Missing -- each handler checks its nonce before calling this.
		$posted = isset( $_POST['sitewright_scopes'] ) && is_array( $_POST['sitewright_scopes'] ) ? wp_unslash( $_POST['sitewright_scopes'] ) : array();
		$scopes = array_map( 'sanitize_text_field', array_map( 'strval', (array) $posted ) );
		return Sitewright_Scopes::sanitize( array_merge( array( self::REQUIRED_SCOPE ), $scopes ) );
	}

	/**
	 * Changes a connection's permissions in place: the same token, so Sitewright needs no new pairing; it reads the
	 * new list from /info on its next request.
	 *
	 * @param int                $token_id Token id.
	 * @param array<int, string> $scopes   Ticked scopes.
	 * @return array{ok: bool, message: string, code: string}
	 */
	public static function save_scopes( int $token_id, array $scopes ): array {
		$saved = Sitewright_Credentials::set_scopes( $token_id, $scopes );
		if ( null === $saved ) {
			return array(
				'ok'      => false,
				'message' => __( 'That connection no longer exists. Reload this page.', 'sitewright-connector' ),
				'code'    => 'no_such_token',
			);
		}
		$labels = array_intersect_key( self::scope_labels(), array_flip( $saved ) );
		return array(
			'ok'      => true,
			/* translators: %s: the permissions now granted, in words */
			'message' => sprintf( __( 'Permissions saved. Sitewright may now: %s. No new pairing is needed.', 'sitewright-connector' ), implode( '; ', $labels ) ),
			'code'    => 'scopes_saved',
		);
	}

	/**
	 * Handles "Save permissions".
	 */
	public static function handle_save_scopes(): void {
		self::require_capability();
		check_admin_referer( self::SAVE_SCOPES );
		$token_id = isset( $_POST['sitewright_token_id'] ) ? absint( wp_unslash( $_POST['sitewright_token_id'] ) ) : 0;
		$outcome  = self::save_scopes( $token_id, self::posted_scopes() );
		self::notice( $outcome['ok'] ? 'success' : 'error', $outcome['message'], $outcome['code'] );
		wp_safe_redirect( self::page_url() );
		exit;
	}

	/**
	 * Handles "Save" of the abilities section.
	 */
	public static function handle_save_abilities(): void {
		self::require_capability();
		check_admin_referer( self::SAVE_ABILITIES );
		$expose = isset( $_POST['sitewright_expose_proposing'] ) && '1' === sanitize_text_field( wp_unslash( (string) $_POST['sitewright_expose_proposing'] ) );
		update_option( Sitewright_Abilities::EXPOSE_OPTION, $expose, false );
		self::notice(
			'success',
			$expose
				? __( 'AI tools on this site can now propose changes through Sitewright; each still waits for your approval.', 'sitewright-connector' )
				: __( 'Only reading is offered to AI tools on this site.', 'sitewright-connector' ),
			'abilities_saved'
		);
		wp_safe_redirect( self::page_url() );
		exit;
	}

	/**
	 * Handles "Connect".
	 */
	public static function handle_connect(): void {
		self::require_capability();
		check_admin_referer( self::CONNECT );
		$service = isset( $_POST['sitewright_service_url'] ) ? esc_url_raw( wp_unslash( (string) $_POST['sitewright_service_url'] ) ) : '';
		$code    = isset( $_POST['sitewright_code'] ) ? sanitize_text_field( wp_unslash( (string) $_POST['sitewright_code'] ) ) : '';
		$outcome = Sitewright_Pairing::connect( $service, $code, self::posted_scopes() );
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
		$tokens = Sitewright_Credentials::all();
		?>
		<div class="wrap" id="sitewright-settings">
			<h1><?php esc_html_e( 'Sitewright', 'sitewright-connector' ); ?></h1>
			<?php if ( is_array( $notice ) ) : ?>
				<div class="notice notice-<?php echo esc_attr( 'success' === $notice['type'] ? 'success' : 'error' ); ?>" data-outcome="<?php echo esc_attr( (string) $notice['code'] ); ?>" role="alert">
					<p><?php echo esc_html( (string) $notice['message'] ); ?></p>
				</div>
			<?php endif; ?>

			<h2><?php esc_html_e( 'Connection', 'sitewright-connector' ); ?></h2>
			<?php
			if ( ! $tokens ) {
				echo '<p id="sitewright-status" data-status="disconnected">' . esc_html__( 'Not connected.', 'sitewright-connector' ) . '</p>';
			} else {
				self::render_connections( $tokens );
				foreach ( $tokens as $token ) {
					self::render_permissions_form( $token );
				}
				self::render_revoke_form();
				self::render_abilities_form();
			}
			self::render_connect_form();
			?>
		</div>
		<?php
	}

	/**
	 * WordPress 6.9+ while paired: whether AI tools (WordPress's own, MCP through the MCP Adapter) may use the
	 * proposing abilities, not only the reading ones.
	 */
	private static function render_abilities_form(): void {
		if ( ! function_exists( 'wp_register_ability' ) || null === Sitewright_Credentials::paired() ) {
			return;
		}
		$expose = (bool) get_option( Sitewright_Abilities::EXPOSE_OPTION, false );
		?>
		<h2><?php esc_html_e( 'WordPress abilities', 'sitewright-connector' ); ?></h2>
		<p><?php esc_html_e( 'AI tools that use WordPress abilities can read this site through Sitewright. Changes they propose are sent to Sitewright and wait for your approval there, like every other change.', 'sitewright-connector' ); ?></p>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" id="sitewright-abilities">
			<input type="hidden" name="action" value="<?php echo esc_attr( self::SAVE_ABILITIES ); ?>" />
			<?php wp_nonce_field( self::SAVE_ABILITIES ); ?>
			<label>
				<input type="checkbox" name="sitewright_expose_proposing" value="1" <?php checked( $expose ); ?> />
				<?php esc_html_e( 'Also let AI tools propose changes (MCP and other clients)', 'sitewright-connector' ); ?>
			</label>
			<?php submit_button( __( 'Save', 'sitewright-connector' ), 'secondary', 'submit', false ); ?>
		</form>
		<?php
	}

	/**
	 * The connections table.
	 *
	 * @param array<int, array<string, mixed>> $tokens Tokens, without secrets.
	 */
	private static function render_connections( array $tokens ): void {
		$format = get_option( 'date_format' ) . ' ' . get_option( 'time_format' );
		?>
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
					<td data-scopes="<?php echo esc_attr( implode( ' ', (array) $token['scopes'] ) ); ?>"><?php echo esc_html( implode( '; ', array_intersect_key( self::scope_labels(), array_flip( (array) $token['scopes'] ) ) ) ); ?></td>
					<td><?php echo esc_html( wp_date( $format, (int) $token['created_at'] ) ); ?></td>
					<td><?php echo esc_html( null === $token['last_used_at'] ? __( 'Never', 'sitewright-connector' ) : wp_date( $format, (int) $token['last_used_at'] ) ); ?></td>
				</tr>
			<?php endforeach; ?>
			</tbody>
		</table>
		<?php
	}

	/**
	 * One connection's permissions, to widen or narrow without pairing again.
	 *
	 * @param array<string, mixed> $token Token, without secrets.
	 */
	private static function render_permissions_form( array $token ): void {
		$id = (int) $token['id'];
		?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="sitewright-permissions" id="sitewright-permissions-<?php echo esc_attr( (string) $id ); ?>">
			<input type="hidden" name="action" value="<?php echo esc_attr( self::SAVE_SCOPES ); ?>">
			<input type="hidden" name="sitewright_token_id" value="<?php echo esc_attr( (string) $id ); ?>">
			<?php wp_nonce_field( self::SAVE_SCOPES ); ?>
			<h3><?php esc_html_e( 'What Sitewright may do', 'sitewright-connector' ); ?></h3>
			<p><?php esc_html_e( 'Tick or untick, then save: Sitewright picks the change up on its next request, without a new pairing.', 'sitewright-connector' ); ?></p>
			<?php self::render_scope_checkboxes( (array) $token['scopes'], 'sitewright-scope-' . $id . '-' ); ?>
			<?php submit_button( __( 'Save permissions', 'sitewright-connector' ), 'secondary', 'sitewright-save-scopes', false ); ?>
		</form>
		<?php
	}

	/**
	 * The Revoke button.
	 */
	private static function render_revoke_form(): void {
		?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
			<input type="hidden" name="action" value="<?php echo esc_attr( self::REVOKE ); ?>">
			<?php wp_nonce_field( self::REVOKE ); ?>
			<p><?php submit_button( __( 'Revoke', 'sitewright-connector' ), 'delete', 'sitewright-revoke', false ); ?></p>
		</form>
		<?php
	}

	/**
	 * One checkbox per scope, each with what it lets the assistant do. The required scope shows as always on.
	 *
	 * @param array<int, string> $ticked Scopes to tick.
	 * @param string             $prefix Id prefix, unique on the page.
	 */
	private static function render_scope_checkboxes( array $ticked, string $prefix ): void {
		$explanations = self::scope_explanations();
		?>
		<fieldset>
			<legend class="screen-reader-text"><?php esc_html_e( 'Permissions', 'sitewright-connector' ); ?></legend>
			<?php
			foreach ( self::scope_labels() as $scope => $label ) :
				$id       = $prefix . str_replace( ':', '-', $scope );
				$required = self::REQUIRED_SCOPE === $scope;
				?>
				<p>
					<label for="<?php echo esc_attr( $id ); ?>">
						<input type="checkbox" id="<?php echo esc_attr( $id ); ?>" name="sitewright_scopes[]" value="<?php echo esc_attr( $scope ); ?>" aria-describedby="<?php echo esc_attr( $id . '-explains' ); ?>" <?php checked( $required || in_array( $scope, $ticked, true ) ); ?> <?php disabled( $required ); ?>>
						<?php echo esc_html( $label ); ?>
					</label>
					<br><span class="description" id="<?php echo esc_attr( $id . '-explains' ); ?>"><?php echo esc_html( $explanations[ $scope ] ); ?></span>
				</p>
			<?php endforeach; ?>
		</fieldset>
		<?php
	}

	/**
	 * The Connect form: address, code, and the permissions (all ticked by default).
	 */
	private static function render_connect_form(): void {
		$service = (string) get_option( Sitewright_Pairing::SERVICE_OPTION, '' );
		?>
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
						<p><?php esc_html_e( 'What the assistant may do on this site. You can change this later on this screen without pairing again.', 'sitewright-connector' ); ?></p>
						<?php self::render_scope_checkboxes( self::DEFAULT_SCOPES, 'sitewright-scope-new-' ); ?>
					</td>
				</tr>
			</table>
			<?php submit_button( __( 'Connect', 'sitewright-connector' ), 'primary', 'sitewright-connect-submit' ); ?>
		</form>
		<?php
	}
}
