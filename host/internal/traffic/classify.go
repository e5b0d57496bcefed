package traffic

import (
	"net/url"
	"strings"
)

// Source is an AI assistant that sends visitors to websites.
type Source struct {
	// ID is the stable id stored and reported, such as "chatgpt".
	ID string
	// Name is the display name, such as "ChatGPT".
	Name string
	// Hosts are referrer hosts of the assistant; subdomains match too. An
	// entry with a path ("kagi.com/assistant") matches only referrers
	// under that path.
	Hosts []string
	// UTM are utm_source values the assistant adds to the links it shows.
	UTM []string
}

// Sources is the maintained table of AI assistants. Add an assistant here
// (and a test case in classify_test.go) when it starts sending traffic;
// stats learn its name from this table.
var Sources = []Source{
	{ID: "chatgpt", Name: "ChatGPT", Hosts: []string{"chatgpt.com", "chat.openai.com", "labs.openai.com"}, UTM: []string{"chatgpt.com", "chatgpt", "chat.openai.com", "openai"}},
	{ID: "perplexity", Name: "Perplexity", Hosts: []string{"perplexity.ai"}, UTM: []string{"perplexity", "perplexity.ai"}},
	{ID: "claude", Name: "Claude", Hosts: []string{"claude.ai"}, UTM: []string{"claude", "claude.ai", "anthropic"}},
	{ID: "gemini", Name: "Gemini", Hosts: []string{"gemini.google.com", "bard.google.com"}, UTM: []string{"gemini", "gemini.google.com", "bard"}},
	{ID: "copilot", Name: "Microsoft Copilot", Hosts: []string{"copilot.microsoft.com", "m365.cloud.microsoft", "copilot.cloud.microsoft", "edgeservices.bing.com", "copilot.com"},
		UTM: []string{"copilot", "copilot.microsoft.com", "m365.cloud.microsoft", "copilot.com"}},
	{ID: "deepseek", Name: "DeepSeek", Hosts: []string{"chat.deepseek.com"}, UTM: []string{"deepseek", "chat.deepseek.com"}},
	// Grok also answers inside X, under x.com/i/grok (twitter.com/i/grok
	// before the rename); the rest of x.com is social traffic, not AI.
	{ID: "grok", Name: "Grok", Hosts: []string{"grok.com", "x.com/i/grok", "twitter.com/i/grok"}, UTM: []string{"grok", "grok.com"}},
	{ID: "mistral", Name: "Le Chat (Mistral)", Hosts: []string{"chat.mistral.ai"}, UTM: []string{"mistral", "chat.mistral.ai", "lechat"}},
	{ID: "meta", Name: "Meta AI", Hosts: []string{"meta.ai"}, UTM: []string{"meta.ai", "metaai"}},
	{ID: "you", Name: "You.com", Hosts: []string{"you.com"}, UTM: []string{"you.com"}},
	{ID: "phind", Name: "Phind", Hosts: []string{"phind.com"}, UTM: []string{"phind", "phind.com"}},
	{ID: "poe", Name: "Poe", Hosts: []string{"poe.com"}, UTM: []string{"poe", "poe.com"}},
	{ID: "kagi", Name: "Kagi Assistant", Hosts: []string{"kagi.com/assistant"}, UTM: []string{"kagi-assistant"}},
	{ID: "notebooklm", Name: "NotebookLM", Hosts: []string{"notebooklm.google.com"}, UTM: []string{"notebooklm"}},
	{ID: "qwen", Name: "Qwen Chat", Hosts: []string{"chat.qwen.ai"}, UTM: []string{"qwen", "chat.qwen.ai"}},
	{ID: "duckai", Name: "Duck.ai", Hosts: []string{"duck.ai"}, UTM: []string{"duck.ai"}},
	{ID: "iask", Name: "iAsk", Hosts: []string{"iask.ai"}, UTM: []string{"iask", "iask.ai"}},
	// Baidu's assistant: ERNIE Bot (yiyan.baidu.com) and the AI answers of
	// chat.baidu.com; baidu.com search itself is not an AI.
	{ID: "baidu", Name: "ERNIE Bot (Baidu)", Hosts: []string{"yiyan.baidu.com", "chat.baidu.com"}, UTM: []string{"yiyan.baidu.com", "chat.baidu.com", "ernie"}},
}

// Crawler is an AI company's crawler or user-triggered fetcher.
type Crawler struct {
	// Token is the user-agent product token, such as "GPTBot".
	Token string
	// Operator is the company behind it.
	Operator string
}

// Crawlers is the maintained table of AI crawlers and fetchers, matched as
// case-insensitive substrings of the user agent. Hits of these are counted
// per bot; every other bot is dropped.
var Crawlers = []Crawler{
	{"GPTBot", "OpenAI"}, {"ChatGPT-User", "OpenAI"}, {"OAI-SearchBot", "OpenAI"},
	{"ClaudeBot", "Anthropic"}, {"Claude-User", "Anthropic"}, {"Claude-SearchBot", "Anthropic"}, {"anthropic-ai", "Anthropic"},
	{"PerplexityBot", "Perplexity"}, {"Perplexity-User", "Perplexity"},
	{"Google-Extended", "Google"}, {"Google-CloudVertexBot", "Google"},
	{"Bytespider", "ByteDance"}, {"CCBot", "Common Crawl"}, {"Applebot-Extended", "Apple"},
	{"meta-externalagent", "Meta"}, {"meta-externalfetcher", "Meta"},
	{"Amazonbot", "Amazon"}, {"DuckAssistBot", "DuckDuckGo"}, {"MistralAI-User", "Mistral"},
	{"cohere-ai", "Cohere"}, {"YouBot", "You.com"}, {"PhindBot", "Phind"}, {"Diffbot", "Diffbot"},
}

// Kind is what a beacon is, by its classification.
type Kind string

// The kinds Classify tells apart.
const (
	// Visit is a person in a browser; Source says whether an AI sent them.
	Visit Kind = "visit"
	// AICrawler is a hit by one of Crawlers.
	AICrawler Kind = "crawler"
	// Bot is any other automated client; its beacons are dropped.
	Bot Kind = "bot"
)

// Classification is the result of Classify.
type Classification struct {
	Kind Kind
	// Source is the AI assistant of a visit; nil when no AI sent it.
	Source *Source
	// Crawler is set when Kind is AICrawler.
	Crawler *Crawler
}

// botTokens catch automated clients that are not AI crawlers: search
// engine and SEO bots, monitors, HTTP libraries and headless browsers. They
// are plain substrings of the lowercased user agent, because a regular
// expression here cost a fifth of the collect route's CPU.
var botTokens = []string{"crawl", "spider", "slurp", "headless", "lighthouse", "pingdom", "uptime", "monitor",
	"curl/", "wget/", "python-", "go-http-client", "okhttp", "java/", "libwww", "httpclient", "axios/", "node-fetch",
	"facebookexternalhit", "embedly", "preview", "phantomjs", "selenium", "puppeteer", "playwright", "scrapy", "feedfetcher"}

// isBot reports whether a lowercased user agent is an automated client:
// "bot" ending a word ("Googlebot/2.1", "AhrefsBot;"), or a botTokens entry.
func isBot(lower string) bool {
	if lower == "mozilla/5.0" {
		return true
	}
	for i := 0; ; {
		j := strings.Index(lower[i:], "bot")
		if j < 0 {
			break
		}
		end := i + j + 3
		if end == len(lower) || !(lower[end] >= 'a' && lower[end] <= 'z') {
			return true
		}
		i = end
	}
	for _, t := range botTokens {
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}

var (
	hostSources = map[string]*Source{}
	pathSources = map[string][]pathSource{}
	utmSources  = map[string]*Source{}
	// crawlerTokens are the Crawlers tokens in lower case, by index.
	crawlerTokens []string
)

type pathSource struct {
	prefix string
	src    *Source
}

func init() {
	for _, c := range Crawlers {
		crawlerTokens = append(crawlerTokens, strings.ToLower(c.Token))
	}
	for i := range Sources {
		src := &Sources[i]
		for _, h := range src.Hosts {
			if host, path, ok := strings.Cut(h, "/"); ok {
				pathSources[host] = append(pathSources[host], pathSource{"/" + path, src})
				continue
			}
			hostSources[h] = src
		}
		for _, u := range src.UTM {
			utmSources[u] = src
		}
	}
}

// Classify tells what sent a beacon. The user agent decides crawlers and
// bots first. For a visit, an AI utm_source wins (ChatGPT adds
// utm_source=chatgpt.com, Perplexity utm_source=perplexity, and browsers
// often strip the referrer to the origin or drop it), then the referrer host
// or one of its parent domains.
func Classify(referrer, utmSource, userAgent string) Classification {
	ua := strings.TrimSpace(userAgent)
	lower := strings.ToLower(ua)
	for i, token := range crawlerTokens {
		if strings.Contains(lower, token) {
			return Classification{Kind: AICrawler, Crawler: &Crawlers[i]}
		}
	}
	if ua == "" || isBot(lower) {
		return Classification{Kind: Bot}
	}
	if src := sourceByUTM(utmSource); src != nil {
		return Classification{Kind: Visit, Source: src}
	}
	return Classification{Kind: Visit, Source: sourceByReferrer(referrer)}
}

func sourceByUTM(utm string) *Source {
	u := strings.ToLower(strings.TrimSpace(utm))
	if u == "" {
		return nil
	}
	if src := utmSources[u]; src != nil {
		return src
	}
	return utmSources[strings.TrimPrefix(u, "www.")]
}

// sourceByReferrer matches the referrer's host and each parent domain
// against the table ("www.perplexity.ai" is Perplexity).
func sourceByReferrer(referrer string) *Source {
	r := strings.TrimSpace(referrer)
	if r == "" {
		return nil
	}
	if !strings.Contains(r, "://") {
		r = "https://" + r
	}
	u, err := url.Parse(r)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for h := host; h != ""; {
		for _, ps := range pathSources[h] {
			if u.Path == ps.prefix || strings.HasPrefix(u.Path, ps.prefix+"/") {
				return ps.src
			}
		}
		if src := hostSources[h]; src != nil {
			return src
		}
		_, parent, ok := strings.Cut(h, ".")
		if !ok {
			break
		}
		h = parent
	}
	return nil
}

// SourceByID returns the table entry of a stored source id, or nil.
func SourceByID(id string) *Source {
	for i := range Sources {
		if Sources[i].ID == id {
			return &Sources[i]
		}
	}
	return nil
}

// CrawlerByToken returns the table entry of a stored bot token, or nil.
func CrawlerByToken(token string) *Crawler {
	for i := range Crawlers {
		if Crawlers[i].Token == token {
			return &Crawlers[i]
		}
	}
	return nil
}
