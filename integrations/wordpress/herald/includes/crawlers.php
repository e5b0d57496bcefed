<?php
/**
 * The AI crawlers and fetchers the plugin reports: user-agent product
 * tokens, matched case-insensitively anywhere in the User-Agent header.
 * The list is Herald's own crawler table (a test in the Herald repository
 * keeps the two equal); Herald classifies and verifies every hit again, so
 * the list only decides which requests are worth a report.
 *
 * @package Herald
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The user-agent tokens of the AI crawlers, filterable with
 * `herald_crawler_tokens`.
 *
 * @return string[]
 */
function herald_crawler_tokens() {
	$tokens = array(
		'GPTBot', 'ChatGPT-User', 'OAI-SearchBot',
		'ClaudeBot', 'Claude-User', 'Claude-SearchBot', 'anthropic-ai',
		'PerplexityBot', 'Perplexity-User',
		'Google-Extended', 'Google-CloudVertexBot',
		'Bytespider', 'CCBot', 'Applebot-Extended',
		'meta-externalagent', 'meta-externalfetcher',
		'Amazonbot', 'DuckAssistBot', 'MistralAI-User',
		'cohere-ai', 'YouBot', 'PhindBot', 'Diffbot',
	);
	return apply_filters( 'herald_crawler_tokens', $tokens );
}

/**
 * Whether a user agent is one of the AI crawlers.
 *
 * @param string $user_agent The request's User-Agent header.
 * @return bool
 */
function herald_is_ai_crawler( $user_agent ) {
	if ( '' === $user_agent ) {
		return false;
	}
	foreach ( herald_crawler_tokens() as $token ) {
		if ( false !== stripos( $user_agent, $token ) ) {
			return true;
		}
	}
	return false;
}
