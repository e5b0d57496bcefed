package adminstore_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/adminstore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestAdminKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, ua, err := s.EnsureWorkspaceUser(ctx, "a", "pro", "u@a.test")
		if err != nil {
			t.Fatal(err)
		}
		b, ub, err := s.EnsureWorkspaceUser(ctx, "b", "free", "u@b.test")
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range []store.APIKey{{WorkspaceID: a.ID, UserID: ua.ID, Prefix: "hk_a", Hash: "ha"}, {WorkspaceID: b.ID, UserID: ub.ID, Prefix: "hk_b", Hash: "hb"}} {
			k.ID = []string{"ka", "kb"}[i]
			if err := s.CreateAPIKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		all, err := adminstore.New(s).ListAPIKeys(ctx, "")
		if err != nil || len(all) != 2 {
			t.Fatalf("all keys: %v %+v", err, all)
		}
		onlyA, err := adminstore.New(s).ListAPIKeys(ctx, a.ID)
		if err != nil || len(onlyA) != 1 || onlyA[0].ID != "ka" || onlyA[0].UserEmail != "u@a.test" {
			t.Fatalf("keys of a: %v %+v", err, onlyA)
		}
		next := &store.APIKey{Prefix: "hk_n", Hash: "hn"}
		if err := adminstore.New(s).RevokeAPIKey(ctx, "kb", next); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.PrincipalByKeyHash(ctx, "hb"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked key still valid: %v", err)
		}
		p, _, err := s.PrincipalByKeyHash(ctx, "hn")
		if err != nil || p.Workspace.ID != b.ID || p.UserID != ub.ID {
			t.Fatalf("rotated key: %+v %v", p, err)
		}
		if err := adminstore.New(s).RevokeAPIKey(ctx, "kb", nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke twice: %v, want ErrNotFound", err)
		}
		// A creation time given is kept, a missing one is the store's now.
		s.SetClock(func() time.Time { return time.UnixMilli(7777) })
		for id, at := range map[string]int64{"kt": 1234, "kn": 0} {
			if err := s.CreateAPIKey(ctx, store.APIKey{ID: id, WorkspaceID: a.ID, UserID: ua.ID, Prefix: "hk_" + id, Hash: "h" + id, CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		keys, err := adminstore.New(s).ListAPIKeys(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if want := map[string]int64{"kt": 1234, "kn": 7777}[k.ID]; want != 0 && k.CreatedAt != want {
				t.Errorf("key %s created at %d, want %d", k.ID, k.CreatedAt, want)
			}
		}
		// A rotation gives the new key an id, or keeps the one chosen.
		if next.ID == "" {
			t.Fatal("the rotated key has no id")
		}
		if err := adminstore.New(s).RevokeAPIKey(ctx, next.ID, &store.APIKey{ID: "kc", Prefix: "hk_c", Hash: "hc"}); err != nil {
			t.Fatal(err)
		}
		keys, err = adminstore.New(s).ListAPIKeys(ctx, b.ID)
		var active []string
		for _, k := range keys {
			if k.RevokedAt == 0 {
				active = append(active, k.ID)
			}
		}
		if err != nil || len(active) != 1 || active[0] != "kc" {
			t.Fatalf("unrevoked keys of b after a rotation to kc: %v %v", active, err)
		}
		ws, err := adminstore.New(s).ListWorkspaces(ctx)
		if err != nil || len(ws) != 2 || ws[1].Name != "b" || ws[1].ActiveKeys != 1 || ws[1].Users != 1 {
			t.Fatalf("workspaces: %v %+v", err, ws)
		}
	})
}
