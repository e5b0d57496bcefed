package quota_test

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestRoomIsRefusedAtEachKindsOwnCap(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := context.Background()
	ws, user, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := s.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
	for i := range 2 {
		if err := voicestore.New(s).CreateVoice(ctx, &voicestore.Voice{WorkspaceID: ws.ID, UserID: user.ID, Scope: "team", Name: "v", Type: "text", Content: "c"}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateWebhook(ctx, &store.Webhook{WorkspaceID: ws.ID, Name: "h", DisplayURL: "https://a.test/h", Sealed: "v1.x"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: ws.ID, SiteKey: fmt.Sprintf("ks_q%d", i), Domain: fmt.Sprintf("s%d.test", i), Name: "s", IsActive: true}); err != nil {
			t.Fatal(err)
		}
	}
	// Each kind has its own cap, so a cap read for the wrong kind shows.
	c := quota.New(s, config.Limits{MaxVoices: 2, MaxWebhooks: 3, MaxSites: 1, MaxSchedules: 1})
	full := func(kind store.Counted, max int) {
		t.Helper()
		err := c.Room(ctx, kind, ws.ID)
		want := fmt.Sprintf("this workspace has reached its limit of %d %s; delete some first", max, kind)
		if connect.CodeOf(err) != connect.CodeResourceExhausted || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want 429 %q", kind, err, want)
		}
	}
	room := func(c *quota.Checker, kind store.Counted, workspace string) {
		t.Helper()
		if err := c.Room(ctx, kind, workspace); err != nil {
			t.Errorf("%s in %s: %v, want room", kind, workspace, err)
		}
	}
	full(store.CountVoices, 2)           // 2 of 2: at the cap
	room(c, store.CountWebhooks, ws.ID)  // 2 of 3
	full(store.CountSites, 1)            // 2 of 1: over
	room(c, store.CountSchedules, ws.ID) // 0 of 1
	if err := s.CreateWebhook(ctx, &store.Webhook{WorkspaceID: ws.ID, Name: "h", DisplayURL: "https://a.test/h", Sealed: "v1.x"}); err != nil {
		t.Fatal(err)
	}
	full(store.CountWebhooks, 3)
	// Another workspace's count is its own.
	room(c, store.CountVoices, other.ID)
	// A cap of 0 is no cap; an unknown kind has none; a nil Checker checks nothing.
	room(quota.New(s, config.Limits{MaxWebhooks: 1}), store.CountVoices, ws.ID)
	room(c, store.Counted("posts"), ws.ID)
	room(nil, store.CountVoices, ws.ID)
	// Zero limits are the defaults (500 voices).
	room(quota.New(s, config.Limits{}), store.CountVoices, ws.ID)
}

func TestNamesAreCappedInCharacters(t *testing.T) {
	t.Parallel()
	c := quota.New(nil, config.Limits{MaxNameLength: 5})
	if err := c.Name("name", "héllo"); err != nil { // 5 characters, 6 bytes
		t.Errorf("5 characters: %v", err)
	}
	err := c.Name("title", "héllo!")
	if connect.CodeOf(err) != connect.CodeInvalidArgument || err.Error() != "invalid_argument: title is longer than 5 characters" {
		t.Errorf("6 characters: %v", err)
	}
	// Default 200, also for a nil Checker and a zero limit.
	for _, c := range []*quota.Checker{nil, quota.New(nil, config.Limits{MaxVoices: 1})} {
		if err := c.Name("name", strings.Repeat("x", 200)); err != nil {
			t.Errorf("200 characters: %v", err)
		}
		if err := c.Name("name", strings.Repeat("x", 201)); err == nil || !strings.Contains(err.Error(), "longer than 200 characters") {
			t.Errorf("201 characters: %v", err)
		}
	}
}

func TestTheSchedulerAPINeedsThePlanForKeysOnly(t *testing.T) {
	t.Parallel()
	table := plans.New(map[string]config.Plan{"pro": {}, "business": {SchedulerAPIAccess: true}})
	for _, tc := range []struct {
		plan string
		via  auth.Via
		ok   bool
	}{
		{"business", auth.ViaAPIKey, true},
		{"pro", auth.ViaAPIKey, false},
		{"unknown", auth.ViaAPIKey, false},
		{"pro", auth.ViaSession, true},
		{"unknown", auth.ViaSession, true},
	} {
		err := quota.SchedulerAPI(table, auth.Principal{Plan: tc.plan, Via: tc.via})
		if tc.ok != (err == nil) {
			t.Errorf("%s via %s: %v", tc.plan, tc.via, err)
		}
		if err != nil && (connect.CodeOf(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), "(this workspace is on the "+tc.plan+" plan)")) {
			t.Errorf("%s via %s: %v, want 403 naming the plan", tc.plan, tc.via, err)
		}
	}
}
