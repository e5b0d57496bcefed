<?php
/**
 * The tracking script tag, printed in every page's <head>.
 *
 * @package Herald
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Prints `<script defer src="HERALD/v1/ai-traffic/t.js" data-site="KEY">`
 * once Herald's URL and the site key are set.
 */
function herald_print_snippet() {
	$base = herald_option( 'herald_url' );
	$key  = herald_option( 'herald_site_key' );
	if ( '' === $base || '' === $key ) {
		return;
	}
	$src = $base . '/v1/ai-traffic/t.js';
	if ( function_exists( 'wp_print_script_tag' ) ) {
		wp_print_script_tag(
			array(
				'defer'     => true,
				'src'       => $src,
				'data-site' => $key,
			)
		);
		return;
	}
	printf( "<script defer src=\"%s\" data-site=\"%s\"></script>\n", esc_url( $src ), esc_attr( $key ) );
}
