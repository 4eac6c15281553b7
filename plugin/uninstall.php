<?php
/**
 * Runs when the plugin is deleted: removes everything it stored, on every site of a multisite network
 * (Sitewright_Uninstaller).
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

require_once __DIR__ . '/includes/class-sitewright-scopes.php';
require_once __DIR__ . '/includes/class-sitewright-schema.php';
require_once __DIR__ . '/includes/class-sitewright-agent-user.php';
require_once __DIR__ . '/includes/class-sitewright-plugin.php';
require_once __DIR__ . '/includes/class-sitewright-uninstaller.php';

Sitewright_Uninstaller::run();
