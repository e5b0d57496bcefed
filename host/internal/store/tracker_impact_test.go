package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// The impact view's reads: the prompt answers without an error of the
// asked reports of the workspace, and their evidence bodies by report; no
// other workspace's, kind's or report's rows.
func TestImpactReadsOneWorkspacesAnswersAndEvidence(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		failed := "timeout"
		for _, a := range []store.VisibilityAnswer{
			{ReportID: "r1", WorkspaceID: "acme", Kind: "prompt", Engine: "gpt", Item: "0", Question: "q0", Text: "t0", Citations: `["https://a.com/x"]`},
			{ReportID: "r1", WorkspaceID: "acme", Kind: "prompt", Engine: "gpt", Item: "1", Question: "q1", Text: "t1", Error: &failed},
			{ReportID: "r1", WorkspaceID: "acme", Kind: "probe", Engine: "gpt", Item: "2", Question: "q2", Text: "t2"},
			{ReportID: "r2", WorkspaceID: "acme", Kind: "prompt", Engine: "sonar", Item: "0", Question: "q0", Text: "t3"},
			{ReportID: "r3", WorkspaceID: "acme", Kind: "prompt", Engine: "gpt", Item: "0", Question: "q0", Text: "not asked for"},
			{ReportID: "r9", WorkspaceID: "other", Kind: "prompt", Engine: "gpt", Item: "0", Question: "q0", Text: "another workspace"},
		} {
			if err := s.SaveVisibilityAnswer(ctx, &a); err != nil {
				t.Fatal(err)
			}
		}
		for ws, ids := range map[string][]string{"acme": {"r1", "r3"}, "other": {"r9"}} {
			for _, id := range ids {
				if err := s.SaveVisibilityEvidence(ctx, ws, id, 1, `[{"key":"`+id+`"}]`); err != nil {
					t.Fatal(err)
				}
			}
		}
		asked := []string{"r1", "r2", "r9"}
		got, err := s.ImpactAnswers(ctx, "acme", asked)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, a := range got {
			keys = append(keys, fmt.Sprintf("%s %s %s %s %s %s", a.ReportID, a.Engine, a.Item, a.Question, a.Text, a.Citations))
		}
		slices.Sort(keys)
		want := []string{`r1 gpt 0 q0 t0 ["https://a.com/x"]`, `r2 sonar 0 q0 t3 []`}
		if !slices.Equal(keys, want) {
			t.Errorf("answers %q, want %q", keys, want)
		}
		bodies, err := s.VisibilityEvidenceBodies(ctx, "acme", asked)
		if err != nil || len(bodies) != 1 || bodies["r1"] != `[{"key":"r1"}]` {
			t.Errorf("evidence %v %v, want r1's only", bodies, err)
		}
		if got, err := s.ImpactAnswers(ctx, "acme", nil); err != nil || len(got) != 0 {
			t.Errorf("no report: %v %v", got, err)
		}
	})
}
