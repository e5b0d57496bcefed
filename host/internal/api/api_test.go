package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
)

// testBundle is a real API server (apitest: HTTP/1.1 and cleartext
// HTTP/2) on a migrated store, with keys for two users of workspace "acme"
// and one user of workspace "other".
type testBundle struct {
	*apitest.Server
	store                  *store.Store
	alice, bob, mallory    string
	aliceID, bobID, acmeID string
}

const jwtSecret = apitest.JWTSecret

// setup serves voiceDeps(t, s, voice.Deps{Store: s}).
func setup(t testing.TB, s *store.Store) *testBundle {
	t.Helper()
	b := keys(t, s)
	b.Server = apitest.Start(t, voiceDeps(t, s, voice.Deps{Store: s}))
	return b
}

// keys creates the bundle's users and keys; the test starts the server.
func keys(t testing.TB, s *store.Store) *testBundle {
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
	return b
}

// voiceDeps is the API of these tests: brand voices over a service of d,
// blobs in a temporary directory, a 64 KiB body limit.
func voiceDeps(t testing.TB, s *store.Store, d voice.Deps) api.Deps {
	t.Helper()
	blobs, err := blob.NewFS(t.TempDir(), "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	return api.Deps{Store: s, MaxBodyBytes: 64 << 10, Blobs: blobs, Voices: voiceAPI(t, d)}
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
		created := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"  We write plainly.\nShort sentences.  ","name":"Plain"}`).WantMessage(t, 201).Data(t)
		if got := keysOf(created); got != "contentLength,id,name,type,url" {
			t.Fatalf("creation data fields: %s", got)
		}
		if created["type"] != "text" || created["name"] != "Plain" || created["contentLength"] != float64(len("We write plainly.\nShort sentences.")) || created["url"] != nil {
			t.Fatalf("creation data: %v", created)
		}
		id := created["id"].(string)
		older := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"Second voice, with no name given at all here today"}`).WantMessage(t, 201).Data(t)
		if older["name"] != "Second voice, with no name given at all…" {
			t.Fatalf("default name: %q", older["name"])
		}

		list := b.Do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").WantMessage(t, 200)
		items := list.Body["data"].([]any)
		if len(items) != 2 || items[0].(map[string]any)["id"] != older["id"] {
			t.Fatalf("list must hold both voices, newest first: %s", list.Raw)
		}
		if got := keysOf(items[1].(map[string]any)); got != "contentLength,createdAt,id,name,type,updatedAt,url" {
			t.Fatalf("list item fields: %s", got)
		}

		one := b.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").WantMessage(t, 200).Data(t)
		if got := keysOf(one); got != "content,createdAt,fetchInterval,id,isActive,lastFetch,name,type,updatedAt,url" {
			t.Fatalf("single fetch fields: %s", got)
		}
		if one["content"] != "We write plainly.\nShort sentences." || one["fetchInterval"] != nil || one["lastFetch"] != nil || one["isActive"] != true {
			t.Fatalf("single fetch: %v", one)
		}

		updated := b.Do(t, "PUT", "/v1/ai/brand-voice/"+id, b.alice, `{"fetchInterval":"weekly","url":"https://acme.test"}`).WantMessage(t, 200).Data(t)
		if updated["name"] != "Plain" || updated["fetchInterval"] != "weekly" || updated["url"] != "https://acme.test" || updated["content"] != one["content"] {
			t.Fatalf("partial update must change only the fields sent: %v", updated)
		}
		if keysOf(updated) != keysOf(one) {
			t.Fatalf("update returns the voice as the single fetch does: %s", keysOf(updated))
		}
		viaChat := b.Do(t, "PUT", "/v1/ai/chat/brandVoices/"+id, b.alice, `{"name":"Plainer"}`).WantMessage(t, 200).Data(t)
		if viaChat["name"] != "Plainer" || viaChat["fetchInterval"] != "weekly" {
			t.Fatalf("chat helper update: %v", viaChat)
		}

		b.Do(t, "DELETE", "/v1/ai/chat/brandVoices/"+id, b.alice, "").WantMessage(t, 200)
		b.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").WantMessage(t, 404)
		b.Do(t, "DELETE", "/v1/ai/brand-voice/"+id, b.alice, "").WantMessage(t, 404)
		b.Do(t, "DELETE", "/v1/ai/brand-voice/"+older["id"].(string), b.alice, "").WantMessage(t, 200)
		after := b.Do(t, "GET", "/v1/ai/brand-voice", b.alice, "").WantMessage(t, 200)
		if items := after.Body["data"].([]any); len(items) != 0 {
			t.Fatalf("deleted voices still listed: %s", after.Raw)
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
			r := b.Do(t, rt.method, rt.path, key, rt.body).WantMessage(t, 401)
			if key == "" && !strings.Contains(r.Body["message"].(string), "api-key") {
				t.Errorf("%s %s: missing key message should name the header: %s", rt.method, rt.path, r.Raw)
			}
		}
	}
	// A session JWT is not an API key: brand-voice routes take only api-key.
	token, _ := auth.SignSession(jwtSecret, b.acmeID, b.aliceID, 3600e9)
	req, _ := http.NewRequest("GET", b.URL+"/v1/ai/brand-voice/", nil)
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
		res, err := http.Get(b.URL + path)
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
		id := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"acme voice"}`).WantMessage(t, 201).Data(t)["id"].(string)
		b.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.mallory, "").WantMessage(t, 404)
		b.Do(t, "PUT", "/v1/ai/brand-voice/"+id, b.mallory, `{"name":"mine now"}`).WantMessage(t, 404)
		b.Do(t, "PUT", "/v1/ai/chat/brandVoices/"+id, b.mallory, `{"name":"mine now"}`).WantMessage(t, 404)
		b.Do(t, "DELETE", "/v1/ai/brand-voice/"+id, b.mallory, "").WantMessage(t, 404)
		b.Do(t, "DELETE", "/v1/ai/chat/brandVoices/"+id, b.mallory, "").WantMessage(t, 404)
		if items := b.Do(t, "GET", "/v1/ai/brand-voice/", b.mallory, "").WantMessage(t, 200).Body["data"].([]any); len(items) != 0 {
			t.Fatalf("other workspace lists acme's voices: %v", items)
		}
		if got := b.Do(t, "GET", "/v1/ai/brand-voice/"+id, b.alice, "").WantMessage(t, 200).Data(t)["name"]; got != "acme voice" {
			t.Fatalf("voice changed by another workspace: %v", got)
		}
	})
}

func TestPersonalVoicesBelongToTheirAuthor(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		personal := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"just me","scope":"personal"}`).WantMessage(t, 201).Data(t)["id"].(string)
		team := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"all of us"}`).WantMessage(t, 201).Data(t)["id"].(string)
		b.Do(t, "GET", "/v1/ai/brand-voice/"+personal, b.alice, "").WantMessage(t, 200)
		b.Do(t, "GET", "/v1/ai/brand-voice/"+personal, b.bob, "").WantMessage(t, 404)
		b.Do(t, "PUT", "/v1/ai/brand-voice/"+personal, b.bob, `{"name":"x"}`).WantMessage(t, 404)
		b.Do(t, "DELETE", "/v1/ai/brand-voice/"+personal, b.bob, "").WantMessage(t, 404)
		b.Do(t, "GET", "/v1/ai/brand-voice/"+team, b.bob, "").WantMessage(t, 200)
		items := b.Do(t, "GET", "/v1/ai/brand-voice/", b.bob, "").WantMessage(t, 200).Body["data"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["id"] != team {
			t.Fatalf("bob's list: %v", items)
		}
	})
}

func TestBadRequestsGetClearErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	id := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"x"}`).WantMessage(t, 201).Data(t)["id"].(string)
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
			r := b.Do(t, c.method, c.path, b.alice, c.body).WantMessage(t, c.status)
			if msg := r.Body["message"].(string); !strings.Contains(msg, c.mention) {
				t.Fatalf("message %q should mention %q", msg, c.mention)
			}
		})
	}
	// Nothing half-written: the rejected creations stored nothing.
	if items := b.Do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").WantMessage(t, 200).Body["data"].([]any); len(items) != 1 {
		t.Fatalf("rejected requests stored voices: %v", items)
	}
}

func TestMetricsCountRequestsByRoute(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	b.Do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").WantMessage(t, 200)
	b.Do(t, "GET", "/v1/ai/brand-voice/x", b.alice, "").WantMessage(t, 404)
	res, err := http.Get(b.URL + "/metrics")
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
