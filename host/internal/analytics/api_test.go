package analytics_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/analytics"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/plugins/ga4"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
)

func TestConnectOAuth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		b.srv.Do(t, "GET", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK)
		q := b.connect(t, b.key)
		conn := b.srv.Do(t, "GET", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK).Body
		if conn["connected"] != true || conn["method"] != "oauth" || conn["account"] != "Acme Inc." {
			t.Fatalf("connection %v", conn)
		}
		// The same redirect again (a replayed code) is refused before Google
		// is asked: the state is spent.
		calls := b.google.TokenCalls.Load()
		b.srv.Do(t, "GET", "/v1/analytics/google/callback?"+q, "", "").WantError(t, http.StatusBadRequest, "state", "already used")
		if b.google.TokenCalls.Load() != calls {
			t.Error("a replayed callback reached Google's token endpoint")
		}
		// A state nobody issued is refused.
		out := b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"redirectUri":"`+redirect+`"}`).Want(t, http.StatusOK).Body
		back, _ := b.google.Authorize(out["authorizationUrl"].(string))
		back.Set("state", "forged-"+back.Get("state"))
		b.srv.Do(t, "GET", "/v1/analytics/google/callback?"+back.Encode(), "", "").WantError(t, http.StatusBadRequest, "state")
		// A state expires after 10 minutes.
		out = b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"redirectUri":"`+redirect+`"}`).Want(t, http.StatusOK).Body
		back, _ = b.google.Authorize(out["authorizationUrl"].(string))
		b.clock.add(11 * time.Minute)
		b.srv.Do(t, "GET", "/v1/analytics/google/callback?"+back.Encode(), "", "").WantError(t, http.StatusBadRequest, "expired")
		// The user refused on Google's page.
		out = b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"redirectUri":"`+redirect+`"}`).Want(t, http.StatusOK).Body
		b.srv.Do(t, "GET", "/v1/analytics/google/callback?error=access_denied&state="+out["state"].(string), "", "").WantError(t, http.StatusBadRequest, "access_denied")

		// Bad input names the field and writes nothing.
		b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{}`).WantError(t, http.StatusBadRequest, "redirectUri")
		b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"redirectUri":"javascript:alert(1)"}`).WantError(t, http.StatusBadRequest, "redirectUri")
		b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"redirectUri":"https://x.test/#frag"}`).WantError(t, http.StatusBadRequest, "redirectUri")
		b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"serviceAccountKey":"{}"}`).WantError(t, http.StatusBadRequest, "serviceAccountKey")
		b.srv.Do(t, "GET", "/v1/analytics/google/callback?code=x", "", "").WantError(t, http.StatusBadRequest, "state")
		b.srv.Do(t, "PUT", "/v1/analytics/google", "", `{"redirectUri":"`+redirect+`"}`).Want(t, http.StatusUnauthorized)
	})
}

func TestTokensSealedAndNeverLogged(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		b.connect(t, b.key)
		var sealed, method string
		if err := storetest.QueryRow(context.Background(), st, `SELECT sealed, method FROM analytics_connections WHERE workspace_id = $1`, b.wsID).Scan(&sealed, &method); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sealed, "v1.") || strings.Contains(sealed, "ya29.") || strings.Contains(sealed, "1//0g") || method != "oauth" {
			t.Fatalf("stored credentials are not sealed: %.40s…", sealed)
		}
		// A sealed value moved to another workspace does not open there.
		other, _, err := st.EnsureWorkspaceUser(context.Background(), "globex", "business", "owner@globex.test")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := storetest.Exec(context.Background(), st, `INSERT INTO analytics_connections (workspace_id, source, method, account, sealed, expires_at, created_at, updated_at)
			VALUES ($1, 'google', 'oauth', '', $2, 0, 1, 1)`, other.ID, sealed); err != nil {
			t.Fatal(err)
		}
		b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.otherKey, "").WantError(t, http.StatusConflict, "reconnect")
		b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.key, "").Want(t, http.StatusOK)
		b.srv.Do(t, "DELETE", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK)
		b.noSecretsLogged(t)
	})
}

// noSecretsLogged fails when the service's log carries a token, a code,
// the client secret or a verifier.
func (b *bundle) noSecretsLogged(t *testing.T) {
	t.Helper()
	logs := b.log.String()
	for _, secret := range []string{"ya29.", "1//0g", "4/0A", b.google.ClientSecret, "code_verifier", "PRIVATE KEY"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log carries %q:\n%s", secret, logs)
		}
	}
}

func TestServiceAccountConnect(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		key := b.google.ServiceAccountKey()
		body := b.srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"serviceAccountKey":`+quote(key)+`}`).Want(t, http.StatusOK).Body
		conn, _ := body["connection"].(map[string]any)
		if conn["connected"] != true || conn["method"] != "service_account" || !strings.HasSuffix(conn["account"].(string), "gserviceaccount.com") {
			t.Fatalf("answer %v", body)
		}
		props := b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.key, "").Want(t, http.StatusOK).Body["properties"].([]any)
		if len(props) != 4 {
			t.Fatalf("properties %v", props)
		}
		// Disconnecting a service account deletes it; there is no token to revoke.
		b.srv.Do(t, "DELETE", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK)
		if b.google.Revocations.Load() != 0 {
			t.Error("a service account's token was sent for revocation")
		}
	})
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestWorkspaces(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		b := setup(t, st)
		b.connect(t, b.key)
		b.srv.Do(t, "PUT", "/v1/analytics/google/sites/"+b.site, b.key, `{"propertyId":"`+ga4test.PropertyOK+`"}`).Want(t, http.StatusOK)
		// The other workspace sees no connection and cannot use ours.
		if got := b.srv.Do(t, "GET", "/v1/analytics/google", b.otherKey, "").Want(t, http.StatusOK).Body; got["connected"] != false {
			t.Errorf("other workspace sees %v", got)
		}
		b.srv.Do(t, "GET", "/v1/analytics/google/properties", b.otherKey, "").WantError(t, http.StatusNotFound, "not connected")
		b.srv.Do(t, "PUT", "/v1/analytics/google/sites/"+b.site, b.otherKey, `{"propertyId":"`+ga4test.PropertyOK+`"}`).Want(t, http.StatusNotFound)
		b.srv.Do(t, "PUT", "/v1/analytics/google/sites/"+b.otherSit, b.key, `{"propertyId":"`+ga4test.PropertyOK+`"}`).Want(t, http.StatusNotFound)
		b.srv.Do(t, "DELETE", "/v1/analytics/google", b.otherKey, "").Want(t, http.StatusOK)
		if got := b.srv.Do(t, "GET", "/v1/analytics/google", b.key, "").Want(t, http.StatusOK).Body; got["connected"] != true || len(got["sites"].([]any)) != 1 {
			t.Errorf("our connection after the other's delete: %v", got)
		}
		// A property the account cannot read, and a malformed one, are 400s.
		b.srv.Do(t, "PUT", "/v1/analytics/google/sites/"+b.site, b.key, `{"propertyId":"999"}`).WantError(t, http.StatusBadRequest, "propertyId")
		b.srv.Do(t, "PUT", "/v1/analytics/google/sites/"+b.site, b.key, `{"propertyId":"properties/1"}`).WantError(t, http.StatusBadRequest, "propertyId")
	})
}

// TestWithoutASecretKeyNothingIsStored: like destination credentials, GA4
// tokens are never stored unsealed; without HERALD_SECRET_KEY a connect is
// a 503 that says so, and no state is written.
func TestWithoutASecretKeyNothingIsStored(t *testing.T) {
	st := storetest.SQLite(t)
	b := setup(t, st)
	bare, err := analytics.New(analytics.Deps{Store: st, Plugin: ga4.New()})
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.Start(t, api.Deps{Store: st, Analytics: analytics.NewHandler(bare)})
	srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"redirectUri":"`+redirect+`"}`).WantError(t, http.StatusServiceUnavailable, "HERALD_SECRET_KEY")
	srv.Do(t, "PUT", "/v1/analytics/google", b.key, `{"serviceAccountKey":`+quote(b.google.ServiceAccountKey())+`}`).WantError(t, http.StatusServiceUnavailable, "HERALD_SECRET_KEY")
	if n := countRows(t, st, "analytics_oauth_states") + countRows(t, st, "analytics_connections"); n != 0 {
		t.Errorf("%d rows written without a secret key", n)
	}
}
