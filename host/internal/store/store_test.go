package store_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/blobstore"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func ptr[T any](v T) *T { return &v }

func TestWorkspacesAndKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, u, err := s.EnsureWorkspaceUser(ctx, "acme", "pro", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		again, u2, err := s.EnsureWorkspaceUser(ctx, "acme", "free", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		if again.ID != ws.ID || u2.ID != u.ID || again.Plan != "pro" {
			t.Fatalf("ensure is not idempotent: %+v %+v", again, u2)
		}
		if err := s.CreateAPIKey(ctx, store.APIKey{WorkspaceID: ws.ID, UserID: u.ID, Prefix: "hk_abc", Hash: "h1"}); err != nil {
			t.Fatal(err)
		}
		err = s.CreateAPIKey(ctx, store.APIKey{WorkspaceID: ws.ID, UserID: u.ID, Prefix: "hk_abc", Hash: "h1"})
		if !s.IsConflict(err) {
			t.Fatalf("duplicate key hash: got %v, want a conflict", err)
		}
		p, stored, err := s.PrincipalByKeyHash(ctx, "h1")
		if err != nil {
			t.Fatal(err)
		}
		if stored != "h1" || p.Workspace.ID != ws.ID || p.UserID != u.ID || p.Workspace.Plan != "pro" {
			t.Fatalf("principal: %+v", p)
		}
		if _, _, err := s.PrincipalByKeyHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown key: got %v, want ErrNotFound", err)
		}
		if _, err := s.PrincipalByUser(ctx, ws.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := s.CountWorkspaces(ctx); err != nil || n != 1 {
			t.Fatalf("count: %d %v", n, err)
		}
	})
}

func TestEnsureWorkspaceUserIsSafeConcurrently(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		ids := make([]string, 8)
		errs := make([]error, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws, _, err := s.EnsureWorkspaceUser(ctx, "race", "free", "r@race.test")
				ids[i], errs[i] = ws.ID, err
			}()
		}
		wg.Wait()
		ok := 0
		for i := range ids {
			if errs[i] == nil {
				ok++
				if ids[i] != ids[0] && errs[0] == nil {
					t.Fatalf("two workspaces created: %s %s", ids[0], ids[i])
				}
			} else if !s.IsConflict(errs[i]) {
				t.Fatalf("unexpected error: %v", errs[i])
			}
		}
		if ok == 0 {
			t.Fatal("no call succeeded")
		}
		if n, _ := s.CountWorkspaces(ctx); n != 1 {
			t.Fatalf("workspaces: %d", n)
		}
	})
}

func TestVoicesAreScopedAndSoftDeleted(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		clock := time.UnixMilli(1_700_000_000_000)
		s.SetClock(func() time.Time { clock = clock.Add(time.Millisecond); return clock })
		ws, alice, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "alice@acme.test")
		_, bob, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "bob@acme.test")
		other, mallory, _ := s.EnsureWorkspaceUser(ctx, "other", "business", "m@other.test")

		team := &voicestore.Voice{WorkspaceID: ws.ID, UserID: alice.ID, Scope: "team", Name: "Team", Type: "text", Content: "hello"}
		personal := &voicestore.Voice{WorkspaceID: ws.ID, UserID: alice.ID, Scope: "personal", Name: "Mine", Type: "text", Content: "mïne", URL: ptr("https://a.test")}
		for _, v := range []*voicestore.Voice{team, personal} {
			if err := voicestore.New(s).CreateVoice(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		list, err := voicestore.New(s).ListVoices(ctx, ws.ID, alice.ID)
		if err != nil || len(list) != 2 || list[0].ID != personal.ID {
			t.Fatalf("alice list (newest first): %+v %v", list, err)
		}
		if *list[0].URL != "https://a.test" || list[1].URL != nil || !list[0].IsActive || list[0].ContentLength != 4 || list[0].Content != "" {
			t.Fatalf("nullable columns: %+v", list)
		}
		list, _ = voicestore.New(s).ListVoices(ctx, ws.ID, bob.ID)
		if len(list) != 1 || list[0].ID != team.ID {
			t.Fatalf("bob sees personal voice of alice: %+v", list)
		}
		if _, err := voicestore.New(s).GetVoice(ctx, ws.ID, bob.ID, personal.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("bob get personal: %v", err)
		}
		if _, err := voicestore.New(s).GetVoice(ctx, other.ID, mallory.ID, team.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other workspace get: %v", err)
		}
		if _, err := voicestore.New(s).UpdateVoice(ctx, other.ID, mallory.ID, team.ID, voicestore.VoiceUpdate{Name: ptr("x")}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other workspace update: %v", err)
		}
		up, err := voicestore.New(s).UpdateVoice(ctx, ws.ID, bob.ID, team.ID, voicestore.VoiceUpdate{Name: ptr("Renamed"), FetchInterval: ptr("weekly")})
		if err != nil || up.Name != "Renamed" || up.Content != "hello" || *up.FetchInterval != "weekly" || up.UpdatedAt <= up.CreatedAt {
			t.Fatalf("partial update: %+v %v", up, err)
		}
		up, err = voicestore.New(s).UpdateVoice(ctx, ws.ID, alice.ID, personal.ID, voicestore.VoiceUpdate{URL: ptr("https://b.test"), SourceText: ptr("source")})
		if err != nil || up.URL == nil || *up.URL != "https://b.test" || up.SourceText == nil || *up.SourceText != "source" || up.Name != "Mine" {
			t.Fatalf("url and source text update: %+v %v", up, err)
		}
		// Fields not in an update keep their values.
		up, err = voicestore.New(s).UpdateVoice(ctx, ws.ID, alice.ID, personal.ID, voicestore.VoiceUpdate{Name: ptr("Mine 2")})
		if err != nil || up.URL == nil || *up.URL != "https://b.test" || up.SourceText == nil || *up.SourceText != "source" || up.Name != "Mine 2" {
			t.Fatalf("a rename: %+v %v", up, err)
		}
		if got, err := voicestore.New(s).GetVoice(ctx, ws.ID, alice.ID, personal.ID); err != nil || got.URL == nil || *got.URL != "https://b.test" ||
			got.SourceText == nil || *got.SourceText != "source" || got.Name != "Mine 2" {
			t.Fatalf("the stored voice: %+v %v", got, err)
		}
		if err := voicestore.New(s).DeactivateVoice(ctx, other.ID, mallory.ID, team.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other workspace delete: %v", err)
		}
		if err := voicestore.New(s).DeactivateVoice(ctx, ws.ID, alice.ID, team.ID); err != nil {
			t.Fatal(err)
		}
		if err := voicestore.New(s).DeactivateVoice(ctx, ws.ID, alice.ID, team.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if _, err := voicestore.New(s).GetVoice(ctx, ws.ID, alice.ID, team.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted voice still fetchable: %v", err)
		}
		var active bool
		if err := storetest.QueryRow(ctx, s, `SELECT is_active FROM brand_voices WHERE id = $1`, team.ID).Scan(&active); err != nil || active {
			t.Fatalf("soft delete must keep the row inactive: active=%v err=%v", active, err)
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		if err := s.Migrate(context.Background()); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		if err := s.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestBlobsRoundTripTheirBytes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		data := []byte{0, 1, 2, 0xff, '\n', 'x'}
		if err := blobstore.New(s).PutBlob(ctx, "k/1", "image/png", data); err != nil {
			t.Fatal(err)
		}
		if err := blobstore.New(s).PutBlob(ctx, "k/1", "image/png", data); err == nil {
			t.Error("a key stored twice")
		}
		mime, got, err := blobstore.New(s).GetBlob(ctx, "k/1")
		if err != nil || mime != "image/png" || string(got) != string(data) {
			t.Fatalf("GetBlob = %q %v %v, want image/png %v", mime, got, err, data)
		}
		if err := blobstore.New(s).DeleteBlob(ctx, "k/1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := blobstore.New(s).GetBlob(ctx, "k/1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted blob: %v, want ErrNotFound", err)
		}
		if err := blobstore.New(s).DeleteBlob(ctx, "k/1"); err != nil {
			t.Fatalf("deleting a missing blob: %v", err)
		}
	})
}

// TestVoiceFetchesAreRecorded stores the outcomes of fetching a website
// voice: a success replaces the content, a failure keeps it, and a voice
// that is gone is ErrNotFound.
func TestVoiceFetchesAreRecorded(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, alice, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "alice@acme.test")
		v := &voicestore.Voice{WorkspaceID: ws.ID, UserID: alice.ID, Scope: "team", Name: "Site", Type: "website", Content: "old",
			URL: ptr("https://a.test"), LastFetch: &voicestore.VoiceFetch{At: 10, OK: false, Error: "timeout"}}
		if err := voicestore.New(s).CreateVoice(ctx, v); err != nil {
			t.Fatal(err)
		}
		get := func() voicestore.Voice {
			t.Helper()
			got, err := voicestore.New(s).GetVoice(ctx, ws.ID, alice.ID, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := get(); got.LastFetch == nil || *got.LastFetch != (voicestore.VoiceFetch{At: 10, Error: "timeout"}) {
			t.Fatalf("created with a failed fetch: %+v", got.LastFetch)
		}
		if err := voicestore.New(s).RecordVoiceFetch(ctx, ws.ID, v.ID, voicestore.VoiceFetch{At: 20, OK: true}, ptr("new"), ptr("source"), ptr(int64(99))); err != nil {
			t.Fatal(err)
		}
		got := get()
		if got.Content != "new" || got.SourceText == nil || *got.SourceText != "source" || got.LastFetch == nil ||
			*got.LastFetch != (voicestore.VoiceFetch{At: 20, OK: true}) || got.NextFetchAt == nil || *got.NextFetchAt != 99 {
			t.Fatalf("after a fetch: %+v %+v", got, got.LastFetch)
		}
		if err := voicestore.New(s).RecordVoiceFetch(ctx, ws.ID, v.ID, voicestore.VoiceFetch{At: 30, Error: "404"}, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		got = get()
		if got.Content != "new" || *got.LastFetch != (voicestore.VoiceFetch{At: 30, Error: "404"}) || got.NextFetchAt != nil {
			t.Fatalf("after a failed fetch: %+v %+v", got, got.LastFetch)
		}
		if err := voicestore.New(s).SetVoiceNextFetch(ctx, ws.ID, v.ID, ptr(int64(500))); err != nil {
			t.Fatal(err)
		}
		if got := get(); got.NextFetchAt == nil || *got.NextFetchAt != 500 {
			t.Fatalf("next fetch: %v", got.NextFetchAt)
		}
		if err := voicestore.New(s).RecordVoiceFetch(ctx, "other", v.ID, voicestore.VoiceFetch{At: 40, OK: true}, nil, nil, nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's voice: %v, want ErrNotFound", err)
		}
	})
}

func TestTheFirstWebsiteBecomesTheWorkspaceWebsite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "alice@acme.test")
		for _, site := range []string{"https://first.test", "https://second.test"} {
			if err := s.RecordWorkspaceWebsite(ctx, ws.ID, site); err != nil {
				t.Fatal(err)
			}
		}
		var website string
		if err := storetest.QueryRow(ctx, s, `SELECT website FROM workspaces WHERE id = $1`, ws.ID).Scan(&website); err != nil || website != "https://first.test" {
			t.Fatalf("website %q %v, want the first", website, err)
		}
	})
}

func TestWorkspaceAndUserSettersReportMissingRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, u, _ := s.EnsureWorkspaceUser(ctx, "acme", "free", "alice@acme.test")
		if err := s.SetWorkspacePlan(ctx, ws.ID, "pro"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetWorkspaceWebsite(ctx, ws.ID, "https://team.test"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetUserWebsite(ctx, u.ID, "https://alice.test"); err != nil {
			t.Fatal(err)
		}
		var plan, website string
		if err := storetest.QueryRow(ctx, s, `SELECT plan, website FROM workspaces WHERE id = $1`, ws.ID).Scan(&plan, &website); err != nil ||
			plan != "pro" || website != "https://team.test" {
			t.Fatalf("workspace: %q %q %v", plan, website, err)
		}
		if got, err := s.UserWebsite(ctx, u.ID); err != nil || got != "https://alice.test" {
			t.Fatalf("user website: %q %v", got, err)
		}
		for name, err := range map[string]error{
			"plan":         s.SetWorkspacePlan(ctx, "nope", "pro"),
			"website":      s.SetWorkspaceWebsite(ctx, "nope", "https://x.test"),
			"user website": s.SetUserWebsite(ctx, "nope", "https://x.test"),
		} {
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s of a missing row: %v, want ErrNotFound", name, err)
			}
		}
	})
}
