// Package ga4test is a local stand-in for the Google endpoints the ga4
// plugin calls, for tests: OAuth 2.0 (consent, token with the
// authorization-code, refresh-token and JWT-bearer grants, revocation),
// the Admin API's accountSummaries and the Data API's runReport. Each
// handler checks the method, path, headers and body the way Google
// documents them and answers in Google's shapes, errors included; a
// request that breaks the contract fails the test.
package ga4test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Property ids with fixed behaviours.
const (
	// PropertyOK answers realistic rows (see Rows).
	PropertyOK = "123456789"
	// PropertyQuota answers 429 RESOURCE_EXHAUSTED.
	PropertyQuota = "222222222"
	// PropertyForbidden answers 403 PERMISSION_DENIED.
	PropertyForbidden = "333333333"
	// PropertyDeleted answers 404 NOT_FOUND.
	PropertyDeleted = "444444444"
)

// Scope is the only scope a client may ask for.
const Scope = "https://www.googleapis.com/auth/analytics.readonly"

// Google is the fake. Its fields are read under mu.
type Google struct {
	t   testing.TB
	srv *httptest.Server
	// URL is the base of every endpoint.
	URL                    string
	ClientID, ClientSecret string

	mu                                  sync.Mutex
	accessTTL                           time.Duration
	codes                               map[string]*codeGrant
	access                              map[string]time.Time // token → expiry
	refresh                             map[string]bool      // token → revoked
	saKeys                              map[string]*rsa.PublicKey
	issued                              int
	RunReports, TokenCalls, Revocations atomic.Int64
}

type codeGrant struct {
	challenge, redirect string
	used                bool
}

// New starts the fake on 127.0.0.1; it stops with the test.
func New(t testing.TB) *Google {
	g := &Google{t: t, ClientID: "client-123.apps.googleusercontent.com", ClientSecret: "GOCSPX-test-secret", accessTTL: time.Hour,
		codes: map[string]*codeGrant{}, access: map[string]time.Time{}, refresh: map[string]bool{}, saKeys: map[string]*rsa.PublicKey{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", g.token)
	mux.HandleFunc("/revoke", g.revoke)
	mux.HandleFunc("/v1beta/accountSummaries", g.accountSummaries)
	mux.HandleFunc("/v1beta/", g.runReport)
	g.srv = httptest.NewServer(mux)
	g.URL = g.srv.URL
	t.Cleanup(g.srv.Close)
	return g
}

// Settings are the ga4 plugin settings that point it here.
func (g *Google) Settings() map[string]string {
	return map[string]string{"client_id": g.ClientID, "client_secret": g.ClientSecret, "auth_url": g.URL + "/o/oauth2/v2/auth",
		"token_url": g.URL + "/token", "revoke_url": g.URL + "/revoke", "data_api_url": g.URL, "admin_api_url": g.URL}
}

func (g *Google) fail(w http.ResponseWriter, format string, args ...any) {
	g.t.Errorf("fake Google: "+format, args...)
	http.Error(w, fmt.Sprintf(format, args...), http.StatusBadRequest)
}

// Authorize plays the user on the consent page of authURL: it checks the
// parameters Google requires (client_id, redirect_uri, response_type=code,
// the read-only scope, access_type=offline, prompt=consent, a state and an
// S256 code_challenge), issues a code and returns the query Google would
// redirect with (code and state).
func (g *Google) Authorize(authURL string) (url.Values, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme+"://"+u.Host != g.URL || u.Path != "/o/oauth2/v2/auth" {
		return nil, fmt.Errorf("consent page %s is not %s/o/oauth2/v2/auth", authURL, g.URL)
	}
	q := u.Query()
	for k, want := range map[string]string{"client_id": g.ClientID, "response_type": "code", "scope": Scope, "access_type": "offline",
		"prompt": "consent", "code_challenge_method": "S256"} {
		if got := q.Get(k); got != want {
			return nil, fmt.Errorf("consent page %s=%q, want %q", k, got, want)
		}
	}
	if q.Get("state") == "" || len(q.Get("code_challenge")) != 43 || q.Get("redirect_uri") == "" {
		return nil, fmt.Errorf("consent page without state, a 43-character code_challenge or redirect_uri: %s", authURL)
	}
	code := "4/0A" + random(24)
	g.mu.Lock()
	g.codes[code] = &codeGrant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	g.mu.Unlock()
	return url.Values{"code": {code}, "state": {q.Get("state")}, "scope": {Scope}}, nil
}

func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

func (g *Google) issue(w http.ResponseWriter, refresh string) {
	access := "ya29." + random(24)
	g.mu.Lock()
	ttl := g.accessTTL
	g.access[access] = time.Now().Add(ttl)
	g.issued++
	g.mu.Unlock()
	out := map[string]any{"access_token": access, "expires_in": int(ttl.Seconds()), "token_type": "Bearer", "scope": Scope}
	if refresh != "" {
		out["refresh_token"] = refresh
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// token is POST /token, a form: the authorization-code grant (with the
// client's id and secret, the redirect URI and the PKCE verifier), the
// refresh-token grant and the JWT-bearer grant.
func (g *Google) token(w http.ResponseWriter, r *http.Request) {
	g.TokenCalls.Add(1)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		g.fail(w, "token: %s with Content-Type %q, want a POSTed form", r.Method, r.Header.Get("Content-Type"))
		return
	}
	if err := r.ParseForm(); err != nil {
		g.fail(w, "token: %v", err)
		return
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		if f.Get("client_id") != g.ClientID || f.Get("client_secret") != g.ClientSecret {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "Unauthorized")
			return
		}
		g.mu.Lock()
		c := g.codes[f.Get("code")]
		replay := c != nil && c.used
		if c != nil {
			c.used = true
		}
		g.mu.Unlock()
		switch {
		case c == nil || replay:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Malformed auth code.")
			return
		case c.redirect != f.Get("redirect_uri"):
			oauthError(w, http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request")
			return
		}
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Invalid code verifier.")
			return
		}
		refresh := "1//0g" + random(24)
		g.mu.Lock()
		g.refresh[refresh] = false
		g.mu.Unlock()
		g.issue(w, refresh)
	case "refresh_token":
		if f.Get("client_id") != g.ClientID || f.Get("client_secret") != g.ClientSecret {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "Unauthorized")
			return
		}
		g.mu.Lock()
		revoked, known := g.refresh[f.Get("refresh_token")]
		g.mu.Unlock()
		if !known || revoked {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "Token has been expired or revoked.")
			return
		}
		g.issue(w, "")
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if err := g.checkAssertion(f.Get("assertion")); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_grant", err.Error())
			return
		}
		g.issue(w, "")
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+f.Get("grant_type"))
	}
}

// revoke is POST /revoke with token in a form.
func (g *Google) revoke(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		g.fail(w, "revoke: %s with Content-Type %q, want a POSTed form", r.Method, r.Header.Get("Content-Type"))
		return
	}
	_ = r.ParseForm()
	tok := r.PostForm.Get("token")
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.refresh[tok]; ok {
		g.refresh[tok] = true
		g.Revocations.Add(1)
		return
	}
	if _, ok := g.access[tok]; ok {
		delete(g.access, tok)
		g.Revocations.Add(1)
		return
	}
	oauthError(w, http.StatusBadRequest, "invalid_token", "Token expired or revoked")
}

// Revoked reports whether the refresh token was revoked; RevokeAll revokes
// every refresh token (the user removed the access in their account).
func (g *Google) Revoked(refresh string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refresh[refresh]
}

// RevokeAll revokes every refresh and access token.
func (g *Google) RevokeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.refresh {
		g.refresh[k] = true
	}
	g.access = map[string]time.Time{}
}

// SetAccessTTL sets the lifetime (expires_in) of the access tokens issued
// from now on; the default is an hour.
func (g *Google) SetAccessTTL(d time.Duration) {
	g.mu.Lock()
	g.accessTTL = d
	g.mu.Unlock()
}

// ExpireAccessTokens makes every issued access token expired.
func (g *Google) ExpireAccessTokens() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.access {
		g.access[k] = time.Now().Add(-time.Second)
	}
}

// googleError writes Google's API error body.
func googleError(w http.ResponseWriter, code int, status, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}

// authorized checks the bearer token of an API call.
func (g *Google) authorized(w http.ResponseWriter, r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	g.mu.Lock()
	exp, known := g.access[tok]
	g.mu.Unlock()
	if !ok || !known || time.Now().After(exp) {
		googleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
		return false
	}
	return true
}

// ServiceAccountKey returns a new service account's JSON key, registered
// so that its JWT-bearer assertions are accepted. Its token_uri points at
// an address nobody serves: the plugin must use its own token URL.
func (g *Google) ServiceAccountKey() string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		g.t.Fatal(err)
	}
	email := "herald-" + strings.ToLower(random(4)) + "@acme-prod.iam.gserviceaccount.com"
	g.mu.Lock()
	g.saKeys[email] = &key.PublicKey
	g.mu.Unlock()
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	b, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "acme-prod", "private_key_id": "k1",
		"private_key": pemKey, "client_email": email, "client_id": "1234567890", "token_uri": "http://127.0.0.1:9/token"})
	return string(b)
}
