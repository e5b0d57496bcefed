package traffic_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/traffic"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	const ua = browserUA
	for _, tc := range []struct {
		name, referrer, utm, ua string
		kind                    traffic.Kind
		source, bot             string
	}{
		{"chatgpt.com referrer is ChatGPT", "https://chatgpt.com/", "", ua, traffic.Visit, "chatgpt", ""},
		{"chat.openai.com referrer is ChatGPT", "https://chat.openai.com/c/123", "", ua, traffic.Visit, "chatgpt", ""},
		{"utm_source=chatgpt.com is ChatGPT without a referrer", "", "chatgpt.com", ua, traffic.Visit, "chatgpt", ""},
		{"perplexity.ai referrer is Perplexity", "https://www.perplexity.ai/search/abc", "", ua, traffic.Visit, "perplexity", ""},
		{"utm_source=perplexity is Perplexity", "", "Perplexity", ua, traffic.Visit, "perplexity", ""},
		{"claude.ai referrer is Claude", "https://claude.ai/", "", ua, traffic.Visit, "claude", ""},
		{"gemini.google.com referrer is Gemini", "https://gemini.google.com/app", "", ua, traffic.Visit, "gemini", ""},
		{"bard.google.com referrer is Gemini", "https://bard.google.com/", "", ua, traffic.Visit, "gemini", ""},
		{"copilot.microsoft.com referrer is Copilot", "https://copilot.microsoft.com/", "", ua, traffic.Visit, "copilot", ""},
		{"m365.cloud.microsoft referrer is Copilot", "https://m365.cloud.microsoft/chat", "", ua, traffic.Visit, "copilot", ""},
		{"chat.deepseek.com referrer is DeepSeek", "https://chat.deepseek.com/", "", ua, traffic.Visit, "deepseek", ""},
		{"grok.com referrer is Grok", "https://grok.com/", "", ua, traffic.Visit, "grok", ""},
		{"chat.mistral.ai referrer is Le Chat", "https://chat.mistral.ai/chat", "", ua, traffic.Visit, "mistral", ""},
		{"meta.ai referrer is Meta AI", "https://www.meta.ai/", "", ua, traffic.Visit, "meta", ""},
		{"you.com referrer is You.com", "https://you.com/search?q=x", "", ua, traffic.Visit, "you", ""},
		{"phind.com referrer is Phind", "https://www.phind.com/", "", ua, traffic.Visit, "phind", ""},
		{"poe.com referrer is Poe", "https://poe.com/", "", ua, traffic.Visit, "poe", ""},
		{"kagi.com/assistant referrer is Kagi Assistant", "https://kagi.com/assistant/abc", "", ua, traffic.Visit, "kagi", ""},
		{"kagi.com search is not an assistant", "https://kagi.com/search?q=x", "", ua, traffic.Visit, "", ""},
		{"x.com/i/grok referrer is Grok", "https://x.com/i/grok?conversation=1", "", ua, traffic.Visit, "grok", ""},
		{"twitter.com/i/grok referrer is Grok", "https://twitter.com/i/grok", "", ua, traffic.Visit, "grok", ""},
		{"the rest of x.com is not an AI", "https://x.com/someone/status/1", "", ua, traffic.Visit, "", ""},
		{"x.com/i/grokking is not Grok", "https://x.com/i/grokking", "", ua, traffic.Visit, "", ""},
		{"copilot.com referrer is Copilot", "https://copilot.com/", "", ua, traffic.Visit, "copilot", ""},
		{"utm_source=copilot.com is Copilot", "", "copilot.com", ua, traffic.Visit, "copilot", ""},
		{"labs.openai.com referrer is ChatGPT", "https://labs.openai.com/", "", ua, traffic.Visit, "chatgpt", ""},
		{"openai.com itself is not an AI referrer", "https://openai.com/", "", ua, traffic.Visit, "", ""},
		{"iask.ai referrer is iAsk", "https://iask.ai/?mode=question&q=x", "", ua, traffic.Visit, "iask", ""},
		{"utm_source=iask.ai is iAsk", "", "iask.ai", ua, traffic.Visit, "iask", ""},
		{"yiyan.baidu.com referrer is ERNIE Bot", "https://yiyan.baidu.com/", "", ua, traffic.Visit, "baidu", ""},
		{"chat.baidu.com referrer is ERNIE Bot", "https://chat.baidu.com/search?word=x", "", ua, traffic.Visit, "baidu", ""},
		{"baidu.com search is not an AI", "https://www.baidu.com/s?wd=x", "", ua, traffic.Visit, "", ""},
		{"utm_source=chatgpt.com wins over an x.com referrer", "https://x.com/", "chatgpt.com", ua, traffic.Visit, "chatgpt", ""},
		{"notebooklm.google.com referrer is NotebookLM", "https://notebooklm.google.com/", "", ua, traffic.Visit, "notebooklm", ""},
		{"a referrer without scheme still matches", "chatgpt.com", "", ua, traffic.Visit, "chatgpt", ""},
		{"utm_source wins over the referrer", "https://www.google.com/", "chatgpt.com", ua, traffic.Visit, "chatgpt", ""},
		{"google.com is not an AI", "https://www.google.com/", "", ua, traffic.Visit, "", ""},
		{"a look-alike host is not an AI", "https://notchatgpt.com/", "", ua, traffic.Visit, "", ""},
		{"a host under another domain is not an AI", "https://chatgpt.com.evil.test/", "", ua, traffic.Visit, "", ""},
		{"no referrer is a direct visit", "", "", ua, traffic.Visit, "", ""},
		{"an unknown utm_source is not an AI", "", "newsletter", ua, traffic.Visit, "", ""},
		{"GPTBot is an AI crawler", "", "", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", traffic.AICrawler, "", "GPTBot"},
		{"ChatGPT-User is an AI fetcher", "https://chatgpt.com/", "", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", traffic.AICrawler, "", "ChatGPT-User"},
		{"OAI-SearchBot is an AI crawler", "", "", "Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)", traffic.AICrawler, "", "OAI-SearchBot"},
		{"ClaudeBot is an AI crawler", "", "", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", traffic.AICrawler, "", "ClaudeBot"},
		{"Claude-User is an AI fetcher", "", "", "Claude-User/1.0", traffic.AICrawler, "", "Claude-User"},
		{"PerplexityBot is an AI crawler", "", "", "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", traffic.AICrawler, "", "PerplexityBot"},
		{"Perplexity-User is an AI fetcher", "", "", "Mozilla/5.0 (compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", traffic.AICrawler, "", "Perplexity-User"},
		{"Google-Extended is an AI crawler", "", "", "Google-Extended", traffic.AICrawler, "", "Google-Extended"},
		{"Bytespider is an AI crawler", "", "", "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)", traffic.AICrawler, "", "Bytespider"},
		{"CCBot is an AI crawler", "", "", "CCBot/2.0 (https://commoncrawl.org/faq/)", traffic.AICrawler, "", "CCBot"},
		{"Applebot-Extended is an AI crawler", "", "", "Mozilla/5.0 (compatible; Applebot-Extended/0.1)", traffic.AICrawler, "", "Applebot-Extended"},
		{"meta-externalagent is an AI crawler", "", "", "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", traffic.AICrawler, "", "meta-externalagent"},
		{"Googlebot is another bot", "", "", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", traffic.Bot, "", ""},
		{"plain Applebot is another bot", "", "", "Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1)", traffic.Bot, "", ""},
		{"curl is another bot", "", "", "curl/8.5.0", traffic.Bot, "", ""},
		{"headless Chrome is another bot", "https://chatgpt.com/", "", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36", traffic.Bot, "", ""},
		{"an empty user agent is a bot", "https://chatgpt.com/", "", "", traffic.Bot, "", ""},
		{"an upper-case referrer host matches", "https://CHAT.OpenAI.com/c/1", "", ua, traffic.Visit, "chatgpt", ""},
		{"an upper-case utm_source matches", "", "ChatGPT.com", ua, traffic.Visit, "chatgpt", ""},
		{"www. is stripped from utm_source", "", "www.chatgpt.com", ua, traffic.Visit, "chatgpt", ""},
		{"a bare Mozilla/5.0 is a bot", "https://chatgpt.com/", "", "Mozilla/5.0", traffic.Bot, "", ""},
		{"a bare Mozilla/5.0 with spaces is a bot", "https://chatgpt.com/", "", " Mozilla/5.0 ", traffic.Bot, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := traffic.Classify(tc.referrer, tc.utm, tc.ua)
			if c.Kind != tc.kind {
				t.Fatalf("kind %s, want %s", c.Kind, tc.kind)
			}
			source := ""
			if c.Source != nil {
				source = c.Source.ID
			}
			bot := ""
			if c.Crawler != nil {
				bot = c.Crawler.Token
			}
			if source != tc.source || bot != tc.bot {
				t.Errorf("source %q bot %q, want %q %q", source, bot, tc.source, tc.bot)
			}
		})
	}
}

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"a bare domain stays", "example.com", "example.com"},
		{"upper case is lowered", "Example.COM", "example.com"},
		{"scheme, path, query and fragment go", "https://example.com/a/b?c#d", "example.com"},
		{"the port goes", "example.com:8080", "example.com"},
		{"www. goes", "www.example.com", "example.com"},
		{"credentials go", "https://user:pw@example.com/", "example.com"},
		{"a trailing dot goes", "example.com.", "example.com"},
		{"other subdomains stay", "blog.example.co.uk", "blog.example.co.uk"},
		{"IDN becomes punycode", "https://www.Bücher.de/", "xn--bcher-kva.de"},
		{"punycode stays", "xn--bcher-kva.de", "xn--bcher-kva.de"},
		{"empty is invalid", "  ", ""},
		{"a single label is invalid", "localhost", ""},
		{"an IPv4 address is invalid", "10.0.0.1", ""},
		{"an IPv6 address is invalid", "http://[::1]:80/", ""},
		{"an underscore is invalid", "a_b.com", ""},
		{"an empty label is invalid", "a..com", ""},
		{"a numeric TLD is invalid", "example.123", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := traffic.NormalizeDomain(tc.in)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("NormalizeDomain(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("NormalizeDomain(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
