package ga4_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/plugins/ga4"
	"github.com/heraldhq/herald/plugins/ga4/ga4test"
	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

func source(t *testing.T, g *ga4test.Google) *ga4.Source {
	t.Helper()
	s := ga4.New()
	if err := s.Configure(context.Background(), g.Settings()); err != nil {
		t.Fatal(err)
	}
	return s
}

func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier-of-43-plus"

// connect runs the consent and the exchange, as the host does.
func connect(t *testing.T, g *ga4test.Google, s *ga4.Source) sdk.Grant {
	t.Helper()
	ctx := context.Background()
	u, err := s.AuthURL(ctx, sdk.AuthURLRequest{RedirectURI: "https://herald.example/dashboard/", State: "st-1", CodeChallenge: challenge(verifier)})
	if err != nil {
		t.Fatal(err)
	}
	back, err := g.Authorize(u)
	if err != nil {
		t.Fatal(err)
	}
	if back.Get("state") != "st-1" {
		t.Fatalf("state %q came back", back.Get("state"))
	}
	grant, err := s.Exchange(ctx, sdk.ExchangeRequest{Code: back.Get("code"), CodeVerifier: verifier, RedirectURI: "https://herald.example/dashboard/"})
	if err != nil {
		t.Fatal(err)
	}
	return grant
}

func TestOAuthFlow(t *testing.T) {
	g := ga4test.New(t)
	s := source(t, g)
	ctx := context.Background()
	grant := connect(t, g, s)
	c := grant.Credentials
	if c["access_token"] == "" || c["refresh_token"] == "" || c["method"] != "oauth" || grant.Account != "Acme Inc." {
		t.Fatalf("grant %+v", grant)
	}
	if d := time.Until(time.UnixMilli(grant.ExpiresAtMs)); d < 50*time.Minute || d > 61*time.Minute {
		t.Errorf("expires in %v, want about the hour Google gave", d)
	}
	// A wrong verifier is refused by Google (PKCE).
	u, _ := s.AuthURL(ctx, sdk.AuthURLRequest{RedirectURI: "https://herald.example/cb", State: "st-2", CodeChallenge: challenge(verifier)})
	back, _ := g.Authorize(u)
	_, err := s.Exchange(ctx, sdk.ExchangeRequest{Code: back.Get("code"), CodeVerifier: verifier + "x", RedirectURI: "https://herald.example/cb"})
	if sdk.ErrorCode(err) != sdk.CodeInvalidArgument || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("wrong verifier: %v", err)
	}
	// A code replayed after its use is refused by Google.
	_, err = s.Exchange(ctx, sdk.ExchangeRequest{Code: back.Get("code"), CodeVerifier: verifier, RedirectURI: "https://herald.example/cb"})
	if sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("replayed code: %v", err)
	}

	// Refresh keeps the refresh token Google does not repeat.
	g.ExpireAccessTokens()
	if _, err := s.Properties(ctx, c); sdk.ErrorCode(err) != sdk.CodeUnauthenticated {
		t.Errorf("expired access token: %v", err)
	}
	next, err := s.Refresh(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if next.Credentials["refresh_token"] != c["refresh_token"] || next.Credentials["access_token"] == c["access_token"] {
		t.Errorf("refresh: %+v", next.Credentials)
	}
	props, err := s.Properties(ctx, next.Credentials)
	if err != nil || len(props) != 4 || props[0].ID != ga4test.PropertyOK || props[0].AccountDisplayName != "Acme Inc." {
		t.Fatalf("properties %+v, %v", props, err)
	}

	// Revoke revokes the refresh token; a refresh after it asks to reconnect.
	if err := s.Revoke(ctx, next.Credentials); err != nil {
		t.Fatal(err)
	}
	if !g.Revoked(c["refresh_token"]) {
		t.Error("refresh token not revoked at Google")
	}
	if err := s.Revoke(ctx, next.Credentials); err != nil {
		t.Errorf("revoking again: %v (Google's invalid_token means already revoked)", err)
	}
	_, err = s.Refresh(ctx, next.Credentials)
	if sdk.ErrorCode(err) != sdk.CodeUnauthenticated || !strings.Contains(err.Error(), "reconnect") {
		t.Errorf("refresh after revoke: %v", err)
	}
	if strings.Contains(err.Error(), c["refresh_token"]) {
		t.Error("the error quotes the refresh token")
	}
}

func TestAuthURL(t *testing.T) {
	g := ga4test.New(t)
	s := source(t, g)
	u, err := s.AuthURL(context.Background(), sdk.AuthURLRequest{RedirectURI: "https://herald.example/cb", State: "abc", CodeChallenge: challenge(verifier)})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.Parse(u)
	for k, want := range map[string]string{"access_type": "offline", "prompt": "consent", "scope": ga4.Scope, "state": "abc",
		"code_challenge_method": "S256", "code_challenge": challenge(verifier), "redirect_uri": "https://herald.example/cb", "response_type": "code"} {
		if got := q.Query().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if strings.Contains(u, g.ClientSecret) {
		t.Error("the consent URL carries the client secret")
	}
	// Without a client, OAuth is off and says what to set.
	bare := ga4.New()
	if _, err := bare.AuthURL(context.Background(), sdk.AuthURLRequest{RedirectURI: "https://x/", State: "s", CodeChallenge: "c"}); sdk.ErrorCode(err) != sdk.CodeUnconfigured || !strings.Contains(err.Error(), "client_id") {
		t.Errorf("no client: %v", err)
	}
	if err := bare.Configure(context.Background(), map[string]string{"clientid": "x"}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("misspelt setting: %v", err)
	}
}

func TestServiceAccount(t *testing.T) {
	g := ga4test.New(t)
	s := source(t, g)
	ctx := context.Background()
	key := g.ServiceAccountKey()
	grant, err := s.Exchange(ctx, sdk.ExchangeRequest{Key: map[string]string{"service_account_key": key}})
	if err != nil {
		t.Fatal(err)
	}
	if grant.Credentials["method"] != "service_account" || !strings.HasSuffix(grant.Account, ".iam.gserviceaccount.com") {
		t.Fatalf("grant %+v", grant)
	}
	if _, err := s.Properties(ctx, grant.Credentials); err != nil {
		t.Fatal(err)
	}
	again, err := s.Refresh(ctx, grant.Credentials)
	if err != nil || again.Credentials["access_token"] == grant.Credentials["access_token"] {
		t.Fatalf("refresh %+v, %v", again, err)
	}
	for _, bad := range []string{"{}", `{"type":"authorized_user"}`, "not json"} {
		if _, err := s.Exchange(ctx, sdk.ExchangeRequest{Key: map[string]string{"service_account_key": bad}}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
			t.Errorf("key %s: %v", bad, err)
		}
	}
}

func TestReport(t *testing.T) {
	g := ga4test.New(t)
	s := source(t, g)
	ctx := context.Background()
	c := connect(t, g, s).Credentials
	r, err := s.Report(ctx, sdk.AnalyticsReportRequest{Credentials: c, PropertyID: ga4test.PropertyOK, StartDate: "2026-01-01", EndDate: "2026-01-07"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Days) != 7*len(ga4test.Rows) || len(r.Pages) != len(ga4test.Rows) {
		t.Fatalf("%d day rows, %d page rows", len(r.Days), len(r.Pages))
	}
	first := r.Days[0]
	if first.Date != "2026-01-01" || first.Source != "chatgpt.com" || first.Medium != "referral" || first.Sessions != 12 ||
		first.Pageviews != 30 || first.EngagedSessions != 9 || first.DurationMs != 12*95500 {
		t.Errorf("first row %+v", first)
	}
	if p := r.Pages[0]; p.Path != "/pricing" || p.Sessions != 7*12 {
		t.Errorf("first page %+v", p)
	}
	for prop, code := range map[string]sdk.Code{ga4test.PropertyQuota: sdk.CodeRateLimited, ga4test.PropertyForbidden: sdk.CodePermissionDenied, ga4test.PropertyDeleted: sdk.CodeNotFound} {
		_, err := s.Report(ctx, sdk.AnalyticsReportRequest{Credentials: c, PropertyID: prop, StartDate: "2026-01-01", EndDate: "2026-01-07"})
		if sdk.ErrorCode(err) != code {
			t.Errorf("property %s: %v, want %s", prop, err, code)
		}
	}
	if _, err := s.Report(ctx, sdk.AnalyticsReportRequest{Credentials: c, PropertyID: "12/../3", StartDate: "2026-01-01", EndDate: "2026-01-07"}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("bad property id: %v", err)
	}
}

// TestConformance runs the SDK's analytics source checks over gRPC.
func TestConformance(t *testing.T) {
	g := ga4test.New(t)
	s := source(t, g)
	plugintest.TestAnalytics(t, s, plugintest.AnalyticsChecks{Credentials: connect(t, g, s).Credentials,
		PropertyID: ga4test.PropertyOK, StartDate: "2026-03-01", EndDate: "2026-03-31"})
}
