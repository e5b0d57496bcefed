// Glue between areas that host/run.go wires: what one area needs from another.

package main

import (
	"context"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/visibility"
)

// agentVisibility gives the agent the caller's latest completed visibility
// report through the same service as GET /v1/ai/generate/seo-site-report,
// so its tool and context summary see exactly what that route answers.
func agentVisibility(reports *visibility.Service) agent.VisibilityFunc {
	return func(ctx context.Context, p auth.Principal) (*agent.VisibilitySnapshot, error) {
		v, err := reports.Latest(ctx, p, "desc", false)
		if err != nil || v == nil || v.Computed == nil {
			return nil, err
		}
		s := v.Computed.Scores
		return &agent.VisibilitySnapshot{
			Score: s.AIVisibility.Score, ShareOfVoice: s.ShareOfVoice.Score, Understanding: s.EntityUnderstanding.Score,
			CreatedAt: v.CreatedAt.UnixMilli(),
			Report: map[string]any{
				"websiteurl": v.Input.WebsiteURL, "competitors": v.Input.Competitors, "prompts": v.Input.Prompts,
				"engines": v.Engines, "scores": s, "recommendations": v.Computed.Recommendations,
			},
		}, nil
	}
}

// agentSEOScore scores content for the agent as POST
// /v1/ai/generate/calculate-seo-score does (no model, no credit).
func agentSEOScore(c *content.Service) agent.SEOScoreFunc {
	return func(_ context.Context, _ auth.Principal, in agent.SEOInput) (any, error) {
		var keywords []string
		if in.Keyword != "" {
			keywords = []string{in.Keyword}
		}
		return c.Score(content.ScoreInput{Content: in.Content, Title: in.Title, Keywords: keywords})
	}
}

// providerHasKey reports whether a provider plugin can answer: a
// first-party provider needs its API key in the host's environment or in
// its plugin block's env; a third-party provider is assumed configured.
func providerHasKey(cfg *config.Config, provider string, getenv func(string) string) bool {
	name := provider
	if p, ok := cfg.Plugins[provider]; ok && p.Command != "" {
		return true
	}
	env, ok := config.ProviderKeyEnv[name]
	if !ok {
		return true
	}
	if p, ok := cfg.Plugins[provider]; ok && p.Env[env] != "" {
		return true
	}
	return getenv(env) != ""
}
