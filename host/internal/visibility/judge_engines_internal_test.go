package visibility

import (
	"testing"

	"github.com/heraldhq/herald/config"
)

// TestSearchPagesDoNotJudge: Google's AI answers are read from search
// pages, so without a configured judge the first engine that is a
// language model judges, and none when there is none.
func TestSearchPagesDoNotJudge(t *testing.T) {
	t.Parallel()
	routes := map[string]string{"google-ai-overview": "serpapi", "google-ai-mode": "dataforseo", "grok-4": "xai"}
	s := &Service{engineProvider: func(e string) string { return routes[e] }}
	for _, tc := range []struct {
		engines []string
		want    string
	}{
		{[]string{"google-ai-overview", "grok-4"}, "grok-4"},
		{[]string{"google-ai-mode", "google-ai-overview"}, ""},
		{[]string{"claude-sonnet-4-5"}, "claude-sonnet-4-5"},
	} {
		if got := s.judgeModel(tc.engines); got != tc.want {
			t.Errorf("judgeModel(%v) = %q, want %q", tc.engines, got, tc.want)
		}
	}
	s.cfg = config.Visibility{JudgeModel: "gpt-4o"}
	if got := s.judgeModel([]string{"google-ai-overview"}); got != "gpt-4o" {
		t.Errorf("the configured judge = %q", got)
	}
}
