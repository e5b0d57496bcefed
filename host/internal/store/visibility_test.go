package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestVisibilityReportsAndAnswersStayInTheirWorkspace(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		newReport := func(ws string, oneOff, refresh bool, at int64) *store.VisibilityReport {
			r := &store.VisibilityReport{WorkspaceID: ws, OneOff: oneOff, Refresh: refresh, WebsiteURL: "https://acme.com/",
				Input: `{}`, Engines: `["gpt"]`, CreditsMonth: "2026-11", CreditsReserved: 2, CreatedAt: at}
			if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
				t.Fatal(err)
			}
			return r
		}
		done := store.ReportCompleted
		first := newReport("acme", false, false, 1000)
		second := newReport("acme", false, true, 2000)
		oneOff := newReport("acme", true, false, 3000)
		newReport("acme", false, true, 4000) // still queued: not the latest
		for _, r := range []*store.VisibilityReport{first, second, oneOff} {
			if err := s.UpdateVisibilityReport(ctx, "acme", r.ID, store.ReportUpdate{State: &done}); err != nil {
				t.Fatal(err)
			}
		}
		if latest, err := s.LatestVisibilityReport(ctx, "acme", false); err != nil || latest.ID != second.ID {
			t.Fatalf("latest = %v, %v; want the second (one-offs and unfinished reports are not the latest)", latest.ID, err)
		}
		if oldest, err := s.LatestVisibilityReport(ctx, "acme", true); err != nil || oldest.ID != first.ID {
			t.Fatalf("oldest = %v, %v", oldest.ID, err)
		}
		if _, err := s.GetVisibilityReport(ctx, "other", first.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace read a report: %v", err)
		}
		if _, err := s.LatestVisibilityReport(ctx, "other", false); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace has a latest report: %v", err)
		}
		times, total, err := s.VisibilityRefreshes(ctx, "acme", 2000)
		if err != nil || total != 2 || len(times) != 1 || times[0] != 4000 {
			t.Fatalf("refreshes after 2000 = %v of %d (%v); the window excludes its start", times, total, err)
		}
		err = s.Tx(ctx, func(q store.Querier) error {
			if n, err := s.CountVisibilityReportsTx(ctx, q, "acme"); err != nil || n != 4 {
				t.Errorf("CountVisibilityReportsTx = %d %v, want 4", n, err)
			}
			if times, err := s.RefreshTimesTx(ctx, q, "acme", 1999); err != nil || fmt.Sprint(times) != "[2000 4000]" {
				t.Errorf("RefreshTimesTx after 1999 = %v %v, want [2000 4000]", times, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetVisibilityReportJob(ctx, nil, "other", first.ID, "job-other"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetVisibilityReportJob(ctx, nil, "acme", second.ID, "job-2"); err != nil {
			t.Fatal(err)
		}
		if r, _ := s.GetVisibilityReport(ctx, "acme", first.ID); r.JobID != nil {
			t.Fatalf("another workspace set the job of a report: %v", *r.JobID)
		}
		if r, _ := s.GetVisibilityReport(ctx, "acme", second.ID); r.JobID == nil || *r.JobID != "job-2" {
			t.Fatalf("job of the second report = %v, want job-2", r.JobID)
		}
		if ok, _ := s.SettleVisibilityCredits(ctx, "acme", first.ID); !ok {
			t.Fatal("first settle did nothing")
		}
		if ok, _ := s.SettleVisibilityCredits(ctx, "acme", first.ID); ok {
			t.Fatal("credits settled twice")
		}

		// A state and creation time given are kept; the defaults are queued and now.
		s.SetClock(func() time.Time { return time.UnixMilli(7777) })
		if got, _ := s.GetVisibilityReport(ctx, "acme", first.ID); got.CreatedAt != 1000 {
			t.Fatalf("a report created at 1000: %d", got.CreatedAt)
		}
		fresh := &store.VisibilityReport{WorkspaceID: "fresh", WebsiteURL: "https://f.test/", Input: `{}`, Engines: `[]`, CreditsMonth: "2026-11"}
		preset := &store.VisibilityReport{WorkspaceID: "fresh", State: store.ReportCompleted, WebsiteURL: "https://f.test/", Input: `{}`, Engines: `[]`, CreditsMonth: "2026-11", CreatedAt: 10}
		for _, r := range []*store.VisibilityReport{fresh, preset} {
			if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := s.GetVisibilityReport(ctx, "fresh", fresh.ID); got.State != store.ReportQueued || got.CreatedAt != 7777 {
			t.Fatalf("a report without state or time: %s at %d", got.State, got.CreatedAt)
		}
		if got, _ := s.GetVisibilityReport(ctx, "fresh", preset.ID); got.State != store.ReportCompleted || got.CreatedAt != 10 {
			t.Fatalf("a report created completed at 10: %s at %d", got.State, got.CreatedAt)
		}
		for item, at := range map[string]int64{"now": 0, "then": 20} {
			if err := s.SaveVisibilityAnswer(ctx, &store.VisibilityAnswer{ReportID: fresh.ID, WorkspaceID: "fresh", Kind: "probe", Engine: "gpt", Item: item, CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		answers, err := s.ListVisibilityAnswers(ctx, "fresh", fresh.ID, "probe")
		if err != nil || len(answers) != 2 {
			t.Fatalf("answers: %+v %v", answers, err)
		}
		for _, a := range answers {
			if want := map[string]int64{"now": 7777, "then": 20}[a.Item]; a.CreatedAt != want || a.AskedAt != want {
				t.Errorf("answer %s created %d asked %d, want %d", a.Item, a.CreatedAt, a.AskedAt, want)
			}
		}

		a := &store.VisibilityAnswer{ReportID: first.ID, WorkspaceID: "acme", Kind: "prompt", Engine: "gpt", Item: "0", Question: "best crm", Error: ptr("down"), AskedAt: 5000}
		if err := s.SaveVisibilityAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CachedVisibilityAnswer(ctx, "acme", "next", "prompt", "gpt", "best crm", 0, 0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a failed answer was offered from the cache: %v", err)
		}
		a.Error, a.Text = nil, "Acme is best"
		if err := s.SaveVisibilityAnswer(ctx, a); err != nil { // asked again: replaces the failure
			t.Fatal(err)
		}
		got, err := s.ListVisibilityAnswers(ctx, "acme", first.ID, "prompt")
		if err != nil || len(got) != 1 || got[0].Text != "Acme is best" || got[0].Error != nil || got[0].Citations != "[]" {
			t.Fatalf("answers = %+v, %v", got, err)
		}
		if c, err := s.CachedVisibilityAnswer(ctx, "acme", "next", "prompt", "gpt", "best crm", 5000, 0); err != nil || c.Text != "Acme is best" {
			t.Fatalf("cache at the window's start = %+v, %v", c, err)
		}
		for _, miss := range []struct {
			ws, engine, q string
			since         int64
		}{
			{"other", "gpt", "best crm", 0}, {"acme", "claude", "best crm", 0}, {"acme", "gpt", "best CRM", 0}, {"acme", "gpt", "best crm", 5001},
		} {
			if _, err := s.CachedVisibilityAnswer(ctx, miss.ws, "next", "prompt", miss.engine, miss.q, miss.since, 0); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("cache hit for %+v", miss)
			}
		}
		if l, _ := s.ListVisibilityAnswers(ctx, "other", first.ID, "prompt"); len(l) != 0 {
			t.Error("another workspace listed the answers")
		}
		// Samples: a report never reuses its own answers, the k-th sample
		// takes the k-th newest answer an engine gave, and a copy from the
		// cache is never offered again.
		if _, err := s.CachedVisibilityAnswer(ctx, "acme", first.ID, "prompt", "gpt", "best crm", 0, 0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a report's own answer was offered to another of its samples: %v", err)
		}
		if _, err := s.CachedVisibilityAnswer(ctx, "acme", "next", "prompt", "gpt", "best crm", 0, 1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("one stored answer was offered as a second sample: %v", err)
		}
		for _, sa := range []store.VisibilityAnswer{
			{ReportID: first.ID, WorkspaceID: "acme", Kind: "prompt", Engine: "gpt", Item: "0#2", Question: "best crm", Text: "Acme, again", AskedAt: 6000},
			{ReportID: "copy", WorkspaceID: "acme", Kind: "prompt", Engine: "gpt", Item: "0", Question: "best crm", Text: "Acme, again", AskedAt: 7000, Cached: true},
		} {
			if err := s.SaveVisibilityAnswer(ctx, &sa); err != nil {
				t.Fatal(err)
			}
		}
		for sample, want := range []string{"Acme, again", "Acme is best"} {
			if c, err := s.CachedVisibilityAnswer(ctx, "acme", "next", "prompt", "gpt", "best crm", 0, sample); err != nil || c.Text != want {
				t.Fatalf("sample %d from the cache = %+v, %v; want %q", sample, c, err, want)
			}
		}
		if _, err := s.CachedVisibilityAnswer(ctx, "acme", "next", "prompt", "gpt", "best crm", 0, 2); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a copy from the cache was offered as a sample: %v", err)
		}
	})
}

// TestAnswerMentionsAndEvidenceAreStoredPerReport stores the judge's
// verdicts, truncation marks and evidence beside a report.
func TestAnswerMentionsAndEvidenceAreStoredPerReport(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := s.SaveAnswerVerdicts(ctx, "acme", "r1", "gpt", "0", `["a"]`); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkAnswerTruncated(ctx, "acme", "r1", "gpt", "0"); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkAnswerTruncated(ctx, "acme", "r1", "gpt", "1"); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveAnswerVerdicts(ctx, "acme", "r1", "gpt", "1", `["b"]`); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListAnswerMentions(ctx, "acme", "r1")
		if err != nil || len(got) != 2 {
			t.Fatalf("mentions: %+v %v", got, err)
		}
		for _, m := range got {
			want := map[string]store.AnswerMentions{
				"0": {Engine: "gpt", Item: "0", Verdicts: `["a"]`, Truncated: true},
				"1": {Engine: "gpt", Item: "1", Verdicts: `["b"]`, Truncated: true},
			}[m.Item]
			if m != want {
				t.Errorf("mention %+v, want %+v", m, want)
			}
		}
		if got, err := s.ListAnswerMentions(ctx, "other", "r1"); err != nil || len(got) != 0 {
			t.Fatalf("another workspace's mentions: %+v %v", got, err)
		}
		for _, v := range []int{1, 2} {
			if err := s.SaveVisibilityEvidence(ctx, "acme", "r1", v, fmt.Sprint("body", v)); err != nil {
				t.Fatal(err)
			}
		}
		if v, body, err := s.GetVisibilityEvidence(ctx, "acme", "r1"); err != nil || v != 2 || body != "body2" {
			t.Fatalf("evidence: %d %q %v", v, body, err)
		}
		done := store.ReportCompleted
		for _, ws := range []string{"acme", "beta"} {
			r := &store.VisibilityReport{WorkspaceID: ws, WebsiteURL: "https://a.test/", Input: `{}`, Engines: `[]`, CreditsMonth: "2026-11", CreatedAt: 10}
			if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateVisibilityReport(ctx, ws, r.ID, store.ReportUpdate{State: &done}); err != nil {
				t.Fatal(err)
			}
		}
		if all, err := s.CompletedVisibilityReports(ctx, ""); err != nil || len(all) != 2 {
			t.Fatalf("completed reports of every workspace: %d %v", len(all), err)
		}
		if one, err := s.CompletedVisibilityReports(ctx, "beta"); err != nil || len(one) != 1 || one[0].WorkspaceID != "beta" {
			t.Fatalf("completed reports of beta: %+v %v", one, err)
		}
	})
}
