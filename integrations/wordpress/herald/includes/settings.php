<?php
/**
 * Settings → Herald: the Herald URL, the site key and the ingest secret.
 * The secret is stored as an option and never printed back: the page shows
 * only its last four characters, and saving the form with the field left
 * empty keeps the stored secret.
 *
 * @package Herald
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * An option of the plugin as a trimmed string ('' when unset).
 *
 * @param string $name Option name.
 * @return string
 */
function herald_option( $name ) {
	return trim( (string) get_option( $name, '' ) );
}

/**
 * Registers the three options and their sanitizers (on init, so they apply
 * to every update_option, not only the settings form).
 */
function herald_register_settings() {
	register_setting(
		'herald',
		'herald_url',
		array(
			'type'              => 'string',
			'sanitize_callback' => 'herald_sanitize_url',
			'default'           => '',
		)
	);
	register_setting(
		'herald',
		'herald_site_key',
		array(
			'type'              => 'string',
			'sanitize_callback' => 'sanitize_text_field',
			'default'           => '',
		)
	);
	register_setting(
		'herald',
		'herald_ingest_secret',
		array(
			'type'              => 'string',
			'sanitize_callback' => 'herald_sanitize_secret',
			'default'           => '',
			'show_in_rest'      => false,
		)
	);
}

/**
 * The Herald URL without a trailing slash; only http(s).
 *
 * @param string $value Submitted value.
 * @return string
 */
function herald_sanitize_url( $value ) {
	return untrailingslashit( esc_url_raw( trim( (string) $value ), array( 'http', 'https' ) ) );
}

/**
 * A submitted secret; an empty one keeps the stored secret (the form never
 * holds it).
 *
 * @param string $value Submitted value.
 * @return string
 */
function herald_sanitize_secret( $value ) {
	$value = trim( sanitize_text_field( (string) $value ) );
	if ( '' === $value ) {
		return herald_option( 'herald_ingest_secret' );
	}
	return $value;
}

/**
 * Adds Settings → Herald.
 */
function herald_admin_menu() {
	add_options_page( 'Herald', 'Herald', 'manage_options', 'herald', 'herald_settings_page' );
}

/**
 * The stored secret as the page may show it: its last four characters.
 *
 * @return string
 */
function herald_masked_secret() {
	$secret = herald_option( 'herald_ingest_secret' );
	if ( '' === $secret ) {
		return '';
	}
	return str_repeat( '•', 8 ) . substr( $secret, -4 );
}

/**
 * Renders Settings → Herald.
 */
function herald_settings_page() {
	if ( ! current_user_can( 'manage_options' ) ) {
		return;
	}
	$masked = herald_masked_secret();
	?>
	<div class="wrap">
		<h1>Herald</h1>
		<p>Herald adds its tracking script to every page and reports AI crawler requests (which run no JavaScript) from the server.</p>
		<form method="post" action="options.php">
			<?php settings_fields( 'herald' ); ?>
			<table class="form-table" role="presentation">
				<tr>
					<th scope="row"><label for="herald_url">Herald URL</label></th>
					<td><input name="herald_url" id="herald_url" type="url" class="regular-text" value="<?php echo esc_attr( herald_option( 'herald_url' ) ); ?>" placeholder="https://herald.example.com" /></td>
				</tr>
				<tr>
					<th scope="row"><label for="herald_site_key">Site key</label></th>
					<td><input name="herald_site_key" id="herald_site_key" type="text" class="regular-text" value="<?php echo esc_attr( herald_option( 'herald_site_key' ) ); ?>" placeholder="ks_…" /></td>
				</tr>
				<tr>
					<th scope="row"><label for="herald_ingest_secret">Ingest secret</label></th>
					<td>
						<input name="herald_ingest_secret" id="herald_ingest_secret" type="password" class="regular-text" value="" autocomplete="new-password" placeholder="kis_…" />
						<p class="description">
							<?php if ( '' !== $masked ) : ?>
								Saved: <code><?php echo esc_html( $masked ); ?></code>. Leave empty to keep it.
							<?php else : ?>
								Shown once when the site is created in Herald (or its secret rotated). Needed for crawler reports.
							<?php endif; ?>
						</p>
					</td>
				</tr>
			</table>
			<?php submit_button(); ?>
		</form>
	</div>
	<?php
}
