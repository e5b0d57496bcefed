package tracker

import "testing"

// TestEnginesMapToTheirTrafficSources: each engine's provider, routed or
// guessed from the model name, names the AI-traffic source it sends.
func TestEnginesMapToTheirTrafficSources(t *testing.T) {
	t.Parallel()
	routed := &Service{engineProvider: func(e string) string {
		return map[string]string{"my-grok": "xai", "aio": "dataforseo"}[e]
	}}
	for engine, want := range map[string]string{
		"gpt-4o": "chatgpt", "claude-sonnet-4-5": "claude", "gemini-2.5-flash": "gemini", "sonar": "perplexity",
		"grok-4": "grok", "my-grok": "grok", "deepseek-chat": "deepseek", "mistral-medium-latest": "mistral",
		"google-ai-overview": "google", "google-ai-mode": "google", "aio": "google", "llama-3": "",
	} {
		if got := routed.engineSource(engine); got != want {
			t.Errorf("engineSource(%q) = %q, want %q", engine, got, want)
		}
	}
}
