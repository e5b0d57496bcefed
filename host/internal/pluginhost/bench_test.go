package pluginhost

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// BenchmarkPluginCall compares a call through the Manager (generation
// reference, model route, default call timeout, crash detection, metrics)
// with a bare go-plugin gRPC call by the same client to the same subprocess,
// alternating the two so that both see the same machine. It reports the p50
// and p99 of each and their ratio; ns/op counts one call of each.
//
//	go test -run '^$' -bench BenchmarkPluginCall -benchtime 5000x ./host/internal/pluginhost
func BenchmarkPluginCall(b *testing.B) {
	cfg := testConfig()
	addProvider(cfg, "echo", "echo", "")
	cfg.Plugins["slack"] = config.Plugin{Name: "slack", Kind: "destination", Command: bin.slackdest}
	m, err := NewManager(hclog.NewNullLogger(), cfg, prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(m.Close)
	ctx := context.Background()

	b.Run("GenerateText", func(b *testing.B) {
		req := sdk.TextRequest{Prompt: "ping"}
		if _, err := m.GenerateText(ctx, "echo", req); err != nil { // starts the plugin
			b.Fatal(err)
		}
		bare := m.cur.procs["echo"].live.Load().provider
		breq := req
		breq.Model = "echo"
		compare(b,
			func() error { _, err := bare.GenerateText(ctx, breq); return err },
			func() error { _, err := m.GenerateText(ctx, "echo", req); return err })
	})
	b.Run("Validate", func(b *testing.B) {
		req := sdk.ValidateRequest{
			Content:     sdk.Content{"title": "Launch", "text": "We shipped the thing."},
			Credentials: map[string]string{"webhook_url": "https://hooks.slack.com/services/T/B/X"},
		}
		if _, err := m.Validate(ctx, "slack", req); err != nil {
			b.Fatal(err)
		}
		bare := m.cur.procs["slack"].live.Load().destination
		compare(b,
			func() error { _, err := bare.Validate(ctx, req); return err },
			func() error { _, err := m.Validate(ctx, "slack", req); return err })
	})
}

// echoProvider answers GenerateText with the prompt.
type echoProvider struct{}

func (echoProvider) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{Name: "echo"}, nil
}

func (echoProvider) GenerateText(_ context.Context, r sdk.TextRequest) (sdk.TextResponse, error) {
	return sdk.TextResponse{Text: r.Prompt, Model: r.Model}, nil
}

func (echoProvider) Chat(context.Context, sdk.ChatRequest, sdk.ChatStream) error { return nil }

// runningClient stands for a plugin process that never exits.
type runningClient struct{}

func (runningClient) Exited() bool { return false }
func (runningClient) Kill()        {}

// BenchmarkManagerOverheadInProcess isolates what the Manager adds to a call:
// the plugin is served in this process over go-plugin's local gRPC
// connection (no second process, no TLS), so machine load and process
// scheduling weigh less than in BenchmarkPluginCall.
//
//	go test -run '^$' -bench BenchmarkManagerOverheadInProcess -benchtime 20000x ./host/internal/pluginhost
func BenchmarkManagerOverheadInProcess(b *testing.B) {
	pc := plugintest.InProcessProvider(b, echoProvider{})
	cfg := testConfig()
	addProvider(cfg, "echo", "echo", "")
	m, err := NewManager(hclog.NewNullLogger(), cfg, prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(m.Close)
	m.cur.procs["echo"].live.Store(&handle{client: runningClient{}, provider: pc})
	ctx := context.Background()
	req := sdk.TextRequest{Prompt: "ping"}
	breq := sdk.TextRequest{Prompt: "ping", Model: "echo"}
	compare(b,
		func() error { _, err := pc.GenerateText(ctx, breq); return err },
		func() error { _, err := m.GenerateText(ctx, "echo", req); return err })
}

func compare(b *testing.B, bare, managed func() error) {
	for range 200 { // warm up connections and caches
		if bare() != nil || managed() != nil {
			b.Fatal("warm-up call failed")
		}
	}
	var bareLat, mgrLat []time.Duration
	i := 0
	for b.Loop() {
		first, second, fl, sl := bare, managed, &bareLat, &mgrLat
		if i%2 == 1 {
			first, second, fl, sl = managed, bare, &mgrLat, &bareLat
		}
		i++
		t0 := time.Now()
		if err := first(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := second(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		*fl = append(*fl, t1.Sub(t0))
		*sl = append(*sl, t2.Sub(t1))
	}
	bp50, bp99 := percentiles(bareLat)
	mp50, mp99 := percentiles(mgrLat)
	b.ReportMetric(us(bp50), "bare-p50-µs")
	b.ReportMetric(us(bp99), "bare-p99-µs")
	b.ReportMetric(us(mp50), "mgr-p50-µs")
	b.ReportMetric(us(mp99), "mgr-p99-µs")
	if bp50 > 0 {
		b.ReportMetric(float64(mp50)/float64(bp50), "ratio-p50")
	}
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
