package destination_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

const (
	clientID     = "77test"
	clientSecret = "linkedin-client-secret"
	redirectURL  = "https://herald.example/v1/destinations/linkedin/oauth/callback"
)

// fakeLinkedIn answers LinkedIn's OAuth 2.0 token endpoint (POST
// /oauth/v2/accessToken, form-encoded, as LinkedIn documents it: one use per
// authorization code, bound to its redirect_uri and the app's client id
// and secret), the OpenID userinfo endpoint and the Posts API.
type fakeLinkedIn struct {
	*httptest.Server
	mu        sync.Mutex
	codes     map[string]bool // issued code -> used
	refreshes int
	// refreshUntil is the refresh token's end, fixed at the first grant:
	// a refresh answers the time left, as LinkedIn does.
	refreshUntil time.Time
	posts        int
	tokens       map[string]bool
}

func newFakeLinkedIn(t *testing.T) *fakeLinkedIn {
	f := &fakeLinkedIn{codes: map[string]bool{}, tokens: map[string]bool{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		f.mu.Lock()
		defer f.mu.Unlock()
		switch r.Method + " " + r.URL.Path {
		case "POST /oauth/v2/accessToken":
			if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
				w.WriteHeader(400)
				io.WriteString(w, `{"error":"invalid_request","error_description":"content type"}`)
				return
			}
			r.ParseForm()
			if r.PostForm.Get("client_id") != clientID || r.PostForm.Get("client_secret") != clientSecret {
				w.WriteHeader(401)
				io.WriteString(w, `{"error":"invalid_client","error_description":"Client authentication failed"}`)
				return
			}
			token := fmt.Sprintf("AQV-token-%d", len(f.tokens)+1)
			switch r.PostForm.Get("grant_type") {
			case "authorization_code":
				code := r.PostForm.Get("code")
				if used, ok := f.codes[code]; !ok || used || r.PostForm.Get("redirect_uri") != redirectURL {
					w.WriteHeader(400)
					io.WriteString(w, `{"error":"invalid_grant","error_description":"The provided authorization grant or refresh token is invalid, expired or revoked"}`)
					return
				}
				f.codes[code] = true
				f.refreshUntil = time.Now().Add(365 * 24 * time.Hour)
			case "refresh_token":
				if r.PostForm.Get("refresh_token") != "AQX-refresh" {
					w.WriteHeader(400)
					io.WriteString(w, `{"error":"invalid_grant","error_description":"refresh token revoked"}`)
					return
				}
				f.refreshes++
			default:
				w.WriteHeader(400)
				io.WriteString(w, `{"error":"unsupported_grant_type"}`)
				return
			}
			f.tokens[token] = true
			fmt.Fprintf(w, `{"access_token":%q,"expires_in":5184000,"refresh_token":"AQX-refresh","refresh_token_expires_in":%d,"scope":"openid,profile,w_member_social"}`,
				token, int64(time.Until(f.refreshUntil).Seconds()))
		case "GET /v2/userinfo":
			if !f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] {
				w.WriteHeader(401)
				return
			}
			io.WriteString(w, `{"sub":"abc123","name":"Ada Lovelace"}`)
		case "POST /rest/posts":
			f.posts++
			w.Header().Set("x-restli-id", "urn:li:share:1")
			w.WriteHeader(201)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// issue is LinkedIn's authorization page: it checks the URL Herald sent the
// browser to and returns the callback query LinkedIn would redirect with.
func (f *fakeLinkedIn) issue(t *testing.T, authURL, code string) url.Values {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil || u.Path != "/oauth/v2/authorization" {
		t.Fatalf("authorization URL %q", authURL)
	}
	q := u.Query()
	if q.Get("response_type") != "code" || q.Get("client_id") != clientID || q.Get("redirect_uri") != redirectURL || len(q.Get("state")) < 32 ||
		!strings.Contains(q.Get("scope"), "w_member_social") {
		t.Fatalf("authorization parameters %v", q)
	}
	f.mu.Lock()
	f.codes[code] = false
	f.mu.Unlock()
	return url.Values{"code": {code}, "state": {q.Get("state")}}
}

func oauthBundle(t *testing.T) (*scheduletest.Bundle, *fakeLinkedIn) {
	f := newFakeLinkedIn(t)
	b := scheduletest.Setup(t, storetest.SQLite(t), scheduletest.Options{SecretKey: scheduletest.SecretKey,
		LinkedIn: config.LinkedInApp{ClientID: clientID, ClientSecret: clientSecret, RedirectURL: redirectURL, OAuthURL: f.URL + "/oauth/v2", APIURL: f.URL}})
	return b, f
}

func start(t *testing.T, b *scheduletest.Bundle) string {
	t.Helper()
	return b.Do(t, "POST", "/v1/destinations/linkedin/oauth/start", b.Acme, `{}`).Want(t, http.StatusOK).Body["authorizationUrl"].(string)
}

func TestLinkedInConnectsWithOAuthAndRefusesAForgedStateAndAReplayedCode(t *testing.T) {
	t.Parallel()
	b, f := oauthBundle(t)
	cb := f.issue(t, start(t, b), "code-1")
	// The callback is public: the browser arrives from LinkedIn without a key.
	forged := url.Values{"code": {"code-1"}, "state": {"forged-state-that-herald-never-issued-0123456789"}}
	res := b.Do(t, "GET", "/v1/destinations/linkedin/oauth/callback?"+forged.Encode(), "", "").Want(t, http.StatusBadRequest)
	if msg := fmt.Sprint(res.Body["message"]); !strings.HasPrefix(msg, "state does not match an authorization in progress") {
		t.Fatalf("forged state: %q", msg)
	}
	b.Do(t, "GET", "/v1/destinations/linkedin/oauth/callback?"+cb.Encode(), "", "").Want(t, http.StatusOK)
	// The same redirect again (a replay): the state is spent.
	res = b.Do(t, "GET", "/v1/destinations/linkedin/oauth/callback?"+cb.Encode(), "", "").Want(t, http.StatusBadRequest)
	if msg := fmt.Sprint(res.Body["message"]); !strings.HasPrefix(msg, "state was already used") {
		t.Fatalf("replayed callback: %q", msg)
	}
	// The spent code under a fresh state: LinkedIn refuses it.
	again := f.issue(t, start(t, b), "code-2")
	again.Set("code", "code-1")
	res = b.Do(t, "GET", "/v1/destinations/linkedin/oauth/callback?"+again.Encode(), "", "").Want(t, http.StatusBadRequest)
	if msg := fmt.Sprint(res.Body["message"]); !strings.Contains(msg, "code: LinkedIn refused it (HTTP 400 invalid_grant") {
		t.Fatalf("replayed code: %q", msg)
	}

	// Connected: expiry shown, refreshable, sealed at rest.
	list := b.Do(t, "GET", "/v1/destinations", b.Acme, "").Want(t, http.StatusOK)
	var li map[string]any
	for _, d := range list.Body["destinations"].([]any) {
		if d.(map[string]any)["name"] == "linkedin" {
			li = d.(map[string]any)
		}
	}
	expires, _ := time.Parse(time.RFC3339, fmt.Sprint(li["expiresAt"]))
	if li["connected"] != true || li["refreshable"] != true || li["oauth"] != true || time.Until(expires) < 59*24*time.Hour {
		t.Fatalf("linkedin after OAuth: %v", li)
	}
	var sealed string
	storetest.QueryRow(context.Background(), b.Store, `SELECT sealed FROM destination_connections WHERE destination = 'linkedin'`).Scan(&sealed)
	if strings.Contains(sealed, "AQV-token") || strings.Contains(sealed, "AQX-refresh") {
		t.Fatal("tokens stored in clear")
	}
	// Another workspace's key cannot finish this workspace's flow or see it.
	if strings.Contains(b.Do(t, "GET", "/v1/destinations", b.Other, "").Raw, "Ada Lovelace") {
		t.Fatal("another workspace sees the connection")
	}
	// A post publishes with the OAuth token.
	b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"linkedin","text":"Hello","whenToExport":%q}`, time.Now().UTC().Format(time.RFC3339))).Want(t, http.StatusOK)
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.posts == 1 })
}

func TestAnExpiredLinkedInConnectionFailsPostsBeforeAnyAttemptAndIsAnnouncedAWeekAhead(t *testing.T) {
	t.Parallel()
	b, f := oauthBundle(t)
	b.Do(t, "GET", "/v1/destinations/linkedin/oauth/callback?"+f.issue(t, start(t, b), "code-1").Encode(), "", "").Want(t, http.StatusOK)
	ctx := context.Background()
	now := b.Store.Now()

	// Three days from expiry, no refresh token left: announced once.
	in3d := now + 3*24*3600*1000
	if err := destinationstore.New(b.Store).SetConnectionExpiry(ctx, b.AcmeID, "linkedin", &in3d, nil); err != nil {
		t.Fatal(err)
	}
	for want := 1; want >= 0; want-- {
		if n, err := b.Dest.AnnounceExpiring(ctx); err != nil || n != want {
			t.Fatalf("AnnounceExpiring wrote %d (%v), want %d", n, err, want)
		}
	}
	var events int
	storetest.QueryRow(ctx, b.Store, `SELECT COUNT(*) FROM events WHERE type = 'destination.connection.expiring' AND workspace_id = $1`, b.AcmeID).Scan(&events)
	if events != 1 {
		t.Fatalf("%d expiring events, want 1", events)
	}

	// A pending post, then the token expires.
	id := scheduletest.Schedule(t, b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"linkedin","text":"Later","whenToExport":%q}`,
		time.Now().Add(2*time.Second).UTC().Format(time.RFC3339))).Want(t, http.StatusOK))["id"].(string)
	past := now - 1000
	if err := destinationstore.New(b.Store).SetConnectionExpiry(ctx, b.AcmeID, "linkedin", &past, &past); err != nil {
		t.Fatal(err)
	}
	sc := b.WaitStatus(t, b.Acme, id, "failed", 20*time.Second)
	if msg := fmt.Sprint(sc["lastError"]); !strings.Contains(msg, "the linkedin connection expired on") {
		t.Fatalf("lastError %q", msg)
	}
	f.mu.Lock()
	posts := f.posts
	f.mu.Unlock()
	if posts != 0 {
		t.Fatalf("LinkedIn received %d posts with an expired token", posts)
	}
	// A new post to it is refused at once.
	res := b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"linkedin","text":"Now","whenToExport":%q}`, time.Now().UTC().Format(time.RFC3339))).Want(t, http.StatusBadRequest)
	if msg := fmt.Sprint(res.Body["message"]); !strings.HasPrefix(msg, "exportTo: the linkedin connection expired on") {
		t.Fatalf("create: %q", msg)
	}
}

func TestALinkedInTokenIsRefreshedBeforeItExpires(t *testing.T) {
	t.Parallel()
	b, f := oauthBundle(t)
	b.Do(t, "GET", "/v1/destinations/linkedin/oauth/callback?"+f.issue(t, start(t, b), "code-1").Encode(), "", "").Want(t, http.StatusOK)
	ctx := context.Background()
	before, err := destinationstore.New(b.Store).GetConnectionExpiry(ctx, b.AcmeID, "linkedin")
	if err != nil || before.RefreshExpiresAt == nil {
		t.Fatalf("no refresh expiry after the grant: %+v %v", before, err)
	}
	refreshUntil := *before.RefreshExpiresAt
	soon := b.Store.Now() + 3600*1000
	if err := destinationstore.New(b.Store).SetConnectionExpiry(ctx, b.AcmeID, "linkedin", &soon, &refreshUntil); err != nil {
		t.Fatal(err)
	}
	b.Do(t, "POST", "/v1/scheduler/create", b.Acme, fmt.Sprintf(`{"exportTo":"linkedin","text":"Hello","whenToExport":%q}`, time.Now().UTC().Format(time.RFC3339))).Want(t, http.StatusOK)
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.posts == 1 })
	f.mu.Lock()
	refreshes := f.refreshes
	f.mu.Unlock()
	e, err := destinationstore.New(b.Store).GetConnectionExpiry(ctx, b.AcmeID, "linkedin")
	if err != nil || refreshes < 1 || e.ExpiresAt == nil || *e.ExpiresAt-b.Store.Now() < 59*24*3600*1000 {
		t.Fatalf("after a use an hour before expiry: %d refreshes, expiry %v (%v)", refreshes, e.ExpiresAt, err)
	}
	if e.RefreshExpiresAt == nil || *e.RefreshExpiresAt > refreshUntil+5*1000 {
		t.Fatalf("the refresh token's life was extended: %v, want it kept at %d", e.RefreshExpiresAt, refreshUntil)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
