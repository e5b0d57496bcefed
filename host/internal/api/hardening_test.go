package api_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// scrape returns the text of /metrics.
func (b *testBundle) scrape(t testing.TB) string {
	t.Helper()
	res, err := http.Get(b.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return string(body)
}

func TestMetricLabelsComeFromAClosedSet(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t))
	// Made-up procedures under a real service, made-up methods and paths.
	for i, path := range []string{
		"/herald.api.v1.BrandVoiceService/MadeUpProcedure" + strings.Repeat("x", 2000),
		"/herald.api.v1.BrandVoiceService/AnotherMadeUpOne",
		"/no/such/route/" + strings.Repeat("y", 100),
	} {
		req, _ := http.NewRequest(http.MethodPost, b.URL+path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if i == 2 {
			req.Method = "BREWCOFFEE"
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	req, _ := http.NewRequest("PROPFINDX", b.URL+"/v1/ai/brand-voice/", nil)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
	// A real procedure keeps its own label.
	c := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL)
	if _, err := c.ListBrandVoices(context.Background(), withKey(&apiv1.ListBrandVoicesRequest{}, b.alice)); err != nil {
		t.Fatal(err)
	}

	metrics := b.scrape(t)
	for _, leaked := range []string{"MadeUp", "xxxx", "yyyy", "BREWCOFFEE", "PROPFINDX"} {
		if strings.Contains(metrics, leaked) {
			t.Errorf("/metrics carries a client-chosen label %q", leaked)
		}
	}
	for _, want := range []string{
		`herald_http_requests_total{method="POST",route="unmatched",status="404"} 2`,
		`method="other"`,
		`route="/herald.api.v1.BrandVoiceService/ListBrandVoices"`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestAMetricsTokenGuardsMetricsAndReflection(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	d := voiceDeps(t, s, voice.Deps{Store: s})
	d.MetricsToken = "operator-token"
	srv := apitest.Start(t, d)
	get := func(path, authz string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(""))
		if path == "/metrics" {
			req.Method = http.MethodGet
		}
		req.Header.Set("Content-Type", "application/grpc-web+proto")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	const reflection = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	for _, path := range []string{"/metrics", reflection} {
		if got := get(path, ""); got != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, got)
		}
		if got := get(path, "Bearer wrong"); got != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d, want 401", path, got)
		}
	}
	if got := get("/metrics", "bearer operator-token"); got != http.StatusOK {
		t.Errorf("/metrics with the token: %d, want 200", got)
	}
	if got := get(reflection, "Bearer operator-token"); got == http.StatusUnauthorized {
		t.Errorf("reflection with the token: %d", got)
	}
}

func TestNULBytesAre400NamingTheFieldOnBothStores(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		for _, tc := range []struct{ method, path, body, field string }{
			{"POST", "/v1/ai/generate/brand-voice/text", `{"content":"a\u0000b","name":"n"}`, "content"},
			{"POST", "/v1/ai/generate/brand-voice/text", `{"content":"ok","name":"n\u0000"}`, "name"},
			{"GET", "/v1/ai/brand-voice/x%00y", "", "id"},
		} {
			res := b.Do(t, tc.method, tc.path, b.alice, tc.body).WantMessage(t, http.StatusBadRequest)
			if msg := res.Body["message"]; msg != "field "+tc.field+" must not contain NUL (\\u0000) characters" {
				t.Errorf("%s %s: message %q", tc.method, tc.path, msg)
			}
		}
		c := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.URL)
		_, err := c.CreateBrandVoiceFromText(context.Background(), withKey(&apiv1.CreateBrandVoiceFromTextRequest{Content: "a\x00b", Name: "n"}, b.alice))
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "field content must not contain NUL") {
			t.Errorf("Connect: %v", err)
		}
		if items := b.Do(t, "GET", "/v1/ai/brand-voice/", b.alice, "").WantMessage(t, 200).Body["data"].([]any); len(items) != 0 {
			t.Errorf("refused requests stored voices: %v", items)
		}
	})
}

func TestVoiceCountIsCappedPerWorkspace(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	b := keys(t, s)
	b.Server = apitest.Start(t, voiceDeps(t, s, voice.Deps{Store: s, Quota: quota.New(s, config.Limits{MaxVoices: 2, MaxNameLength: 100})}))
	for range 2 {
		b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"c"}`).WantMessage(t, http.StatusCreated)
	}
	res := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.bob, `{"content":"c"}`).WantMessage(t, http.StatusTooManyRequests)
	if !strings.Contains(res.Raw, "limit of 2 voices") {
		t.Errorf("third voice: %s", res.Raw)
	}
	b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.mallory, `{"content":"c"}`).WantMessage(t, http.StatusCreated)
}

// A voice's name follows the plan's name length, with the one message of
// the name rule.
func TestVoiceNamesFollowThePlansNameLength(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	b := keys(t, s)
	b.Server = apitest.Start(t, voiceDeps(t, s, voice.Deps{Store: s, Quota: quota.New(s, config.Limits{MaxNameLength: 10})}))
	res := b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"c","name":"eleven char"}`).WantMessage(t, http.StatusBadRequest)
	if res.Body["message"] != "name is longer than 10 characters" {
		t.Errorf("long name: %s", res.Raw)
	}
	b.Do(t, "POST", "/v1/ai/generate/brand-voice/text", b.alice, `{"content":"c","name":"ten chars!"}`).WantMessage(t, http.StatusCreated)
}
