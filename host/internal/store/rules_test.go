package store_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Rules that callers rely on the store for, each broken to see red (issue
// 30): the user filter of session lists, the workspace of a tuned model,
// the lease of a claimed voice.

func TestChatSessionListsArePersonal(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, c := range []agentstore.ChatSession{
			{ID: "mine-1", WorkspaceID: "acme", UserID: "u1"},
			{ID: "teammate", WorkspaceID: "acme", UserID: "u2"},
			{ID: "mine-2", WorkspaceID: "acme", UserID: "u1"},
			{ID: "elsewhere", WorkspaceID: "other", UserID: "u1"},
		} {
			if err := agentstore.New(s).CreateChatSession(ctx, &c); err != nil {
				t.Fatal(err)
			}
		}
		// The teammate's session is the most recent; it must not show.
		if err := agentstore.New(s).AppendChatBlocks(ctx, "acme", "u2", "teammate", "t", "m", []agentstore.ChatBlock{{Role: "user", Type: "text", Content: `"x"`}}); err != nil {
			t.Fatal(err)
		}
		list, total, err := agentstore.New(s).ListChatSessions(ctx, "acme", "u1", 0, 10)
		var ids []string
		for _, c := range list {
			ids = append(ids, c.ID)
		}
		slices.Sort(ids)
		if err != nil || total != 2 || !slices.Equal(ids, []string{"mine-1", "mine-2"}) {
			t.Fatalf("u1's list: %v total %d %v, want mine-1 and mine-2 only", ids, total, err)
		}
		list, total, err = agentstore.New(s).ListChatSessions(ctx, "acme", "u2", 0, 10)
		if err != nil || total != 1 || len(list) != 1 || list[0].ID != "teammate" {
			t.Fatalf("u2's list: %+v total %d %v", list, total, err)
		}
		if list, total, _ := agentstore.New(s).ListChatSessions(ctx, "acme", "u3", 0, 10); total != 0 || len(list) != 0 {
			t.Fatalf("a user without sessions sees %d (%+v)", total, list)
		}
		if latest, err := agentstore.New(s).LatestChatSession(ctx, "acme", "u1"); err != nil || latest.ID == "teammate" || latest.WorkspaceID != "acme" {
			t.Fatalf("u1's latest: %+v %v", latest, err)
		}
	})
}

func TestATunedModelIsOnlyItsWorkspaces(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _, err := s.EnsureWorkspaceUser(ctx, "tuned-a", "business", "a@a.test")
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := s.EnsureWorkspaceUser(ctx, "tuned-b", "business", "b@b.test")
		c, _, _ := s.EnsureWorkspaceUser(ctx, "tuned-c", "business", "c@c.test")
		model := func(m string) *string { return &m }
		for _, j := range []finetunestore.FineTuningJob{
			{WorkspaceID: a.ID, Provider: "openai", Status: "succeeded", FineTunedModel: model("ft:a-old"), CreatedAt: 1000},
			{WorkspaceID: a.ID, Provider: "openai", Status: "succeeded", FineTunedModel: model("ft:a"), CreatedAt: 2000},
			// Newer but not usable: failed, running, or no model name.
			{WorkspaceID: a.ID, Provider: "openai", Status: "failed", FineTunedModel: model("ft:a-failed"), CreatedAt: 3000},
			{WorkspaceID: a.ID, Provider: "openai", Status: "running", CreatedAt: 4000},
			{WorkspaceID: a.ID, Provider: "openai", Status: "succeeded", FineTunedModel: model(""), CreatedAt: 5000},
			// Another workspace's, newest of all.
			{WorkspaceID: b.ID, Provider: "mistral", Status: "succeeded", FineTunedModel: model("ft:b"), CreatedAt: 9000},
		} {
			if err := finetunestore.New(s).InsertFineTuningJob(ctx, &j); err != nil {
				t.Fatal(err)
			}
		}
		got, err := finetunestore.New(s).LatestTunedModel(ctx, a.ID)
		if err != nil || got != (finetunestore.TunedModel{WorkspaceName: "tuned-a", Provider: "openai", Model: "ft:a"}) {
			t.Fatalf("workspace a: %+v %v, want its own newest succeeded model ft:a", got, err)
		}
		got, err = finetunestore.New(s).LatestTunedModel(ctx, b.ID)
		if err != nil || got != (finetunestore.TunedModel{WorkspaceName: "tuned-b", Provider: "mistral", Model: "ft:b"}) {
			t.Fatalf("workspace b: %+v %v", got, err)
		}
		// A job stored without a creation time is created now: the newest.
		s.SetClock(func() time.Time { return time.UnixMilli(9500) })
		if err := finetunestore.New(s).InsertFineTuningJob(ctx, &finetunestore.FineTuningJob{WorkspaceID: b.ID, Provider: "openai", Status: "succeeded", FineTunedModel: model("ft:b-now")}); err != nil {
			t.Fatal(err)
		}
		got, err = finetunestore.New(s).LatestTunedModel(ctx, b.ID)
		if err != nil || got.Model != "ft:b-now" {
			t.Fatalf("workspace b after a job created now: %+v %v, want ft:b-now", got, err)
		}
		// A refreshed status is stored, on the workspace's job only.
		job, err := finetunestore.New(s).LatestFineTuningJob(ctx, b.ID)
		if err != nil || *job.FineTunedModel != "ft:b-now" {
			t.Fatalf("latest job of b: %+v %v", job, err)
		}
		job.Status, job.FineTunedModel, job.FinishedAt = "failed", nil, ptr(int64(9600))
		if err := finetunestore.New(s).UpdateFineTuningJob(ctx, job); err != nil {
			t.Fatal(err)
		}
		stray := job
		stray.WorkspaceID, stray.Status = a.ID, "succeeded"
		if err := finetunestore.New(s).UpdateFineTuningJob(ctx, stray); err != nil {
			t.Fatal(err)
		}
		if job, err := finetunestore.New(s).LatestFineTuningJob(ctx, b.ID); err != nil || job.Status != "failed" || job.FineTunedModel != nil || *job.FinishedAt != 9600 {
			t.Fatalf("after the update: %+v %v", job, err)
		}
		if got, err := finetunestore.New(s).LatestTunedModel(ctx, b.ID); err != nil || got.Model != "ft:b" {
			t.Fatalf("workspace b after its newest job failed: %+v %v, want ft:b", got, err)
		}
		if got, err := finetunestore.New(s).LatestTunedModel(ctx, c.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a workspace without a tuned model got %+v %v, want ErrNotFound", got, err)
		}
	})
}

func TestAClaimedVoiceIsNotClaimedAgainUntilItsLeaseEnds(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		due := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
		lease := time.Hour.Milliseconds()
		url := "https://example.com/"
		wsp, user, err := s.EnsureWorkspaceUser(ctx, "voices", "business", "v@v.test")
		if err != nil {
			t.Fatal(err)
		}
		voice := func(ws string, active bool, next *int64) voicestore.Voice {
			v := voicestore.Voice{WorkspaceID: ws, UserID: user.ID, Scope: "team", Name: "site", Type: "website", URL: &url, Content: "profile", NextFetchAt: next}
			if err := voicestore.New(s).CreateVoice(ctx, &v); err != nil {
				t.Fatal(err)
			}
			if !active {
				if err := voicestore.New(s).DeactivateVoice(ctx, ws, user.ID, v.ID); err != nil {
					t.Fatal(err)
				}
			}
			return v
		}
		at := due
		v := voice(wsp.ID, true, &at)
		later := due + 1
		voice(wsp.ID, true, &later) // due a millisecond later
		voice(wsp.ID, true, nil)    // never refreshed
		voice(wsp.ID, false, &at)   // deleted
		claim := func(now int64) []string {
			t.Helper()
			keys, err := voicestore.New(s).ClaimDueVoices(ctx, now, now+lease, 10)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, k := range keys {
				if k.WorkspaceID != wsp.ID {
					t.Fatalf("claimed %+v", k)
				}
				ids = append(ids, k.ID)
			}
			return ids
		}
		if ids := claim(due - 1); len(ids) != 0 {
			t.Fatalf("claimed before due: %v", ids)
		}
		if ids := claim(due); !slices.Equal(ids, []string{v.ID}) {
			t.Fatalf("at its time: %v, want only %s", ids, v.ID)
		}
		if ids := claim(due); len(ids) != 0 {
			t.Fatalf("claimed twice at once: %v", ids)
		}
		// The other voice fell due meanwhile; the claimed one waits its lease.
		if ids := claim(due + lease - 1); len(ids) != 1 || ids[0] == v.ID {
			t.Fatalf("before the lease ends: %v, want only the later voice", ids)
		}
		if ids := claim(due + lease); !slices.Equal(ids, []string{v.ID}) {
			t.Fatalf("when the lease ends: %v, want %s again", ids, v.ID)
		}
		if got, err := voicestore.New(s).GetWorkspaceVoice(ctx, wsp.ID, v.ID); err != nil || got.NextFetchAt == nil || *got.NextFetchAt != due+2*lease {
			t.Fatalf("next fetch after the second claim: %+v %v", got.NextFetchAt, err)
		}
	})
}
