<?php
// Installs a throwaway WordPress (the docroot's wp-config.php names its
// database), activates the Herald plugin and sets its options, then
// renders Settings → Herald as the admin and prints it after a marker
// line, for the Go test to check. Run with the PHP CLI:
//   php setup.php DOCROOT HERALD_URL SITE_KEY SECRET
if ( PHP_SAPI !== 'cli' ) {
	exit( 1 );
}
list( , $docroot, $herald_url, $site_key, $secret ) = $argv;
define( 'WP_INSTALLING', true );
$_SERVER['HTTP_HOST']   = 'example.com';
$_SERVER['REQUEST_URI'] = '/';
require $docroot . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
add_filter( 'pre_wp_mail', '__return_false' );

$res = wp_install( 'Herald test', 'admin', 'admin@example.com', false, '', wp_generate_password( 24 ) );
if ( is_wp_error( $res ) ) {
	fwrite( STDERR, 'wp_install: ' . $res->get_error_message() . "\n" );
	exit( 1 );
}
$err = activate_plugin( 'herald/herald.php' );
if ( is_wp_error( $err ) ) {
	fwrite( STDERR, 'activate_plugin: ' . $err->get_error_message() . "\n" );
	exit( 1 );
}
// The plugin's own file was not loaded in this process before activation.
require_once WP_PLUGIN_DIR . '/herald/herald.php';
herald_register_settings();
update_option( 'herald_url', $herald_url . '/' );
update_option( 'herald_site_key', $site_key );
update_option( 'herald_ingest_secret', $secret );
// Saving the form with the secret field empty keeps the stored secret.
update_option( 'herald_ingest_secret', '' );

wp_set_current_user( 1 );
ob_start();
herald_settings_page();
$page = ob_get_clean();
echo "active=" . ( is_plugin_active( 'herald/herald.php' ) ? 'yes' : 'no' ) . "\n";
echo "url=" . get_option( 'herald_url' ) . "\n";
echo "secret-kept=" . ( get_option( 'herald_ingest_secret' ) === $secret ? 'yes' : 'no' ) . "\n";
echo "--- settings page\n" . $page;
