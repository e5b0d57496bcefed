package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/pluginhost/pluginhosttest"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

func TestMain(m *testing.M) { pluginhosttest.Main(m) }

func plugins(t testing.TB) *pluginhost.Manager { return pluginhosttest.Manager(t, true) }

// bundle is a real API server (traffic, scheduler, voices, visibility) on
// a migrated store, with the dashboard mounted as the host mounts it.
type bundle struct {
	url   string
	store *store.Store
	key   string
	ws    store.Workspace
}

func setup(t testing.TB, st *store.Store) *bundle {
	t.Helper()
	ctx := context.Background()
	b := &bundle{store: st}
	var err error
	if b.key, err = auth.CreateKey(ctx, st, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	if b.ws, _, err = st.EnsureWorkspaceUser(ctx, "acme", "business", "owner@acme.test"); err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewFS(t.TempDir(), "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	// The queue is not started: posts scheduled here stay pending until
	// the test cancels them, and no report job runs.
	q, err := jobs.New(jobs.Options{Store: st, PollInterval: time.Second, Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	dests, err := destination.New(destination.Deps{Store: st, Plugins: plugins(t), SecretKey: "dashboard-test-secret", Plans: plans.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := schedule.New(schedule.Deps{
		Store: st, Queue: q, Destinations: plugins(t), Credentials: dests, Blobs: blobs,
		Plans: plans.New(nil), AllowedPrivateCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	})
	if err != nil {
		t.Fatal(err)
	}
	vis, err := visibility.New(visibility.Deps{Store: st, Queue: q, Models: noModels{}, Site: noSite{}, Config: config.Visibility{Engines: []string{"gpt", "claude"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	b.url = "http://" + srv.Listener.Addr().String()
	w := traffic.NewWriter(st, traffic.WriterOptions{})
	t.Cleanup(w.Close) // after the server: cleanups run last-in first-out
	voices, err := voice.New(voice.Deps{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	trafficSvc, err := traffic.New(traffic.Deps{Store: st, Writer: w, BaseURL: b.url})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = api.NewServer(api.Deps{
		Logger: hclog.NewNullLogger(), Store: st, Auth: auth.NewAuthenticator(st, ""), Registry: prometheus.NewRegistry(),
		MaxBodyBytes: 1 << 20, Blobs: blobs,
		Voices:       voice.NewHandler(voices),
		Traffic:      traffic.NewHandler(trafficSvc),
		Jobs:         jobs.NewAPIHandler(q),
		Scheduler:    schedule.NewHandler(sched),
		Destinations: destination.NewHandler(dests),
		Visibility:   visibility.NewHandler(vis),
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return b
}

// noModels and noSite stand in for engines and the crawler: the
// dashboard reads stored reports and never runs one.
type noModels struct{}

func (noModels) Models() []string { return []string{"gpt", "claude"} }
func (noModels) GenerateText(context.Context, string, sdk.TextRequest) (sdk.TextResponse, error) {
	return sdk.TextResponse{}, fmt.Errorf("no engine in the dashboard test")
}

type noSite struct{}

func (noSite) Crawl(context.Context, string) (site.Site, error) {
	return site.Site{}, fmt.Errorf("no crawler in the dashboard test")
}

// call sends a JSON request with the workspace key and decodes the answer.
func (b *bundle) call(t testing.TB, method, path, body string, want int) map[string]any {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, b.url+path, r)
	req.Header.Set("api-key", b.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || res.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, raw, want)
	}
	return out
}

// pngFile writes a small real PNG for the upload.
func pngFile(t testing.TB) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := 0; x < 16; x++ {
		for y := 0; y < 16; y++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: 80, B: uint8(y * 16), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := t.TempDir() + "/launch.png"
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
