package voice_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
)

// noFetch is a Fetcher the lease test never reaches: its jobs do not run.
type noFetch struct{}

func (noFetch) Crawl(context.Context, string) (site.Site, error) {
	return site.Site{}, errors.New("not fetched in this test")
}

func (noFetch) FetchFile(context.Context, string) (site.File, error) {
	return site.File{}, errors.New("not fetched in this test")
}

// TestAClaimedWebsiteVoiceIsNotClaimedAgainForAnHour: should its refresh
// job be lost (here the queue never runs it), the voice comes back after
// the hour's lease, not before.
func TestAClaimedWebsiteVoiceIsNotClaimedAgainForAnHour(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	ctx := context.Background()
	q, err := jobs.New(jobs.Options{Store: st}) // never started: jobs stay queued
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	svc, err := voice.New(voice.Deps{Store: st, Fetcher: noFetch{}, Queue: q, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ws, u, err := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	url, due := "https://example.com/", now.UnixMilli()
	if err := voicestore.New(st).CreateVoice(ctx, &voicestore.Voice{WorkspaceID: ws.ID, UserID: u.ID, Scope: "team", Name: "site", Type: "website", URL: &url, Content: "p", NextFetchAt: &due}); err != nil {
		t.Fatal(err)
	}
	refresh := func() int {
		t.Helper()
		ids, err := svc.RefreshDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(ids)
	}
	if n := refresh(); n != 1 {
		t.Fatalf("due: %d refresh jobs, want 1", n)
	}
	now = now.Add(time.Hour - time.Millisecond)
	if n := refresh(); n != 0 {
		t.Fatalf("claimed again before the hour: %d", n)
	}
	now = now.Add(time.Millisecond)
	if n := refresh(); n != 1 {
		t.Fatalf("after the hour: %d refresh jobs, want the lost one again", n)
	}
}
