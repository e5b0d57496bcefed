package store_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func newSchedule(ws, status string, when *int64) *store.Schedule {
	return &store.Schedule{WorkspaceID: ws, UserID: "u1", ExportTo: "webhook", Status: status, WhenToExport: when, Content: `{"title":"t"}`}
}

func TestSchedulesPageNewestFirstWithTotalAndStayInTheirWorkspace(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var ids []string
		for i := range 45 {
			sc := newSchedule("acme", store.SchedulePending, ptr(int64(1000+i)))
			sc.CreatedAt = int64(1000 + i)
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, sc.ID)
		}
		if err := s.InsertSchedule(ctx, nil, newSchedule("other", store.ScheduleDraft, nil)); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			skip, want int
		}{{0, 20}, {20, 20}, {40, 5}, {60, 0}} {
			page, total, err := s.ListSchedules(ctx, "acme", tc.skip, 20)
			if err != nil {
				t.Fatal(err)
			}
			if total != 45 || len(page) != tc.want {
				t.Fatalf("skip %d: %d items of %d, want %d of 45", tc.skip, len(page), total, tc.want)
			}
			if tc.want > 0 && page[0].ID != ids[44-tc.skip] {
				t.Fatalf("skip %d: first is %s, want %s", tc.skip, page[0].ID, ids[44-tc.skip])
			}
		}
		if _, err := s.GetSchedule(ctx, "other", ids[0]); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's schedule: %v, want ErrNotFound", err)
		}
		if _, _, err := s.CancelSchedule(ctx, "other", ids[0]); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cancel from another workspace: %v, want ErrNotFound", err)
		}
		// A creation time given is kept; a missing one is the store's now.
		if got, err := s.GetSchedule(ctx, "acme", ids[3]); err != nil || got.CreatedAt != 1003 || got.UpdatedAt != 1003 {
			t.Fatalf("a schedule created at 1003: %+v %v", got, err)
		}
		s.SetClock(func() time.Time { return time.UnixMilli(7777) })
		sc := newSchedule("now", store.ScheduleDraft, nil)
		if err := s.InsertSchedule(ctx, nil, sc); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetSchedule(ctx, "now", sc.ID); err != nil || got.CreatedAt != 7777 || got.UpdatedAt != 7777 {
			t.Fatalf("a schedule created without a time at 7777: %+v %v", got, err)
		}
	})
}

func TestCancelScheduleFollowsTheStatusTable(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			name, status, want string
			err                error
			gone               bool
		}{
			{"a pending schedule is cancelled", store.SchedulePending, store.ScheduleCancelled, nil, false},
			{"a draft is removed", store.ScheduleDraft, "removed", nil, true},
			{"a failed schedule is removed", store.ScheduleFailed, "removed", nil, true},
			{"a cancelled schedule stays cancelled", store.ScheduleCancelled, store.ScheduleCancelled, nil, false},
			{"a publishing schedule is refused", store.SchedulePublishing, "", store.ErrScheduleBusy, false},
			{"a published schedule is refused", store.SchedulePublished, "", store.ErrScheduleBusy, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sc := newSchedule("acme", tc.status, ptr(int64(5)))
				if err := s.InsertSchedule(ctx, nil, sc); err != nil {
					t.Fatal(err)
				}
				before, got, err := s.CancelSchedule(ctx, "acme", sc.ID)
				if !errors.Is(err, tc.err) || got != tc.want {
					t.Fatalf("got %q, %v; want %q, %v", got, err, tc.want, tc.err)
				}
				if before.ID != sc.ID || before.Status != tc.status {
					t.Fatalf("before: %+v", before)
				}
				after, err := s.GetSchedule(ctx, "acme", sc.ID)
				if tc.gone != errors.Is(err, store.ErrNotFound) {
					t.Fatalf("after: %+v %v, gone want %v", after, err, tc.gone)
				}
			})
		}
	})
}

func TestOnlyOneOfManyWorkersClaimsASchedule(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		sc := newSchedule("acme", store.SchedulePending, ptr(int64(5)))
		if err := s.InsertSchedule(ctx, nil, sc); err != nil {
			t.Fatal(err)
		}
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, ok, err := s.ClaimSchedule(ctx, "acme", sc.ID); err != nil {
					t.Error(err)
				} else if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d claims won, want 1", wins.Load())
		}
		got, _ := s.GetSchedule(ctx, "acme", sc.ID)
		if got.Status != store.SchedulePublishing || got.Attempts != 1 || got.ClaimedAt == nil {
			t.Fatalf("claimed: %+v", got)
		}
		if _, _, err := s.CancelSchedule(ctx, "acme", sc.ID); !errors.Is(err, store.ErrScheduleBusy) {
			t.Fatalf("cancel while publishing: %v", err)
		}
	})
}

func TestOnlyTheOwningAttemptRecordsTheOutcome(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		sc := newSchedule("acme", store.SchedulePending, ptr(int64(5)))
		if err := s.InsertSchedule(ctx, nil, sc); err != nil {
			t.Fatal(err)
		}
		first, _, _ := s.ClaimSchedule(ctx, "acme", sc.ID)
		// The first attempt's host is presumed dead; another takes over.
		second, ok, err := s.ReclaimSchedule(ctx, "acme", sc.ID, first.Attempts)
		if err != nil || !ok || second.Attempts != 2 {
			t.Fatalf("reclaim: %+v %v %v", second, ok, err)
		}
		if _, ok, _ := s.ReclaimSchedule(ctx, "acme", sc.ID, first.Attempts); ok {
			t.Fatal("a second reclaim from the same attempt count won")
		}
		if ok, err := s.FinishSchedule(ctx, "acme", sc.ID, first.Attempts, store.ScheduleOutcome{Status: store.ScheduleFailed, Error: "late"}); err != nil || ok {
			t.Fatalf("stale attempt recorded: %v %v", ok, err)
		}
		if ok, err := s.FinishSchedule(ctx, "acme", sc.ID, second.Attempts, store.ScheduleOutcome{Status: store.SchedulePublished, ExternalID: "ext-1", ExternalURL: "https://x.test/1"}); err != nil || !ok {
			t.Fatalf("owner not recorded: %v %v", ok, err)
		}
		got, _ := s.GetSchedule(ctx, "acme", sc.ID)
		if got.Status != store.SchedulePublished || *got.ExternalID != "ext-1" || *got.ExternalURL != "https://x.test/1" || got.PublishedAt == nil || got.LastError != nil {
			t.Fatalf("published: %+v", got)
		}
	})
}

func TestARetryReturnsTheScheduleToPendingWithTheReason(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		sc := newSchedule("acme", store.SchedulePending, ptr(int64(5)))
		s.InsertSchedule(ctx, nil, sc)
		c, _, _ := s.ClaimSchedule(ctx, "acme", sc.ID)
		if ok, err := s.FinishSchedule(ctx, "acme", sc.ID, c.Attempts, store.ScheduleOutcome{Status: store.SchedulePending, Error: "webhook answered 500"}); !ok || err != nil {
			t.Fatal(ok, err)
		}
		got, _ := s.GetSchedule(ctx, "acme", sc.ID)
		if got.Status != store.SchedulePending || got.LastError == nil || *got.LastError != "webhook answered 500" {
			t.Fatalf("after retryable failure: %+v", got)
		}
		c2, ok, _ := s.ClaimSchedule(ctx, "acme", sc.ID)
		if !ok || c2.Attempts != 2 {
			t.Fatalf("second claim: %+v %v", c2, ok)
		}

		// A failed schedule is retried by hand once, back to pending.
		failed := newSchedule("acme", store.ScheduleFailed, ptr(int64(5)))
		failed.LastError = ptr("gone")
		if err := s.InsertSchedule(ctx, nil, failed); err != nil {
			t.Fatal(err)
		}
		retry := func(ws string) bool {
			t.Helper()
			var ok bool
			if err := s.Tx(ctx, func(q store.Querier) error {
				var err error
				ok, err = s.RetrySchedule(ctx, q, ws, failed.ID, 99, "job-r")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if retry("other") {
			t.Fatal("another workspace retried the schedule")
		}
		if !retry("acme") {
			t.Fatal("a failed schedule was not retried")
		}
		if retry("acme") {
			t.Fatal("a schedule retried twice")
		}
		got, _ = s.GetSchedule(ctx, "acme", failed.ID)
		if got.Status != store.SchedulePending || *got.WhenToExport != 99 || got.JobID == nil || *got.JobID != "job-r" || got.LastError != nil {
			t.Fatalf("after the retry: %+v", got)
		}
	})
}

func TestCountSchedulesByState(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, c := range []struct {
			ws, status string
			at         int64
		}{
			{"acme", store.SchedulePending, 100}, {"acme", store.SchedulePending, 2000}, {"acme", store.SchedulePublished, 500},
			{"acme", store.SchedulePublished, 1000}, {"acme", store.ScheduleFailed, 1500}, {"acme", store.ScheduleDraft, 1500},
			{"other", store.SchedulePending, 1500},
		} {
			sc := newSchedule(c.ws, c.status, ptr(int64(5)))
			sc.CreatedAt = c.at
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ScheduleCountsSince(ctx, "acme", 1000)
		if err != nil || got != (store.ScheduleCounts{Pending: 2, Published: 1, Failed: 1}) {
			t.Fatalf("CountSchedules since 1000 = %+v %v", got, err)
		}
	})
}

func TestOrphanSchedulesAreThoseWithoutALiveJob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := s.Now()
		mk := func(status string, when int64, jobState string) string {
			sc := newSchedule("acme", status, ptr(when))
			if jobState != "" {
				id := store.NewID()
				j := jobstore.Job{ID: id, WorkspaceID: "acme", Queue: "contentQueue", Name: "schedule.publish", State: jobState, Data: "{}", MaxAttempts: 3, RunAt: when, CreatedAt: now}
				if err := jobstore.New(s).InsertJobs(ctx, nil, []jobstore.Job{j}); err != nil {
					t.Fatal(err)
				}
				sc.JobID = &id
			}
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
			return sc.ID
		}
		noJob := mk(store.SchedulePending, now-10, "")
		failedJob := mk(store.SchedulePublishing, now-10, store.JobFailed)
		mk(store.SchedulePending, now-10, store.JobWaiting)
		mk(store.SchedulePending, now+60_000, "")
		mk(store.SchedulePublished, now-10, store.JobCompleted)
		got, err := s.OrphanSchedules(ctx, now, 100)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]string{}
		for _, o := range got {
			found[o.ID] = o.JobState
		}
		want := map[string]string{noJob: "", failedJob: store.JobFailed}
		if fmt.Sprint(found) != fmt.Sprint(want) {
			t.Fatalf("orphans %v, want %v", found, want)
		}
	})
}

func TestConnectionsAreUpsertedAndScopedByWorkspace(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := destinationstore.New(s).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: "acme", Destination: "wordpress", Sealed: "v1", Fields: []string{"siteUrl", "username"}}); err != nil {
			t.Fatal(err)
		}
		if err := destinationstore.New(s).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: "acme", Destination: "wordpress", Sealed: "v2", Fields: []string{"siteUrl"}}); err != nil {
			t.Fatal(err)
		}
		c, err := destinationstore.New(s).GetConnection(ctx, "acme", "wordpress")
		if err != nil || c.Sealed != "v2" || len(c.Fields) != 1 {
			t.Fatalf("get: %+v %v", c, err)
		}
		if _, err := destinationstore.New(s).GetConnection(ctx, "other", "wordpress"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other workspace: %v", err)
		}
		all, _ := destinationstore.New(s).ListConnections(ctx, "acme")
		if len(all) != 1 {
			t.Fatalf("list: %v", all)
		}
		check := destinationstore.ConnectionCheck{At: ptr(int64(42)), Result: "failed", Message: "401", Account: "bob"}
		if err := destinationstore.New(s).SetConnectionCheck(ctx, "acme", "wordpress", check, nil); err != nil {
			t.Fatal(err)
		}
		if err := destinationstore.New(s).SetConnectionCheck(ctx, "other", "wordpress", destinationstore.ConnectionCheck{Result: "ok"}, nil); err != nil {
			t.Fatalf("a check of a missing connection: %v", err)
		}
		if c, err := destinationstore.New(s).GetConnection(ctx, "acme", "wordpress"); err != nil || c.Check.At == nil || *c.Check.At != 42 ||
			c.Check.Result != "failed" || c.Check.Message != "401" || c.Check.Account != "bob" {
			t.Fatalf("the recorded check: %+v %v", c.Check, err)
		}
		if err := destinationstore.New(s).DeleteConnection(ctx, "other", "wordpress"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete from other workspace: %v", err)
		}
		if err := destinationstore.New(s).DeleteConnection(ctx, "acme", "wordpress"); err != nil {
			t.Fatal(err)
		}
		if err := destinationstore.New(s).DeleteConnection(ctx, "acme", "wordpress"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	})
}

func TestDeletedWebhooksLoseTheirSecretsAndDisappear(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		w := &store.Webhook{WorkspaceID: "acme", Name: "n", DisplayURL: "https://h.test/x", Sealed: "sealed"}
		if err := s.CreateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
		if list, _ := s.ListWebhooks(ctx, "acme"); len(list) != 1 {
			t.Fatalf("list: %v", list)
		}
		if _, err := s.GetWebhook(ctx, "other", w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other workspace: %v", err)
		}
		if _, err := s.DeleteWebhook(ctx, "acme", w.ID, false, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetWebhook(ctx, "acme", w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("after delete: %v", err)
		}
		if list, _ := s.ListWebhooks(ctx, "acme"); len(list) != 0 {
			t.Fatalf("list after delete: %v", list)
		}
		var sealed string
		storetest.QueryRow(ctx, s, `SELECT sealed FROM webhooks WHERE id = $1`, w.ID).Scan(&sealed)
		if sealed != "" {
			t.Fatalf("deleted webhook keeps its secrets: %q", sealed)
		}

		// A webhook that pending schedules use is deleted only by force,
		// which fails those schedules with the reason.
		used := &store.Webhook{WorkspaceID: "acme", Name: "u", DisplayURL: "https://h.test/y", Sealed: "sealed"}
		if err := s.CreateWebhook(ctx, used); err != nil {
			t.Fatal(err)
		}
		sc := newSchedule("acme", store.SchedulePending, ptr(int64(5)))
		sc.WebhookID = &used.ID
		if err := s.InsertSchedule(ctx, nil, sc); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteWebhook(ctx, "acme", used.ID, false, ""); !errors.Is(err, store.ErrWebhookInUse) {
			t.Fatalf("deleting a webhook in use: %v, want ErrWebhookInUse", err)
		}
		using, err := s.DeleteWebhook(ctx, "acme", used.ID, true, "webhook deleted")
		if err != nil || len(using) != 1 || using[0].ID != sc.ID {
			t.Fatalf("forced delete: %+v %v, want the schedule that used it", using, err)
		}
		got, _ := s.GetSchedule(ctx, "acme", sc.ID)
		if got.Status != store.ScheduleFailed || got.LastError == nil || *got.LastError != "webhook deleted" {
			t.Fatalf("the schedule after a forced delete: %+v", got)
		}
		if _, err := s.GetWebhook(ctx, "acme", used.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a webhook deleted by force: %v, want ErrNotFound", err)
		}
	})
}

// TestScheduleImagesAreUnneededOnceNoLiveScheduleNamesThem tracks images
// and schedules naming them: an image is swept once it is older than the
// cutoff and no schedule but cancelled ones names it.
func TestScheduleImagesAreUnneededOnceNoLiveScheduleNamesThem(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := int64(1_000_000)
		s.SetClock(func() time.Time { return time.UnixMilli(now) })
		for i, key := range []string{"img/orphan", "img/live", "img/cancelled", "img/new"} {
			now = int64(1_000_000 + i)
			if key == "img/new" {
				now = 2_000_000
			}
			if err := s.TrackScheduleImage(ctx, "acme", key); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.TrackScheduleImage(ctx, "acme", "img/orphan"); err == nil {
			t.Error("an image tracked twice")
		}
		live := newSchedule("acme", store.SchedulePending, ptr(int64(5000)))
		live.ImageKey = ptr("img/live")
		cancelled := newSchedule("acme", store.SchedulePending, ptr(int64(5000)))
		cancelled.ImageKey = ptr("img/cancelled")
		for _, sc := range []*store.Schedule{live, cancelled} {
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
		}
		needed := func(key string, want bool) {
			t.Helper()
			got, err := s.ScheduleImageNeeded(ctx, key)
			if err != nil || got != want {
				t.Errorf("ScheduleImageNeeded(%s) = %v %v, want %v", key, got, err, want)
			}
		}
		unneeded := func(before int64, limit int, want ...string) {
			t.Helper()
			got, err := s.UnneededScheduleImages(ctx, before, limit)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("UnneededScheduleImages(%d, %d) = %q %v, want %q", before, limit, got, err, want)
			}
		}
		needed("img/live", true)
		needed("img/cancelled", true)
		needed("img/orphan", false)
		unneeded(1_500_000, 10, "img/orphan")
		if _, _, err := s.CancelSchedule(ctx, "acme", cancelled.ID); err != nil {
			t.Fatal(err)
		}
		needed("img/cancelled", false)
		unneeded(1_500_000, 10, "img/orphan", "img/cancelled")
		unneeded(1_500_000, 1, "img/orphan")
		unneeded(1_000_000, 10)                                           // stored at the cutoff: kept
		unneeded(2_000_001, 10, "img/orphan", "img/cancelled", "img/new") // oldest first
		if err := s.ForgetScheduleImage(ctx, "img/orphan"); err != nil {
			t.Fatal(err)
		}
		unneeded(1_500_000, 10, "img/cancelled")
	})
}
