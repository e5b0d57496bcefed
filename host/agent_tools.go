// The agent's tools that reach other areas: serve() gives agent.New these
// functions over the visibility and content services.

package main

import (
	"context"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
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
		return visibilitySnapshot(v), nil
	}
}

// visibilitySnapshot is a completed report as the agent reads it.
func visibilitySnapshot(v *visibility.View) *agent.VisibilitySnapshot {
	s := v.Computed.Scores
	d := &agent.VisibilityDetail{
		WebsiteURL: v.Input.WebsiteURL, Prompts: v.Input.Prompts, Engines: v.Engines,
		Scores: agent.VisibilityScores{
			AIVisibility: withSpread(agent.VisibilityScore{Score: s.AIVisibility.Score, Interpretation: deref(s.AIVisibility.Interpretation),
				Providers: s.AIVisibility.Providers}, s.AIVisibility.Spread, s.AIVisibility.Change),
			EntityUnderstanding: withSpread(agent.VisibilityScore{Score: s.EntityUnderstanding.Score, Interpretation: s.EntityUnderstanding.Interpretation,
				Providers: s.EntityUnderstanding.Providers}, s.EntityUnderstanding.Spread, s.EntityUnderstanding.Change),
			ShareOfVoice: withSpread(agent.VisibilityScore{Score: s.ShareOfVoice.Score, Interpretation: s.ShareOfVoice.Interpretation},
				s.ShareOfVoice.Spread, s.ShareOfVoice.Change),
		},
	}
	if sv := s.SourceVisibility; sv != nil {
		v := withSpread(agent.VisibilityScore{Score: sv.Score, Interpretation: deref(sv.Interpretation)}, sv.Spread, sv.Change)
		d.Scores.SourceVisibility = &v
	}
	for _, c := range v.Input.Competitors {
		d.Competitors = append(d.Competitors, c.String())
	}
	for _, r := range v.Computed.Recommendations {
		d.Recommendations = append(d.Recommendations, agent.VisibilityAdvice{ID: r.ID, Priority: r.Priority, Title: r.Title, Detail: r.Detail, Evidence: r.Evidence})
	}
	return &agent.VisibilitySnapshot{
		Score: s.AIVisibility.Score, ShareOfVoice: s.ShareOfVoice.Score, Understanding: s.EntityUnderstanding.Score,
		CreatedAt: v.CreatedAt.UnixMilli(), Detail: d,
	}
}

// withSpread adds to a score how sure it is and its change, in the words
// the model must use (a change is "no significant change" unless its
// interval excludes 0).
func withSpread(sc agent.VisibilityScore, sp *scoring.Spread, ch *scoring.Change) agent.VisibilityScore {
	if sp != nil {
		sc.Answers, sc.Prompts = sp.N, sp.Prompts
		if sp.Interval != nil {
			sc.Interval = &agent.VisibilityInterval{Low: sp.Interval.Low, High: sp.Interval.High}
		}
	}
	if ch != nil {
		sc.Change = &agent.VisibilityChange{Value: ch.Value, Significant: ch.Significant, Says: ch.Says()}
		if ch.Interval != nil {
			sc.Change.Interval = &agent.VisibilityInterval{Low: ch.Interval.Low, High: ch.Interval.High}
		}
	}
	return sc
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
