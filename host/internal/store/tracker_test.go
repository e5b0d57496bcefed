package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func trackerIDs(ts []store.Tracker) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}

// TestTrackersCapClaimAndRecordTheirRuns walks visibility trackers through
// their life on both backends: the active-tracker cap on create and
// activate, due trackers, slot claims, recorded runs and skips, and delete.
func TestTrackersCapClaimAndRecordTheirRuns(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w, _, err := s.EnsureWorkspaceUser(ctx, "trackers", "pro", "u@t.test")
		if err != nil {
			t.Fatal(err)
		}
		tx := func(fn func(q store.Querier) error) error { return s.Tx(ctx, fn) }
		create := func(active bool, next, created int64, limit int) (*store.Tracker, error) {
			tr := &store.Tracker{WorkspaceID: w.ID, WebsiteURL: "https://t.test/", Input: "{}", Engines: "[]", Cadence: "daily",
				Active: active, SlotMinute: 5, NextRunAt: next, CreatedAt: created, UpdatedAt: created}
			return tr, tx(func(q store.Querier) error { return s.CreateTracker(ctx, q, tr, limit) })
		}
		t1, err := create(true, 1000, 100, 2)
		if err != nil || t1.ID == "" {
			t.Fatalf("first tracker: %q %v", t1.ID, err)
		}
		t2, err := create(true, 500, 200, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := create(true, 100, 300, 2); !errors.Is(err, store.ErrTrackerCap) {
			t.Fatalf("a third active tracker of 2: %v, want ErrTrackerCap", err)
		}
		t3, err := create(false, 100, 300, 2) // paused: not counted
		if err != nil {
			t.Fatalf("a paused third tracker: %v", err)
		}

		if got, err := s.GetTracker(ctx, w.ID, t2.ID); err != nil || got != *t2 {
			t.Fatalf("GetTracker = %+v %v, want %+v", got, err, *t2)
		}
		if _, err := s.GetTracker(ctx, "other", t2.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's tracker: %v, want ErrNotFound", err)
		}
		list, err := s.ListTrackers(ctx, w.ID)
		if err != nil || !slices.Equal(trackerIDs(list), []string{t1.ID, t2.ID, t3.ID}) {
			t.Fatalf("ListTrackers = %v %v, want oldest first", trackerIDs(list), err)
		}
		if list, err := s.ListTrackers(ctx, "other"); err != nil || len(list) != 0 {
			t.Fatalf("another workspace lists %v %v", trackerIDs(list), err)
		}
		for _, c := range []struct {
			now   int64
			limit int
			want  []string
		}{{1000, 10, []string{t2.ID, t1.ID}}, {999, 10, []string{t2.ID}}, {1000, 1, []string{t2.ID}}, {499, 10, nil}} {
			due, err := s.DueTrackers(ctx, c.now, c.limit)
			if err != nil || !slices.Equal(trackerIDs(due), c.want) {
				t.Errorf("DueTrackers(%d, %d) = %v %v, want %v (paused ones never)", c.now, c.limit, trackerIDs(due), err, c.want)
			}
		}

		// Activating the paused one passes the cap only with room; an
		// update of an active tracker is not checked again.
		update := func(tr store.Tracker, wasActive bool, limit int) error {
			return tx(func(q store.Querier) error { return s.UpdateTracker(ctx, q, tr, wasActive, limit) })
		}
		on := *t3
		on.Active = true
		if err := update(on, false, 2); !errors.Is(err, store.ErrTrackerCap) {
			t.Fatalf("activating a third of 2: %v, want ErrTrackerCap", err)
		}
		on.Cadence = "weekly"
		if err := update(on, false, 3); err != nil {
			t.Fatalf("activating a third of 3: %v", err)
		}
		if got, _ := s.GetTracker(ctx, w.ID, t3.ID); !got.Active || got.Cadence != "weekly" {
			t.Fatalf("after the update: %+v", got)
		}
		if err := update(on, true, 1); err != nil {
			t.Fatalf("updating an active tracker over a lowered cap: %v", err)
		}
		other := *t1
		other.WorkspaceID = "other"
		if err := update(other, true, 10); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("updating another workspace's tracker: %v, want ErrNotFound", err)
		}

		// A slot is claimed once; the claim records how late it started.
		claim := func(tr *store.Tracker, slot, next, now int64, host string) bool {
			t.Helper()
			var ok bool
			if err := tx(func(q store.Querier) error {
				var err error
				ok, err = s.ClaimTrackerSlot(ctx, q, *tr, slot, next, now, host)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !claim(t2, 500, 1500, 520, "h1") {
			t.Fatal("the first claim of a slot failed")
		}
		if claim(t2, 500, 1500, 530, "h2") {
			t.Fatal("a slot was claimed twice")
		}
		if !claim(t1, 1000, 2000, 990, "h2") {
			t.Fatal("a claim before the slot time failed")
		}
		if due, _ := s.DueTrackers(ctx, 1000, 10); !slices.Equal(trackerIDs(due), []string{t3.ID}) {
			t.Fatalf("due after the claims: %v, want only the activated tracker", trackerIDs(due))
		}

		record := func(tr *store.Tracker, slot int64, report string, started, late int64) {
			t.Helper()
			if err := tx(func(q store.Querier) error {
				return s.RecordTrackerRun(ctx, q, w.ID, tr.ID, slot, report, started, late)
			}); err != nil {
				t.Fatal(err)
			}
		}
		record(t2, 500, "r1", 521, 21)
		got, _ := s.GetTracker(ctx, w.ID, t2.ID)
		if got.LastRunAt == nil || *got.LastRunAt != 521 || got.LastReportID == nil || *got.LastReportID != "r1" || got.LastLateMs == nil || *got.LastLateMs != 21 {
			t.Fatalf("after a slot's run: %+v", got)
		}
		record(t2, 0, "r2", 900, 999) // by hand: keeps the slot's lateness
		got, _ = s.GetTracker(ctx, w.ID, t2.ID)
		if *got.LastRunAt != 900 || *got.LastReportID != "r2" || got.LastLateMs == nil || *got.LastLateMs != 21 {
			t.Fatalf("after a run by hand: %+v", got)
		}
		if err := s.RecordTrackerSkip(ctx, nil, w.ID, t1.ID, 1000, 995, "no credits"); err != nil {
			t.Fatal(err)
		}
		got, _ = s.GetTracker(ctx, w.ID, t1.ID)
		if got.LastSkipAt == nil || *got.LastSkipAt != 995 || got.LastSkipReason == nil || *got.LastSkipReason != "no credits" {
			t.Fatalf("after a skip: %+v", got)
		}
		if err := tx(func(q store.Querier) error { return s.RecordTrackerSkip(ctx, q, w.ID, t1.ID, 0, 996, "by hand") }); err != nil {
			t.Fatal(err)
		}
		runs := func(tr *store.Tracker) string {
			t.Helper()
			rs, err := s.TrackerSlotRuns(ctx, w.ID, tr.ID)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rs {
				out = append(out, fmt.Sprintf("%v/%d report %v skip %v started %d late %d on %s", r.TrackerID == tr.ID, r.Slot,
					deref(r.ReportID), deref(r.SkipReason), r.StartedAt, r.LateMs, r.Host))
			}
			return fmt.Sprint(out)
		}
		if got, want := runs(t2), "[true/500 report r1 skip  started 520 late 20 on h1]"; got != want {
			t.Errorf("runs of t2:\n %s\nwant\n %s", got, want)
		}
		if got, want := runs(t1), "[true/1000 report  skip no credits started 990 late 0 on h2]"; got != want {
			t.Errorf("runs of t1:\n %s\nwant\n %s", got, want)
		}
		if rs, err := s.TrackerSlotRuns(ctx, "other", t1.ID); err != nil || len(rs) != 0 {
			t.Fatalf("another workspace reads runs: %v %v", rs, err)
		}

		if err := s.DeleteTracker(ctx, "other", t1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace deleted: %v", err)
		}
		if err := s.DeleteTracker(ctx, w.ID, t1.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetTracker(ctx, w.ID, t1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted tracker: %v", err)
		}
		if got := runs(t1); got != "[]" {
			t.Fatalf("runs of a deleted tracker: %s", got)
		}
		if err := s.DeleteTracker(ctx, w.ID, t1.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted twice: %v", err)
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestTrackerReportsAndAnswers reads a tracker's completed runs around a
// cutoff, the previous report of a series, and the answers of many reports
// (more than one statement's list).
func TestTrackerReportsAndAnswers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		done := store.ReportCompleted
		report := func(tracker *string, oneOff bool, at int64, completed bool) *store.VisibilityReport {
			t.Helper()
			r := &store.VisibilityReport{WorkspaceID: "acme", OneOff: oneOff, WebsiteURL: "https://acme.com/", Input: `{}`, Engines: `["gpt"]`,
				CreditsMonth: "2026-11", CreatedAt: at, TrackerID: tracker}
			if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
				t.Fatal(err)
			}
			if completed {
				if err := s.UpdateVisibilityReport(ctx, "acme", r.ID, store.ReportUpdate{State: &done}); err != nil {
					t.Fatal(err)
				}
			}
			return r
		}
		tr := ptr("tr1")
		r1 := report(tr, false, 1000, true)
		r2 := report(tr, false, 2000, true)
		report(tr, false, 2500, false) // not completed
		r3 := report(tr, false, 3000, true)
		h1 := report(nil, false, 1500, true)
		report(nil, true, 1600, true) // one-off: no series
		h2 := report(nil, false, 2600, true)

		before, runs, err := s.TrackerReports(ctx, "acme", "tr1", 2000)
		if err != nil || before == nil || before.ID != r1.ID || len(runs) != 2 || runs[0].ID != r2.ID || runs[1].ID != r3.ID {
			t.Fatalf("TrackerReports since 2000: %v %v %v", before, runs, err)
		}
		before, runs, err = s.TrackerReports(ctx, "acme", "tr1", 1000)
		if err != nil || before != nil || len(runs) != 3 {
			t.Fatalf("TrackerReports since the first: %v %d runs %v", before, len(runs), err)
		}
		for _, c := range []struct {
			r    *store.VisibilityReport
			want string
		}{{r3, r2.ID}, {r2, r1.ID}, {h2, h1.ID}, {r1, ""}, {h1, ""}} {
			prev, err := s.PreviousCompletedReport(ctx, *c.r)
			if c.want == "" {
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("previous of the first of a series: %v %v, want ErrNotFound", prev.ID, err)
				}
				continue
			}
			if err != nil || prev.ID != c.want {
				t.Errorf("previous of %d: %v %v, want %v", c.r.CreatedAt, prev.ID, err, c.want)
			}
		}

		for _, r := range []*store.VisibilityReport{r1, r3} {
			for _, kind := range []string{"prompt", "probe"} {
				a := &store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: "acme", Kind: kind, Engine: "gpt", Item: "0", Question: "q " + r.ID, AskedAt: 5000}
				if err := s.SaveVisibilityAnswer(ctx, a); err != nil {
					t.Fatal(err)
				}
			}
		}
		ids := make([]string, 501)
		for i := range ids {
			ids[i] = fmt.Sprintf("none-%d", i)
		}
		ids[0], ids[500] = r1.ID, r3.ID // in the first and the second statement
		answers, err := s.ReportAnswers(ctx, "acme", ids)
		if err != nil || len(answers) != 2 {
			t.Fatalf("ReportAnswers of 501 ids: %d answers %v, want the 2 prompt answers", len(answers), err)
		}
		got := []string{answers[0].Question, answers[1].Question}
		slices.Sort(got)
		want := []string{"q " + r1.ID, "q " + r3.ID}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("answers %v, want %v", got, want)
		}
		if answers, err := s.ReportAnswers(ctx, "other", ids); err != nil || len(answers) != 0 {
			t.Fatalf("another workspace's answers: %v %v", answers, err)
		}
		if answers, err := s.ReportAnswers(ctx, "acme", nil); err != nil || answers == nil || len(answers) != 0 {
			t.Fatalf("no reports: %v %v, want an empty list", answers, err)
		}
	})
}
