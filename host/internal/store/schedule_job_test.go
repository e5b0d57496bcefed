package store_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// ReplaceScheduleJob is a compare-and-set on the schedule's job: of two
// reconcilers that saw the same job, only the first replaces it.
func TestReplaceScheduleJobReplacesOnlyTheJobSeen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, u, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		when := s.Now()
		sc := store.Schedule{WorkspaceID: ws.ID, UserID: u.ID, ExportTo: "webhook", Status: store.SchedulePending, WhenToExport: &when, Content: "{}"}
		if err := s.InsertSchedule(ctx, nil, &sc); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.ReplaceScheduleJob(ctx, nil, ws.ID, sc.ID, nil, "j1"); !ok || err != nil {
			t.Fatalf("first job of a schedule without one: %v %v", ok, err)
		}
		if ok, err := s.ReplaceScheduleJob(ctx, nil, ws.ID, sc.ID, nil, "j-late"); ok || err != nil {
			t.Fatalf("a second reconciler that saw no job replaced j1: %v %v", ok, err)
		}
		old := "j1"
		if ok, err := s.ReplaceScheduleJob(ctx, nil, ws.ID, sc.ID, &old, "j2"); !ok || err != nil {
			t.Fatalf("replace j1: %v %v", ok, err)
		}
		if ok, err := s.ReplaceScheduleJob(ctx, nil, ws.ID, sc.ID, &old, "j3"); ok || err != nil {
			t.Fatalf("a reconciler that saw j1 replaced j2: %v %v", ok, err)
		}
		if got, err := s.GetSchedule(ctx, ws.ID, sc.ID); err != nil || got.JobID == nil || *got.JobID != "j2" {
			t.Fatalf("job after the races: %v, %v", got.JobID, err)
		}
	})
}
