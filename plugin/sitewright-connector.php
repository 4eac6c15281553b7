<?php
/**
 * Plugin Name:       Sitewright Connector
 * Description:       Lets the Sitewright service edit this site through HMAC-signed, scope-limited REST requests.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.1
 * Author:            Sitewright
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       sitewright-connector
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

define( 'SITEWRIGHT_VERSION', '0.1.0' );
define( 'SITEWRIGHT_PLUGIN_FILE', __FILE__ );
define( 'SITEWRIGHT_PLUGIN_DIR', __DIR__ );

require_once __DIR__ . '/includes/class-sitewright-signature.php';
require_once __DIR__ . '/includes/class-sitewright-scopes.php';
require_once __DIR__ . '/includes/class-sitewright-vocabulary.php';
require_once __DIR__ . '/includes/class-sitewright-crypto.php';
require_once __DIR__ . '/includes/class-sitewright-schema.php';
require_once __DIR__ . '/includes/class-sitewright-credentials.php';
require_once __DIR__ . '/includes/class-sitewright-replay-cache.php';
require_once __DIR__ . '/includes/class-sitewright-agent-user.php';
require_once __DIR__ . '/includes/class-sitewright-auth.php';
require_once __DIR__ . '/includes/class-sitewright-site-info.php';
require_once __DIR__ . '/includes/class-sitewright-preflight.php';
require_once __DIR__ . '/includes/class-sitewright-snapshot.php';
require_once __DIR__ . '/includes/class-sitewright-items.php';
require_once __DIR__ . '/includes/items/class-sitewright-places.php';
require_once __DIR__ . '/includes/items/class-sitewright-site-places.php';
require_once __DIR__ . '/includes/items/class-sitewright-attachment-places.php';
require_once __DIR__ . '/includes/items/class-sitewright-term-places.php';
require_once __DIR__ . '/includes/items/class-sitewright-visibility.php';
require_once __DIR__ . '/includes/items/class-sitewright-item-kind.php';
require_once __DIR__ . '/includes/items/class-sitewright-item-kinds.php';
require_once __DIR__ . '/includes/items/class-sitewright-block-theme-item-kind.php';
require_once __DIR__ . '/includes/items/class-sitewright-item-batch.php';
require_once __DIR__ . '/includes/items/class-sitewright-post-terms.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-post.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-option.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-custom-css.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-menu.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-global-styles.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-template.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-term.php';
require_once __DIR__ . '/includes/items/kinds/class-sitewright-item-kind-seo.php';
require_once __DIR__ . '/includes/class-sitewright-media.php';
require_once __DIR__ . '/includes/class-sitewright-exact-write.php';
require_once __DIR__ . '/includes/builders/class-sitewright-elementor-cache.php';
require_once __DIR__ . '/includes/builders/class-sitewright-item-kind-elementor.php';
require_once __DIR__ . '/includes/builders/class-sitewright-item-kind-elementor-kit.php';
require_once __DIR__ . '/includes/class-sitewright-snapshot-import.php';
require_once __DIR__ . '/includes/class-sitewright-custom-css.php';
require_once __DIR__ . '/includes/class-sitewright-cache.php';
require_once __DIR__ . '/includes/class-sitewright-pairing.php';
require_once __DIR__ . '/includes/class-sitewright-ability-reads.php';
require_once __DIR__ . '/includes/class-sitewright-abilities.php';
require_once __DIR__ . '/includes/class-sitewright-plugin.php';
require_once __DIR__ . '/includes/class-sitewright-uninstaller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-info-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-preflight-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-connection-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-snapshot-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-custom-css-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-items-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-purge-controller.php';
require_once __DIR__ . '/includes/rest/class-sitewright-rest-media-controller.php';

if ( is_admin() ) {
	require_once __DIR__ . '/admin/class-sitewright-admin.php';
}

register_activation_hook( __FILE__, array( 'Sitewright_Plugin', 'activate' ) );
register_deactivation_hook( __FILE__, array( 'Sitewright_Plugin', 'deactivate' ) );

Sitewright_Plugin::boot();
