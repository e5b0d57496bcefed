package auth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/golang-jwt/jwt/v5"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestGeneratedKeysArePrefixedRandomAndHashed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		key, hash := auth.GenerateKey()
		if !strings.HasPrefix(key, "hk_") || len(key) != 46 || strings.Trim(key[3:], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != "" {
			t.Fatalf("malformed key %q", key)
		}
		if hash != auth.HashKey(key) || len(hash) != 64 || strings.Contains(hash, key) {
			t.Fatalf("hash %q of %q", hash, key)
		}
		if seen[key] {
			t.Fatal("duplicate key")
		}
		seen[key] = true
	}
}

func TestSessionsAndKeys(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	ctx := context.Background()
	key, err := auth.CreateKey(ctx, s, "acme", "pro", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	ws, u, _ := s.EnsureWorkspaceUser(ctx, "acme", "pro", "a@acme.test")
	const secret = "s3cret"
	a := auth.NewAuthenticator(s, secret)
	valid, _ := auth.SignSession(secret, ws.ID, u.ID, time.Hour)
	expired, _ := auth.SignSession(secret, ws.ID, u.ID, -time.Hour)
	wrongSecret, _ := auth.SignSession("other", ws.ID, u.ID, time.Hour)
	unknownUser, _ := auth.SignSession(secret, ws.ID, "nobody", time.Hour)
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": u.ID, "wsp": ws.ID}).SignedString([]byte(secret))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": u.ID, "wsp": ws.ID, "exp": time.Now().Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"sub": u.ID, "wsp": ws.ID, "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(secret))

	cases := []struct {
		name   string
		header http.Header
		policy auth.Policy
		ok     bool
		via    auth.Via
	}{
		{"a valid key passes an api-key route", http.Header{"Api-Key": {key}}, auth.APIKey, true, auth.ViaAPIKey},
		{"a valid key passes a key-or-session route", http.Header{"Api-Key": {key}}, auth.APIKeyOrSession, true, auth.ViaAPIKey},
		{"a valid session passes a key-or-session route", http.Header{"Authorization": {"Bearer " + valid}}, auth.APIKeyOrSession, true, auth.ViaSession},
		{"the Bearer scheme is case-insensitive", http.Header{"Authorization": {"bearer " + valid}}, auth.APIKeyOrSession, true, auth.ViaSession},
		{"the Bearer scheme in capitals passes", http.Header{"Authorization": {"BEARER " + valid}}, auth.APIKeyOrSession, true, auth.ViaSession},
		{"another scheme fails", http.Header{"Authorization": {"Basic " + valid}}, auth.APIKeyOrSession, false, ""},
		{"a valid session does not pass an api-key route", http.Header{"Authorization": {"Bearer " + valid}}, auth.APIKey, false, ""},
		{"an expired session fails", http.Header{"Authorization": {"Bearer " + expired}}, auth.APIKeyOrSession, false, ""},
		{"a session signed with another secret fails", http.Header{"Authorization": {"Bearer " + wrongSecret}}, auth.APIKeyOrSession, false, ""},
		{"a session of an unknown user fails", http.Header{"Authorization": {"Bearer " + unknownUser}}, auth.APIKeyOrSession, false, ""},
		{"a session without exp fails", http.Header{"Authorization": {"Bearer " + noExp}}, auth.APIKeyOrSession, false, ""},
		{"an unsigned session fails", http.Header{"Authorization": {"Bearer " + none}}, auth.APIKeyOrSession, false, ""},
		{"a session with another algorithm fails", http.Header{"Authorization": {"Bearer " + hs512}}, auth.APIKeyOrSession, false, ""},
		{"a Basic authorization fails", http.Header{"Authorization": {"Basic abc"}}, auth.APIKeyOrSession, false, ""},
		{"an unknown key fails", http.Header{"Api-Key": {"hk_nope"}}, auth.APIKey, false, ""},
		{"no credentials fail", http.Header{}, auth.APIKeyOrSession, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, ok, err := a.Authenticate(ctx, c.header, c.policy)
			if ok != c.ok {
				t.Fatalf("ok=%v err=%v, want ok=%v", ok, err, c.ok)
			}
			if !c.ok {
				if connect.CodeOf(err) != connect.CodeUnauthenticated {
					t.Fatalf("want an unauthenticated API error, got %v", err)
				}
				if strings.Contains(err.Error(), key) {
					t.Fatal("error leaks the key")
				}
				return
			}
			if p.WorkspaceID != ws.ID || p.UserID != u.ID || p.Plan != "pro" || p.Via != c.via {
				t.Fatalf("principal %+v", p)
			}
		})
	}
	if _, ok, err := a.Authenticate(ctx, http.Header{}, auth.Public); ok || err != nil {
		t.Fatalf("public: ok=%v err=%v", ok, err)
	}
	if _, _, err := auth.NewAuthenticator(s, "").Authenticate(ctx, http.Header{"Authorization": {"Bearer " + valid}}, auth.APIKeyOrSession); err == nil || !strings.Contains(err.Error(), "HERALD_JWT_SECRET") {
		t.Fatalf("sessions without a secret: %v", err)
	}
}
