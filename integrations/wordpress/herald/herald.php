<?php
/**
 * Plugin Name:       Herald AI Traffic
 * Description:       Adds Herald's tracking script to every page and reports AI crawler requests (GPTBot, ClaudeBot, PerplexityBot, ...) to Herald from the server, where crawlers that run no JavaScript are seen.
 * Version:           0.1.0
 * Requires at least: 5.7
 * Requires PHP:      7.4
 * License:           Apache-2.0
 * Text Domain:       herald
 *
 * @package Herald
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

define( 'HERALD_PLUGIN_VERSION', '0.1.0' );

require_once __DIR__ . '/includes/crawlers.php';
require_once __DIR__ . '/includes/settings.php';
require_once __DIR__ . '/includes/snippet.php';
require_once __DIR__ . '/includes/report.php';

add_action( 'init', 'herald_register_settings' );
add_action( 'admin_menu', 'herald_admin_menu' );
add_action( 'wp_head', 'herald_print_snippet', 1 );
add_action( 'shutdown', 'herald_report_crawler_hit', 0 );
