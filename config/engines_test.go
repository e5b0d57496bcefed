package config_test

import (
	"testing"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/plugins"
)

// TestFirstPartyPluginsAreRegistered keeps the config's first-party plugin
// list and the executable's registry (`herald plugin NAME`) in step.
func TestFirstPartyPluginsAreRegistered(t *testing.T) {
	t.Parallel()
	for name, kind := range config.FirstPartyPlugins {
		got, ok := plugins.KindOf(name)
		if !ok || string(got) != kind {
			t.Errorf("first-party plugin %q (%s) is registered as %q, %v", name, kind, got, ok)
		}
	}
}

func TestAnswerEngineModelsRouteToTheirPlugins(t *testing.T) {
	t.Parallel()
	c, err := config.Load("", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for model, provider := range map[string]string{
		"claude-sonnet-4-5": "anthropic", "claude-haiku-4-5": "anthropic",
		"gemini-2.5-flash": "gemini", "gemini-2.5-pro": "gemini",
		"sonar": "perplexity", "sonar-pro": "perplexity",
		"grok-4": "xai", "deepseek-chat": "deepseek", "mistral-medium-latest": "mistral",
		"google-ai-overview": "serpapi", "google-ai-mode": "serpapi",
	} {
		m := c.Models[model]
		if len(m.Deployments) != 1 || m.Deployments[0].Provider != provider || c.Plugins[provider].Kind != "provider" || c.Plugins[provider].Command != "" {
			t.Errorf("model %q = %+v, plugin %+v; want one deployment on first-party %q", model, m, c.Plugins[provider], provider)
		}
	}
}

// TestPerplexityBlockFromTheREADME loads the operator block the README
// documents: the perplexity plugin with its own base URL, and sonar-pro
// falling back to OpenAI's search model.
func TestPerplexityBlockFromTheREADME(t *testing.T) {
	t.Parallel()
	path := write(t, `
plugin "perplexity" {
  kind = "provider"
  env  = { PERPLEXITY_BASE_URL = "https://pplx-proxy.example.com" }
}
model "sonar-pro" {
  deployment { provider = "perplexity" }
  deployment {
    provider = "openai"
    model    = "gpt-4o-search-preview"
  }
}
`)
	c, err := config.Load(path, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Plugins["perplexity"]; p.Command != "" || p.Env["PERPLEXITY_BASE_URL"] != "https://pplx-proxy.example.com" {
		t.Errorf("perplexity block = %+v", p)
	}
	if d := c.Models["sonar-pro"].Deployments; len(d) != 2 || d[0].Provider != "perplexity" || d[1].Provider != "openai" || d[1].Model != "gpt-4o-search-preview" {
		t.Errorf("sonar-pro deployments = %+v", d)
	}
	if c.Models["sonar"].Deployments[0].Provider != "perplexity" {
		t.Errorf("the default sonar route was lost: %+v", c.Models["sonar"])
	}
}

// TestGoogleAIOverviewsWithAFallback loads the block docs/ENGINES.md
// shows: Google's AI Overviews through DataForSEO, SerpApi behind it.
func TestGoogleAIOverviewsWithAFallback(t *testing.T) {
	t.Parallel()
	c, err := config.Load(write(t, `
model "google-ai-overview" {
  deployment { provider = "dataforseo" }
  deployment { provider = "serpapi" }
}
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	m := c.Models["google-ai-overview"]
	if len(m.Deployments) != 2 || m.Deployments[0].Provider != "dataforseo" || m.Deployments[1].Provider != "serpapi" || c.Plugins["dataforseo"].Kind != "provider" {
		t.Errorf("google-ai-overview = %+v", m)
	}
}
