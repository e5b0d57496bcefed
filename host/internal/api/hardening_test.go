package api_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// scrape returns the text of /metrics.
func (b *testBundle) scrape(t testing.TB) string {
	t.Helper()
	res, err := http.Get(b.url + "/metrics")
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
		req, _ := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader("{}"))
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
	req, _ := http.NewRequest("PROPFINDX", b.url+"/v1/ai/brand-voice/", nil)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
	// A real procedure keeps its own label.
	c := apiv1connect.NewBrandVoiceServiceClient(http.DefaultClient, b.url)
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
