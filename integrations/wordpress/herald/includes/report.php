<?php
/**
 * Server-side reports of AI crawler requests. Crawlers run no JavaScript,
 * so the tracking script never sees them; the plugin sees them here, when
 * WordPress has answered the request, and posts one line to Herald's log
 * route (POST /v1/ai-traffic/logs, a JSON array of line objects).
 *
 * The page is not slowed: under PHP-FPM the response is finished first
 * (fastcgi_finish_request) and the post then waits for Herald's answer (at
 * most 5 s, in the FPM worker, after the visitor has the page); elsewhere
 * the post is non-blocking (wp_remote_post with 'blocking' => false: the
 * request is written and the connection closed without waiting).
 *
 * @package Herald
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The line object of the current request, or null when it is not an AI
 * crawler's page request.
 *
 * @return array|null
 */
function herald_crawler_line() {
	if ( is_admin() || wp_doing_cron() || wp_doing_ajax() || ( defined( 'WP_CLI' ) && WP_CLI ) ) {
		return null;
	}
	$ua = isset( $_SERVER['HTTP_USER_AGENT'] ) ? (string) wp_unslash( $_SERVER['HTTP_USER_AGENT'] ) : ''; // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- sent as data, Herald validates it.
	if ( ! herald_is_ai_crawler( $ua ) ) {
		return null;
	}
	$status = http_response_code();
	return array(
		'time'      => gmdate( 'Y-m-d\TH:i:s\Z' ),
		'method'    => isset( $_SERVER['REQUEST_METHOD'] ) ? strtoupper( sanitize_key( wp_unslash( $_SERVER['REQUEST_METHOD'] ) ) ) : 'GET',
		'host'      => (string) wp_parse_url( home_url(), PHP_URL_HOST ),
		'path'      => isset( $_SERVER['REQUEST_URI'] ) ? (string) wp_unslash( $_SERVER['REQUEST_URI'] ) : '/', // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- sent as data.
		'status'    => $status ? (int) $status : 200,
		'userAgent' => $ua,
		'ip'        => isset( $_SERVER['REMOTE_ADDR'] ) ? (string) wp_unslash( $_SERVER['REMOTE_ADDR'] ) : '', // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- an address, Herald parses it.
		'referrer'  => isset( $_SERVER['HTTP_REFERER'] ) ? (string) wp_unslash( $_SERVER['HTTP_REFERER'] ) : '', // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- sent as data.
	);
}

/**
 * On shutdown: posts the request to Herald when an AI crawler made it.
 */
function herald_report_crawler_hit() {
	$base   = herald_option( 'herald_url' );
	$key    = herald_option( 'herald_site_key' );
	$secret = herald_option( 'herald_ingest_secret' );
	if ( '' === $base || '' === $secret ) {
		return;
	}
	$line = herald_crawler_line();
	if ( null === $line ) {
		return;
	}
	// Under PHP-FPM the visitor has the whole page once the response is
	// finished, so the post can wait for Herald's answer (a server may
	// drop a request whose client hung up). Elsewhere it must not wait.
	$blocking = false;
	if ( function_exists( 'fastcgi_finish_request' ) ) {
		fastcgi_finish_request();
		$blocking = true;
	}
	$url = $base . '/v1/ai-traffic/logs';
	if ( '' !== $key ) {
		$url = add_query_arg( 'siteKey', rawurlencode( $key ), $url );
	}
	wp_remote_post(
		$url,
		array(
			'blocking'   => $blocking,
			'timeout'    => $blocking ? 5 : 1,
			'user-agent' => 'herald-wordpress/' . HERALD_PLUGIN_VERSION,
			'headers'    => array(
				'Authorization' => 'Bearer ' . $secret,
				'Content-Type'  => 'application/json',
			),
			'body'       => wp_json_encode( array( $line ) ),
		)
	);
}
