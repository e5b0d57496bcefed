package visibility

import (
	"slices"
	"strings"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// Engines returns the model routes asked: the configured engines (host/serve.go
// fills them with DefaultEngines when config names none), else every chat
// model route the router knows (image models left out), sorted, at most 4.
func (s *Service) Engines() []string {
	if len(s.cfg.Engines) > 0 {
		return slices.Clone(s.cfg.Engines)
	}
	var out []string
	for _, m := range s.models.Models() {
		if !isNonChat(m) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), MaxEngines)]
}

// DefaultEngines picks the engines when config names none: one chat model
// route per provider plugin (a marketer compares ChatGPT with Claude, not
// gpt-4o with gpt-4o-mini), preferring full models over -mini/-nano ones,
// at most 4, sorted. usable (nil: all) says which providers have their
// credentials, so a host with only an OpenAI key does not ask three
// engines that cannot answer.
func DefaultEngines(models map[string]config.Model, usable func(provider string) bool) []string {
	names := make([]string, 0, len(models))
	for name, m := range models {
		if len(m.Deployments) > 0 && !isNonChat(name) {
			names = append(names, name)
		}
	}
	// Only providers that can answer, unless none can: then every engine
	// is asked and each shows as missing, which says what to configure.
	if usable != nil {
		var ready []string
		for _, name := range names {
			if usable(models[name].Deployments[0].Provider) {
				ready = append(ready, name)
			}
		}
		if len(ready) > 0 {
			names = ready
		}
	}
	small := func(n string) bool {
		return strings.Contains(n, "mini") || strings.Contains(n, "nano") || strings.Contains(n, "lite")
	}
	slices.SortFunc(names, func(a, b string) int {
		// The model each assistant's users talk to by default comes first.
		pa, pb := slices.Contains(config.DefaultEngineModels, a), slices.Contains(config.DefaultEngineModels, b)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		if small(a) != small(b) {
			if small(a) {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	var out []string
	seen := map[string]bool{}
	for _, name := range names {
		p := models[name].Deployments[0].Provider
		if !seen[p] && len(out) < MaxEngines {
			seen[p] = true
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func isNonChat(name string) bool {
	l := strings.ToLower(name)
	for _, w := range []string{"image", "dall-e", "embedding", "tts", "whisper"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// judgeModel is the configured judge, else the first engine.
func (s *Service) judgeModel(engines []string) string {
	if s.cfg.JudgeModel != "" {
		return s.cfg.JudgeModel
	}
	if len(engines) > 0 {
		return engines[0]
	}
	return ""
}

// ProviderByName guesses an engine's provider from its model name, for
// engines the host's config does not route (tests, renamed aliases).
func ProviderByName(engine string) string {
	l := strings.ToLower(engine)
	switch {
	case strings.HasPrefix(l, "gpt"), strings.HasPrefix(l, "o1"), strings.HasPrefix(l, "o3"), strings.HasPrefix(l, "o4"), strings.Contains(l, "openai"), strings.Contains(l, "chatgpt"):
		return "openai"
	case strings.Contains(l, "claude"), strings.Contains(l, "anthropic"):
		return "anthropic"
	case strings.Contains(l, "gemini"):
		return "gemini"
	case strings.Contains(l, "sonar"), strings.Contains(l, "perplexity"):
		return "perplexity"
	}
	return ""
}

// ValidateEngines checks engines against the model routes the router knows.
func (s *Service) ValidateEngines(engines []string) ([]string, error) {
	engines = analysis.Dedupe(engines)
	if len(engines) > MaxEngines {
		return nil, apierr.Invalid("engines: %d given; the limit is %d", len(engines), MaxEngines)
	}
	known := s.models.Models()
	for i, e := range engines {
		if !slices.Contains(known, e) && !slices.Contains(s.cfg.Engines, e) {
			return nil, apierr.Invalid("engines[%d]: %q is not a configured model route", i, e)
		}
	}
	return engines, nil
}
