/**
 * The sandbox image's wp-config.php, written from the shared template (lib/wordpress/wp-config.template.php) when
 * the image is staged. Nothing secret lives in it: the salts are generated per container at start
 * (/data/salts.php) and the database is a per-container copy in /data.
 */
import { renderWpConfig } from "@/lib/wordpress/wp-config";

export function sandboxWpConfig(): string {
  return renderWpConfig({
    purpose: "Sitewright sandbox configuration, baked into the sandbox image.",
    dbDir: { php: "getenv( 'SITEWRIGHT_DB_DIR' ) ?: '/data/database/'" },
    dbFile: ".ht.sqlite",
    salts: {
      php: `$sitewright_salts = getenv( 'SITEWRIGHT_SALTS_FILE' ) ?: '/data/salts.php';
if ( ! is_readable( $sitewright_salts ) ) {
	http_response_code( 503 );
	exit( 'This sandbox is still starting.' );
}
require $sitewright_salts;`,
    },
    // The sandbox is reached two ways. The service's preview proxy (lib/sandbox/preview.ts) sends
    // `X-Sitewright-Preview: <APP_URL>/preview/<sandbox id>`: WordPress then believes it is served at exactly that
    // address (host, scheme, path prefix), so every link, redirect and cookie path it makes stays inside the preview
    // and no sandbox address reaches a browser. Only the service can send that header: nothing else reaches the
    // sandbox (Docker publishes its port on 127.0.0.1 alone; on Kubernetes a default-deny NetworkPolicy admits only
    // the service's pods). Otherwise (the service's own signed client, at the endpoint the driver answered) the site
    // URL follows the request's Host, but only a loopback or private address literal with a port: 127.0.0.0/8,
    // localhost, [::1], 10/8, 172.16/12, 192.168/16, [fc00::/7] (a pod is reached at its pod IP, 10.244.7.5:8080).
    // Anything else falls back to a fixed URL, so a forged Host cannot point links at a name; and a forged private
    // literal can only come from who reaches the sandbox at all, which is the service alone.
    code: `$sitewright_preview = isset( $_SERVER['HTTP_X_SITEWRIGHT_PREVIEW'] ) ? (string) $_SERVER['HTTP_X_SITEWRIGHT_PREVIEW'] : '';
if ( preg_match( '#^(https?)://([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:]+\\])(:[0-9]{1,5})?((?:/[A-Za-z0-9._~-]+)*/preview/[0-9a-f-]{36})$#', $sitewright_preview, $sitewright_parts ) ) {
	$sitewright_url = $sitewright_preview;
	$_SERVER['HTTP_HOST'] = $sitewright_parts[2] . $sitewright_parts[3];
	$_SERVER['SERVER_NAME'] = $sitewright_parts[2];
	$_SERVER['SERVER_PORT'] = $sitewright_parts[3] !== '' ? substr( $sitewright_parts[3], 1 ) : ( $sitewright_parts[1] === 'https' ? '443' : '80' );
	if ( $sitewright_parts[1] === 'https' ) {
		$_SERVER['HTTPS'] = 'on';
	}
	$_SERVER['REQUEST_URI'] = $sitewright_parts[4] . ( isset( $_SERVER['REQUEST_URI'] ) ? (string) $_SERVER['REQUEST_URI'] : '/' );
	define( 'SITEWRIGHT_SANDBOX_PREVIEW', true );
} else {
	$sitewright_host = isset( $_SERVER['HTTP_HOST'] ) ? strtolower( (string) $_SERVER['HTTP_HOST'] ) : '';
	$sitewright_name = preg_match( '/^(localhost|[0-9.]+|\\[[0-9a-f:]+\\])(?::[0-9]{1,5})?$/', $sitewright_host, $sitewright_match ) ? $sitewright_match[1] : '';
	$sitewright_ip = trim( $sitewright_name, '[]' );
	$sitewright_private = 'localhost' === $sitewright_name || (
		false !== filter_var( $sitewright_ip, FILTER_VALIDATE_IP )
		&& preg_match( '/^(127\\.|10\\.|192\\.168\\.|172\\.(1[6-9]|2[0-9]|3[01])\\.|::1$|f[cd][0-9a-f]{2}:)/', $sitewright_ip )
	);
	if ( ! $sitewright_private ) {
		$sitewright_host = '127.0.0.1';
	}
	$sitewright_url = getenv( 'SITEWRIGHT_SANDBOX_URL' ) ?: 'http://' . $sitewright_host;
}`,
    constants: {
      WP_HOME: { php: "$sitewright_url" },
      WP_SITEURL: { php: "$sitewright_url" },
      // The plugin accepts snapshot imports only on a site that says it is a sandbox.
      SITEWRIGHT_SANDBOX: true,
      WP_ENVIRONMENT_TYPE: "development",
      WP_DEBUG: false,
      DISALLOW_FILE_MODS: true,
      DISALLOW_FILE_EDIT: true,
      AUTOMATIC_UPDATER_DISABLED: true,
      WP_AUTO_UPDATE_CORE: false,
      DISABLE_WP_CRON: true,
      // A sandbox never calls out: no update checks, no pingbacks, no oEmbed fetches.
      WP_HTTP_BLOCK_EXTERNAL: true,
    },
  });
}
