package agent

import (
	"context"

	"github.com/heraldhq/herald/host/internal/auth"
)

// VisibilityFunc returns the caller's latest completed visibility report,
// or nil when there is none yet (the host fills it from visibility's
// report, as GET /v1/ai/generate/seo-site-report answers it).
type VisibilityFunc func(ctx context.Context, p auth.Principal) (*VisibilitySnapshot, error)

// VisibilitySnapshot is the latest visibility report as the agent reads
// it: the headline scores for the context summary, and the detail that
// get_visibility_report gives the model.
type VisibilitySnapshot struct {
	Score, ShareOfVoice, Understanding float64
	// CreatedAt is epoch milliseconds.
	CreatedAt int64
	// Detail is the report given to the model; nil: the headline scores
	// only.
	Detail *VisibilityDetail
}

// VisibilityDetail is what get_visibility_report shows the model of a
// report: its inputs, engines, scores and recommendations (the JSON names
// are the report's).
type VisibilityDetail struct {
	WebsiteURL string `json:"websiteurl"`
	// Competitors are as the user gave them ("Name (domain)", a name or a
	// domain).
	Competitors     []string           `json:"competitors"`
	Prompts         []string           `json:"prompts"`
	Engines         []string           `json:"engines"`
	Scores          VisibilityScores   `json:"scores"`
	Recommendations []VisibilityAdvice `json:"recommendations"`
}

// VisibilityScores are a report's scores.
type VisibilityScores struct {
	AIVisibility        VisibilityScore  `json:"aiVisibility"`
	EntityUnderstanding VisibilityScore  `json:"entityUnderstanding"`
	ShareOfVoice        VisibilityScore  `json:"shareOfVoice"`
	SourceVisibility    *VisibilityScore `json:"sourceVisibility,omitempty"`
}

// VisibilityScore is one score (0-100), what it means, its value per
// engine, how sure it is (the answers and prompts it is computed over and
// its 95% interval, nil when there is none) and its change since the
// previous run (nil: no previous run).
type VisibilityScore struct {
	Score          float64             `json:"score"`
	Interpretation string              `json:"interpretation,omitempty"`
	Providers      map[string]*float64 `json:"providers,omitempty"`
	Answers        int                 `json:"answers,omitempty"`
	Prompts        int                 `json:"prompts,omitempty"`
	Interval       *VisibilityInterval `json:"interval,omitempty"`
	Change         *VisibilityChange   `json:"change,omitempty"`
}

// VisibilityInterval is a 95% interval.
type VisibilityInterval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// VisibilityChange is a score's change since the previous run: Says puts
// it in the words the model must use ("no significant change" unless the
// interval excludes 0).
type VisibilityChange struct {
	Value       float64             `json:"value"`
	Significant bool                `json:"significant"`
	Interval    *VisibilityInterval `json:"interval,omitempty"`
	Says        string              `json:"says"`
}

// VisibilityAdvice is one recommendation of a report and its evidence.
type VisibilityAdvice struct {
	ID       string   `json:"id"`
	Priority string   `json:"priority"`
	Title    string   `json:"title"`
	Detail   string   `json:"detail"`
	Evidence []string `json:"evidence"`
}
