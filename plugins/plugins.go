// Package plugins registers Herald's first-party plugins so that one
// executable can serve any of them: the host's `herald plugin NAME`
// subcommand calls [Serve], and the host launches its own executable with
// that subcommand for each first-party plugin, exactly as it launches a
// third-party plugin executable. Every plugin here imports only sdk/.
package plugins

import (
	"fmt"
	"strings"

	"github.com/heraldhq/herald/plugins/anthropic"
	"github.com/heraldhq/herald/plugins/dataforseo"
	"github.com/heraldhq/herald/plugins/ga4"
	"github.com/heraldhq/herald/plugins/gemini"
	"github.com/heraldhq/herald/plugins/linkedin"
	"github.com/heraldhq/herald/plugins/names"
	"github.com/heraldhq/herald/plugins/notion"
	"github.com/heraldhq/herald/plugins/openai"
	"github.com/heraldhq/herald/plugins/serpapi"
	"github.com/heraldhq/herald/plugins/webflow"
	"github.com/heraldhq/herald/plugins/webhook"
	"github.com/heraldhq/herald/plugins/wordpress"
	"github.com/heraldhq/herald/sdk"
)

// Kind is what a plugin serves (package names holds the list of names and
// kinds, importable without the plugins' code).
type Kind = names.Kind

// The kinds of first-party plugins; they equal the go-plugin plugin set
// names the host dispenses.
const (
	KindProvider    = names.Provider
	KindDestination = names.Destination
	KindAnalytics   = names.Analytics
)

// registry builds each plugin's ServeOpts lazily, so that serving one plugin
// never constructs the others. Its keys are exactly names.Names().
var registry = map[string]func() sdk.ServeOpts{
	"openai":     func() sdk.ServeOpts { return sdk.ServeOpts{Provider: openai.New()} },
	"anthropic":  func() sdk.ServeOpts { return sdk.ServeOpts{Provider: anthropic.New()} },
	"gemini":     func() sdk.ServeOpts { return sdk.ServeOpts{Provider: gemini.New()} },
	"perplexity": func() sdk.ServeOpts { return sdk.ServeOpts{Provider: openai.NewDeployment(openai.Perplexity)} },
	"xai":        func() sdk.ServeOpts { return sdk.ServeOpts{Provider: openai.NewDeployment(openai.XAI)} },
	"deepseek":   func() sdk.ServeOpts { return sdk.ServeOpts{Provider: openai.NewDeployment(openai.DeepSeek)} },
	"mistral":    func() sdk.ServeOpts { return sdk.ServeOpts{Provider: openai.NewDeployment(openai.Mistral)} },
	"serpapi":    func() sdk.ServeOpts { return sdk.ServeOpts{Provider: serpapi.New()} },
	"dataforseo": func() sdk.ServeOpts { return sdk.ServeOpts{Provider: dataforseo.New()} },
	"webhook":    func() sdk.ServeOpts { return sdk.ServeOpts{Destination: webhook.New()} },
	"wordpress":  func() sdk.ServeOpts { return sdk.ServeOpts{Destination: wordpress.New()} },
	"webflow":    func() sdk.ServeOpts { return sdk.ServeOpts{Destination: webflow.New()} },
	"notion":     func() sdk.ServeOpts { return sdk.ServeOpts{Destination: notion.New()} },
	"linkedin":   func() sdk.ServeOpts { return sdk.ServeOpts{Destination: linkedin.New()} },
	"ga4":        func() sdk.ServeOpts { return sdk.ServeOpts{Analytics: ga4.New()} },
}

// Names returns the names of the first-party plugins, sorted.
func Names() []string { return names.Names() }

// KindOf returns what the first-party plugin name serves, and false for an
// unknown name.
func KindOf(name string) (Kind, bool) { return names.KindOf(name) }

// Options returns the ServeOpts of the first-party plugin name, for serving
// it in-process (tests) or through [Serve].
func Options(name string) (sdk.ServeOpts, error) {
	opts, ok := registry[name]
	if !ok {
		return sdk.ServeOpts{}, fmt.Errorf("unknown first-party plugin %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return opts(), nil
}

// Serve serves the first-party plugin name over go-plugin and returns when
// the host is done with it. It must be called from the process's main
// goroutine, as `herald plugin NAME` does; run by hand (without the host's
// handshake) it prints an explanation and exits.
func Serve(name string) error {
	opts, err := Options(name)
	if err != nil {
		return err
	}
	return sdk.Serve(opts)
}
