package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
)

// testBundle is a real API server over HTTP (HTTP/1.1 and cleartext
// HTTP/2) on a migrated store, with keys for two users of workspace "acme"
// and one user of workspace "other".
type testBundle struct {
	url                    string
	store                  *store.Store
	alice, bob, mallory    string
	aliceID, bobID, acmeID string
}

const jwtSecret = "test-jwt-secret"

func setup(t testing.TB, s *store.Store) *testBundle {
	t.Helper()
	ctx := context.Background()
	b := &testBundle{store: s}
	var err error
	if b.alice, err = auth.CreateKey(ctx, s, "acme", "business", "alice@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.bob, err = auth.CreateKey(ctx, s, "acme", "business", "bob@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.mallory, err = auth.CreateKey(ctx, s, "other", "business", "m@other.test"); err != nil {
		t.Fatal(err)
	}
	ws, alice, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "alice@acme.test")
	_, bob, _ := s.EnsureWorkspaceUser(ctx, "acme", "business", "bob@acme.test")
	b.acmeID, b.aliceID, b.bobID = ws.ID, alice.ID, bob.ID
	srv := httptest.NewUnstartedServer(newHandler(t, s))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

func newHandler(t testing.TB, s *store.Store) http.Handler {
	blobs, err := blob.NewFS(t.TempDir(), "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	return api.NewServer(api.Deps{
		Logger:       hclog.NewNullLogger(),
		Store:        s,
		Auth:         auth.NewAuthenticator(s, jwtSecret),
		Registry:     prometheus.NewRegistry(),
		MaxBodyBytes: 64 << 10,
		Blobs:        blobs,
		Voices:       voiceAPI(t, voice.Deps{Store: s}),
	})
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (b *testBundle) do(t testing.TB, method, path, key, body string) response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.url+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("api-key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: content type %q, body %s", method, path, ct, raw)
	}
	if err := json.Unmarshal(raw, &out.body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %s", method, path, raw)
	}
	return out
}

func (r response) want(t testing.TB, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
	}
	if _, ok := r.body["message"].(string); !ok {
		t.Fatalf("body has no string message: %s", r.raw)
	}
	return r
}

func (r response) data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := r.body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object: %s", r.raw)
	}
	return d
}

func keysOf(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return strings.Join(ks, ",")
}

func TestBrandVoiceRoutesFollowSpec(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		created := b.do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"  We write plainly.\nShort sentences.  ","name":"Plain"}`).want(t, 201).data(t)
		if got := keysOf(created); got != "contentLength,id,name,type,url" {
			t.Fatalf("creation data fields: %s", got)
		}
		if created["type"] != "text" || created["name"] != "Plain" || created["contentLength"] != float64(len("We write plainly.\nShort sentences.")) || created["url"] != nil {
			t.Fatalf("creation data: %v", created)
		}
		id := created["id"].(string)
		older := b.do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"Second voice, with no name given at all here today"}`).want(t, 201).data(t)
		if older["name"] != "Second voice, with no name given at all…" {
			t.Fatalf("default name: %q", older["name"])
		}

		list := b.do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").want(t, 200)
		items := list.body["data"].([]any)
		if len(items) != 2 || items[0].(map[string]any)["id"] != older["id"] {
			t.Fatalf("list must hold both voices, newest first: %s", list.raw)
		}
		if got := keysOf(items[1].(map[string]any)); got != "contentLength,createdAt,id,name,type,updatedAt,url" {
			t.Fatalf("list item fields: %s", got)
		}

		one := b.do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").want(t, 200).data(t)
		if got := keysOf(one); got != "content,createdAt,fetchInterval,id,lastFetch,name,type,updatedAt,url" {
			t.Fatalf("single fetch fields: %s", got)
		}
		if one["content"] != "We write plainly.\nShort sentences." || one["fetchInterval"] != nil || one["lastFetch"] != nil {
			t.Fatalf("single fetch: %v", one)
		}

		updated := b.do(t, "PUT", "/v1/ai/brand-voice/"+id, b.alice, `{"fetchInterval":"weekly","url":"https://acme.test"}`).want(t, 200).data(t)
		if updated["name"] != "Plain" || updated["fetchInterval"] != "weekly" || updated["url"] != "https://acme.test" || updated["content"] != one["content"] {
			t.Fatalf("partial update must change only the fields sent: %v", updated)
		}
		if keysOf(updated) != keysOf(one) {
			t.Fatalf("update returns the voice as the single fetch does: %s", keysOf(updated))
		}
		viaChat := b.do(t, "PUT", "/v1/ai/chat/brandVoices/"+id, b.alice, `{"name":"Plainer"}`).want(t, 200).data(t)
		if viaChat["name"] != "Plainer" || viaChat["fetchInterval"] != "weekly" {
			t.Fatalf("chat helper update: %v", viaChat)
		}

		b.do(t, "DELETE", "/v1/ai/chat/brandVoices/"+id, b.alice, "").want(t, 200)
		b.do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").want(t, 404)
		b.do(t, "DELETE", "/v1/ai/brand-voice/"+id, b.alice, "").want(t, 404)
		b.do(t, "DELETE", "/v1/ai/brand-voice/"+older["id"].(string), b.alice, "").want(t, 200)
		after := b.do(t, "GET", "/v1/ai/brand-voice", b.alice, "").want(t, 200)
		if items := after.body["data"].([]any); len(items) != 0 {
			t.Fatalf("deleted voices still listed: %s", after.raw)
		}
		var active bool
		if err := storetest.QueryRow(context.Background(), s, `SELECT is_active FROM brand_voices WHERE id = $1`, id).Scan(&active); err != nil || active {
			t.Fatalf("soft delete keeps the record inactive: active=%v err=%v", active, err)
		}
	})
}

func TestEveryRouteNeedsAValidAPIKey(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	routes := []struct{ method, path, body string }{
		{"POST", "/v1/ai/generate/brand-voice/text", `{"content":"x"}`},
		{"GET", "/v1/ai/brand-voice/", ""},
		{"GET", "/v1/ai/brand-voice/abc", ""},
		{"PUT", "/v1/ai/brand-voice/abc", `{"name":"x"}`},
		{"DELETE", "/v1/ai/brand-voice/abc", ""},
		{"PUT", "/v1/ai/chat/brandVoices/abc", `{"name":"x"}`},
		{"DELETE", "/v1/ai/chat/brandVoices/abc", ""},
	}
	for _, rt := range routes {
		for _, key := range []string{"", "hk_not-a-real-key", "sk_wrongprefix", strings.Repeat("hk_", 60)} {
			r := b.do(t, rt.method, rt.path, key, rt.body).want(t, 401)
			if key == "" && !strings.Contains(r.body["message"].(string), "api-key") {
				t.Errorf("%s %s: missing key message should name the header: %s", rt.method, rt.path, r.raw)
			}
		}
	}
	// A session JWT is not an API key: brand-voice routes take only api-key.
	token, _ := auth.SignSession(jwtSecret, b.acmeID, b.aliceID, 3600e9)
	req, _ := http.NewRequest("GET", b.url+"/v1/ai/brand-voice/", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("session JWT on an api-key route: %d", res.StatusCode)
	}
	// Operational routes are public.
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		res, err := http.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
}

func TestVoicesOfAnotherWorkspaceLookMissing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		id := b.do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"acme voice"}`).want(t, 201).data(t)["id"].(string)
		b.do(t, "GET", "/v1/ai/brand-voice/"+id, b.mallory, "").want(t, 404)
		b.do(t, "PUT", "/v1/ai/brand-voice/"+id, b.mallory, `{"name":"mine now"}`).want(t, 404)
		b.do(t, "PUT", "/v1/ai/chat/brandVoices/"+id, b.mallory, `{"name":"mine now"}`).want(t, 404)
		b.do(t, "DELETE", "/v1/ai/brand-voice/"+id, b.mallory, "").want(t, 404)
		b.do(t, "DELETE", "/v1/ai/chat/brandVoices/"+id, b.mallory, "").want(t, 404)
		if items := b.do(t, "GET", "/v1/ai/brand-voice/", b.mallory, "").want(t, 200).body["data"].([]any); len(items) != 0 {
			t.Fatalf("other workspace lists acme's voices: %v", items)
		}
		if got := b.do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").want(t, 200).data(t)["name"]; got != "acme voice" {
			t.Fatalf("voice changed by another workspace: %v", got)
		}
	})
}

func TestPersonalVoicesBelongToTheirAuthor(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		personal := b.do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"just me","scope":"personal"}`).want(t, 201).data(t)["id"].(string)
		team := b.do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"all of us"}`).want(t, 201).data(t)["id"].(string)
		b.do(t, "GET", "/v1/ai/brand-voice/"+personal, b.alice, "").want(t, 200)
		b.do(t, "GET", "/v1/ai/brand-voice/"+personal, b.bob, "").want(t, 404)
		b.do(t, "PUT", "/v1/ai/brand-voice/"+personal, b.bob, `{"name":"x"}`).want(t, 404)
		b.do(t, "DELETE", "/v1/ai/brand-voice/"+personal, b.bob, "").want(t, 404)
		b.do(t, "GET", "/v1/ai/brand-voice/"+team, b.bob, "").want(t, 200)
		items := b.do(t, "GET", "/v1/ai/brand-voice/", b.bob, "").want(t, 200).body["data"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["id"] != team {
			t.Fatalf("bob's list: %v", items)
		}
	})
}

func TestBadRequestsGetClearErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	id := b.do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"x"}`).want(t, 201).data(t)["id"].(string)
	cases := []struct {
		name, method, path, body string
		status                   int
		mention                  string
	}{
		{"malformed JSON", "POST", "/v1/ai/generate/brand-voice/text", `{"content":`, 400, "malformed JSON"},
		{"a body that is not an object", "POST", "/v1/ai/generate/brand-voice/text", `["content"]`, 400, "JSON object"},
		{"a number where a string belongs", "POST", "/v1/ai/generate/brand-voice/text", `{"content":42}`, 400, "content"},
		{"an object where a string belongs", "PUT", "/v1/ai/brand-voice/" + id, `{"name":{"a":1}}`, 400, "name"},
		{"missing content", "POST", "/v1/ai/generate/brand-voice/text", `{"name":"x"}`, 400, "content is required"},
		{"blank content", "POST", "/v1/ai/generate/brand-voice/text", `{"content":"   "}`, 400, "content is required"},
		{"an unknown scope", "POST", "/v1/ai/generate/brand-voice/text", `{"content":"x","scope":"global"}`, 400, "scope"},
		{"an unknown fetch interval", "PUT", "/v1/ai/brand-voice/" + id, `{"fetchInterval":"hourly"}`, 400, "fetchInterval"},
		{"an empty update", "PUT", "/v1/ai/brand-voice/" + id, `{}`, 400, "nothing to update"},
		{"an empty name", "PUT", "/v1/ai/brand-voice/" + id, `{"name":" "}`, 400, "name"},
		{"a body over the limit", "POST", "/v1/ai/generate/brand-voice/text", `{"content":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "limit"},
		{"an unknown route", "GET", "/v1/ai/nothing-here", "", 404, "no route"},
		{"a wrong method", "PATCH", "/v1/ai/brand-voice/" + id, "", 405, "not allowed"},
		{"an unknown voice", "GET", "/v1/ai/brand-voice/does-not-exist", "", 404, "not found"},
	}
	for _, c := range cases {
		t.Run(c.name+" gives "+http.StatusText(c.status), func(t *testing.T) {
			r := b.do(t, c.method, c.path, b.alice, c.body).want(t, c.status)
			if msg := r.body["message"].(string); !strings.Contains(msg, c.mention) {
				t.Fatalf("message %q should mention %q", msg, c.mention)
			}
		})
	}
	// Nothing half-written: the rejected creations stored nothing.
	if items := b.do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").want(t, 200).body["data"].([]any); len(items) != 1 {
		t.Fatalf("rejected requests stored voices: %v", items)
	}
}

func TestMetricsCountRequestsByRoute(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	b.do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").want(t, 200)
	b.do(t, "GET", "/v1/ai/brand-voice/x", b.alice, "").want(t, 404)
	res, err := http.Get(b.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for _, want := range []string{
		`herald_http_requests_total{method="GET",route="GET /v1/ai/brand-voice/{$}",status="200"} 1`,
		`herald_http_requests_total{method="GET",route="GET /v1/ai/brand-voice/{id}",status="404"} 1`,
		`herald_http_request_duration_seconds_bucket{method="GET",route="GET /v1/ai/brand-voice/{id}"`,
	} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("responses carry no X-Request-Id")
	}
}

// voiceAPI is the brand-voice handler over a service of d.
func voiceAPI(t testing.TB, d voice.Deps) *voice.Handler {
	t.Helper()
	svc, err := voice.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return voice.NewHandler(svc)
}
