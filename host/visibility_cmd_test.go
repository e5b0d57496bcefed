package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// A report stored under scoring version 1 (Initech counted from a URL) is
// recomputed from its stored answers by `herald visibility rescore`.
func TestVisibilityRescoreRecomputesStoredReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, err := herald(t, dir, "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, errOut)
	}
	ctx := context.Background()
	st := openTestStore(t, dir)
	ws, _, err := st.EnsureWorkspaceUser(ctx, "growth", "business", "a@growth.test")
	if err != nil {
		t.Fatal(err)
	}
	site := `{"reached":true,"facts":{"url":"https://acme.com/","domain":"acme.com","title":"Acme | Widgets"}}`
	brands := `[{"name":"Acme","slug":"acme","self":true,"aliases":["Acme"],"domains":["acme.com"]},{"name":"initech.io","slug":"initech_io","self":false,"aliases":["initech"],"domains":["initech.io"]}]`
	old := `{"scores":{"aiVisibility":{"score":75,"interpretation":"strong","providers":{"gpt":75}}},"geo":{"brands":[]}}`
	r := &store.VisibilityReport{WorkspaceID: ws.ID, State: store.ReportCompleted, WebsiteURL: "https://acme.com/",
		Input: `{"websiteurl":"https://acme.com/","competitors":["https://initech.io"],"prompts":["best widgets"]}`, Engines: `["gpt"]`,
		Brands: &brands, Site: &site, Result: &old, CreditsMonth: "2026-11", CreditsReserved: 1}
	if err := st.CreateVisibilityReport(ctx, nil, r); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveVisibilityAnswer(ctx, &store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: ws.ID, Kind: "prompt", Engine: "gpt", Item: "0",
		Question: "best widgets", Text: "See https://initech.io/widgets; Acme is good."}); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := herald(t, dir, "visibility", "rescore", "--workspace", "growth")
	if err != nil {
		t.Fatalf("rescore: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "aiVisibility 75.0 (scoring v1) -> 100.0 (v3)") || !strings.Contains(out, "Rescored 1 report(s)") {
		t.Errorf("rescore output:\n%s", out)
	}
	got, err := st.GetVisibilityReport(ctx, ws.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var c scoring.Computed
	if err := json.Unmarshal([]byte(*got.Result), &c); err != nil || c.ScoringVersion != analysis.ScoringVersion || c.Scores.AIVisibility.Score != 100 {
		t.Errorf("rescored result: %s (%v)", *got.Result, err)
	}
	if _, _, err := herald(t, dir, "visibility", "rescore", "--workspace", "nope"); err == nil || !strings.Contains(err.Error(), `no workspace "nope"`) {
		t.Errorf("unknown workspace: %v", err)
	}
}
