// Package names lists Herald's first-party plugins by name and kind, and
// nothing else: it imports no plugin and no SDK, so that package config
// (public) can know which plugins every host has without pulling the
// provider SDKs into its importers. Package plugins, which serves them,
// builds its registry over this list.
package names

import "slices"

// Kind is what a plugin serves: the go-plugin plugin set name the host
// dispenses (sdk.ProviderPluginName, sdk.DestinationPluginName,
// sdk.AnalyticsPluginName; a test in
// package plugins pins them).
type Kind string

// The kinds of first-party plugins.
const (
	Provider    Kind = "provider"
	Destination Kind = "destination"
	Analytics   Kind = "analytics"
)

// kinds is the one list of first-party plugins.
var kinds = map[string]Kind{
	"openai":    Provider,
	"anthropic": Provider,
	"gemini":    Provider,
	// perplexity is the openai plugin's code as a second deployment, with
	// its own key (PERPLEXITY_API_KEY) and base URL.
	"perplexity": Provider,
	// xai, deepseek and mistral are the openai plugin's code too, each
	// with its own key, base URL and (xai, mistral) search API.
	"xai":      Provider,
	"deepseek": Provider,
	"mistral":  Provider,
	// serpapi reads Google's AI Overviews and AI Mode through SerpApi.
	"serpapi": Provider,
	// dataforseo reads the same two through DataForSEO (not routed by
	// default: an operator routes the google-ai-* models to it).
	"dataforseo": Provider,
	"webhook":    Destination,
	"wordpress":  Destination,
	"webflow":    Destination,
	"notion":     Destination,
	"linkedin":   Destination,
	// ga4 reads a site's sessions from Google Analytics 4.
	"ga4": Analytics,
}

// Names returns the names of the first-party plugins, sorted.
func Names() []string {
	out := make([]string, 0, len(kinds))
	for name := range kinds {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// KindOf returns what the first-party plugin name serves, and false for an
// unknown name.
func KindOf(name string) (Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}
