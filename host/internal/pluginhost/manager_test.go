package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/internal/testwait"
	firstparty "github.com/heraldhq/herald/plugins"
	"github.com/heraldhq/herald/sdk"
)

// bin holds the test plugins, built once for the package.
var bin struct{ testplugin, slackdest string }

func TestMain(m *testing.M) {
	// The manager runs its own executable as `herald plugin NAME` for
	// first-party plugins; under test that executable is this test binary.
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := firstparty.Serve(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "herald-plugins-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./testdata/testplugin", "github.com/heraldhq/herald/sdk/examples/slackdest")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build test plugins: %v\n%s", err, out)
		os.Exit(1)
	}
	bin.testplugin, bin.slackdest = filepath.Join(dir, "testplugin"), filepath.Join(dir, "slackdest")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Call and Answer mirror testdata/testplugin: what the plugin reports to the
// control server before answering, and how it is told to answer.
type Call struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	PID    int    `json:"pid"`
}

// Answer says how testplugin answers a call.
type Answer struct {
	Text       string `json:"text"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Retryable  bool   `json:"retryable"`
	Status     int    `json:"status"`
	RetryAfter int    `json:"retry_after"`
}

// control is the test's side of testplugin: it records every call and
// answers with answer, which may block until the request is canceled (its
// plugin died) or the test releases it.
type control struct {
	url    string
	mu     sync.Mutex
	calls  []Call
	answer func(r *http.Request, c Call) Answer
}

func newControl(t *testing.T, answer func(r *http.Request, c Call) Answer) *control {
	c := &control{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call Call
		if err := json.NewDecoder(r.Body).Decode(&call); err != nil {
			t.Errorf("control: %v", err)
		}
		c.mu.Lock()
		c.calls = append(c.calls, call)
		answer := c.answer
		c.mu.Unlock()
		a := Answer{Text: call.Prompt}
		if answer != nil {
			a = answer(r, call)
		}
		_ = json.NewEncoder(w).Encode(a)
	}))
	t.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

// count returns how many calls plugin id received.
func (c *control) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, call := range c.calls {
		if call.ID == id {
			n++
		}
	}
	return n
}

// testConfig is a config with no plugins or models and quick router settings.
func testConfig() *config.Config {
	c := config.Default()
	c.Plugins = map[string]config.Plugin{}
	c.Models = map[string]config.Model{}
	c.PluginCallTimeout = 20 * time.Second
	c.Router = config.Router{Retries: 1, RetryBackoff: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second, AllowedFails: 3, Cooldown: time.Minute}
	return c
}

// addProvider adds testplugin as provider name (reporting as id) and a model
// of the same name routed to it.
func addProvider(c *config.Config, name, id, controlURL string) {
	c.Plugins[name] = config.Plugin{Name: name, Kind: "provider", Command: bin.testplugin, Env: map[string]string{"TESTPLUGIN_ID": id, "TESTPLUGIN_CONTROL": controlURL}}
	c.Models[name] = config.Model{Name: name, Deployments: []config.Deployment{{Provider: name}}}
}

type testBundle struct {
	m   *Manager
	reg *prometheus.Registry
	log *testlog.Buffer
}

func setup(t *testing.T, cfg *config.Config) *testBundle {
	t.Helper()
	b := &testBundle{reg: prometheus.NewRegistry(), log: &testlog.Buffer{}}
	// JSON, as operators run it: values must read well there too.
	log := hclog.New(&hclog.LoggerOptions{Name: "herald", Output: b.log, Level: hclog.Debug, JSONFormat: true})
	m, err := NewManager(log, cfg, b.reg)
	if err != nil {
		t.Fatal(err)
	}
	b.m = m
	t.Cleanup(func() {
		m.Close()
		if t.Failed() {
			t.Logf("host log:\n%s", b.log.String())
		}
	})
	return b
}

func (b *testBundle) calls(plugin, method, outcome string) float64 {
	return testutil.ToFloat64(b.m.met.calls.WithLabelValues(plugin, method, outcome))
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestNoPluginStartsBeforeItsFirstCall(t *testing.T) {
	t.Parallel()
	ctl := newControl(t, nil)
	cfg := testConfig()
	addProvider(cfg, "a", "a", ctl.url)
	addProvider(cfg, "b", "b", ctl.url)
	b := setup(t, cfg)
	if pa, pb := b.m.cur.procs["a"].pid(), b.m.cur.procs["b"].pid(); pa != 0 || pb != 0 {
		t.Fatalf("pids after NewManager = %d, %d, want none started", pa, pb)
	}
	resp, err := b.m.GenerateText(ctxT(t), "a", sdk.TextRequest{Prompt: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "a:hello" || resp.Model != "a" {
		t.Errorf("response = %+v, want text a:hello from model a", resp)
	}
	if b.m.cur.procs["a"].pid() == 0 || b.m.cur.procs["b"].pid() != 0 {
		t.Error("want a started and b still not started")
	}
	// Only the method called has a series: none pre-created for the others
	// (nor for plugin b) that would read as "supported, never called".
	if n := testutil.CollectAndCount(b.reg, "herald_plugin_calls_total"); n != 1 {
		t.Errorf("herald_plugin_calls_total has %d series after one call, want 1", n)
	}
	if got := b.calls("a", "GenerateText", "ok"); got != 1 {
		t.Errorf("calls_total{a,GenerateText,ok} = %v, want 1", got)
	}
	if got := testutil.CollectAndCount(b.reg, "herald_plugin_call_duration_seconds"); got == 0 {
		t.Error("no latency histogram registered")
	}
	// The plugin's own hclog JSON lines reach the host log under its name.
	if log := b.log.String(); !strings.Contains(log, "asking the control server") || !strings.Contains(log, "herald.plugins.a.testplugin") {
		t.Errorf("plugin log not relayed with the plugin's name:\n%s", log)
	}
}

func TestAKilledPluginIsRestartedAndTheIdempotentCallRetried(t *testing.T) {
	t.Parallel()
	blocked := make(chan Call, 1)
	ctl := newControl(t, func(r *http.Request, c Call) Answer {
		if c.Prompt == "block" {
			blocked <- c
			<-r.Context().Done() // until the plugin is killed
			return Answer{}
		}
		return Answer{Text: "answered by pid " + fmt.Sprint(c.PID)}
	})
	cfg := testConfig()
	addProvider(cfg, "a", "a", ctl.url)
	b := setup(t, cfg)

	type result struct {
		resp sdk.TextResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := b.m.GenerateText(ctxT(t), "a", sdk.TextRequest{Prompt: "block"})
		done <- result{resp, err}
	}()
	var first Call
	select {
	case first = <-blocked:
	case <-time.After(20 * time.Second):
		t.Fatal("the call never reached the plugin")
	}
	// The control server now answers the retried call.
	ctl.mu.Lock()
	ctl.answer = func(_ *http.Request, c Call) Answer { return Answer{Text: "answered by pid " + fmt.Sprint(c.PID)} }
	ctl.mu.Unlock()
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("retried call failed: %v", r.err)
	}
	if !strings.HasPrefix(r.resp.Text, "a:answered by pid ") || r.resp.Text == "a:answered by pid "+fmt.Sprint(first.PID) {
		t.Errorf("text = %q, want an answer from a new process (the killed one was %d)", r.resp.Text, first.PID)
	}
	if got := testutil.ToFloat64(b.m.met.restarts.WithLabelValues("a")); got != 1 {
		t.Errorf("restarts_total{a} = %v, want 1", got)
	}
	if n := ctl.count("a"); n != 2 {
		t.Errorf("plugin saw %d calls, want 2 (the killed one and its retry)", n)
	}
	// The restart's backoff reads as a duration, not as nanoseconds.
	if !strings.Contains(b.log.String(), `"backoff":"0s"`) {
		t.Errorf("no restart log line with \"backoff\":\"0s\":\n%s", b.log.String())
	}
}

func TestAnExportInFlightWhenThePluginDiesIsNotRepeated(t *testing.T) {
	t.Parallel()
	blocked := make(chan Call, 1)
	ctl := newControl(t, func(r *http.Request, c Call) Answer {
		if c.Prompt == "block" {
			blocked <- c
			<-r.Context().Done()
		}
		return Answer{Text: "exported"}
	})
	cfg := testConfig()
	cfg.Plugins["d"] = config.Plugin{Name: "d", Kind: "destination", Command: bin.testplugin, Env: map[string]string{"TESTPLUGIN_ID": "d", "TESTPLUGIN_CONTROL": ctl.url}}
	b := setup(t, cfg)

	done := make(chan error, 1)
	go func() {
		_, err := b.m.Export(ctxT(t), "d", sdk.ExportRequest{ScheduleID: "s1", IdempotencyKey: "k1", Content: sdk.Content{"text": "block"}})
		done <- err
	}()
	c := <-blocked
	if err := syscall.Kill(c.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodeUnavailable || e.Retryable || !strings.Contains(e.Message, "not repeated") {
		t.Fatalf("error = %v, want a non-retryable unavailable *sdk.Error saying it was not repeated", err)
	}
	if n := ctl.count("d"); n != 1 {
		t.Errorf("plugin saw %d exports, want 1", n)
	}
	// The next export restarts the plugin.
	res, err := b.m.Export(ctxT(t), "d", sdk.ExportRequest{ScheduleID: "s2", IdempotencyKey: "k2", Content: sdk.Content{"text": "go"}})
	if err != nil || res.ExternalID != "d:exported" {
		t.Fatalf("export after the crash = %+v, %v", res, err)
	}
}

func TestAnExportOfAnIdempotentDestinationIsRepeatedOnceWhenThePluginDies(t *testing.T) {
	t.Parallel()
	blocked := make(chan Call, 1)
	var once sync.Once
	ctl := newControl(t, func(r *http.Request, c Call) Answer {
		first := false
		once.Do(func() { first = true })
		if first {
			blocked <- c
			<-r.Context().Done() // until the plugin is killed
			return Answer{}
		}
		return Answer{Text: "exported"}
	})
	cfg := testConfig()
	cfg.Plugins["d"] = config.Plugin{Name: "d", Kind: "destination", Command: bin.testplugin, Env: map[string]string{"TESTPLUGIN_ID": "d", "TESTPLUGIN_CONTROL": ctl.url, "TESTPLUGIN_IDEMPOTENT": "1"}}
	b := setup(t, cfg)

	done := make(chan error, 1)
	go func() {
		_, err := b.m.Export(ctxT(t), "d", sdk.ExportRequest{ScheduleID: "s1", IdempotencyKey: "k1", Content: sdk.Content{"text": "block"}})
		done <- err
	}()
	c := <-blocked
	if err := syscall.Kill(c.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("export of an idempotent destination after a crash = %v, want it repeated and answered", err)
	}
	if n := ctl.count("d"); n != 2 {
		t.Errorf("plugin saw %d exports, want 2 (the killed one and its repeat)", n)
	}
}

func TestAWrongChecksumIsRefusedWithTheFileAndBothSums(t *testing.T) {
	t.Parallel()
	sum, err := fileSHA256(bin.testplugin)
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("0", 64)
	cfg := testConfig()
	addProvider(cfg, "pinned", "pinned", "")
	addProvider(cfg, "tampered", "tampered", "")
	p := cfg.Plugins["pinned"]
	p.SHA256 = sum
	cfg.Plugins["pinned"] = p
	p = cfg.Plugins["tampered"]
	p.SHA256 = wrong
	cfg.Plugins["tampered"] = p
	b := setup(t, cfg)

	_, err = b.m.GenerateText(ctxT(t), "tampered", sdk.TextRequest{Prompt: "x"})
	var ce *ChecksumError
	if !errors.Is(err, ErrChecksumMismatch) || !errors.As(err, &ce) {
		t.Fatalf("error = %v, want a checksum mismatch", err)
	}
	for _, want := range []string{`"tampered"`, bin.testplugin, wrong, sum} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if b.m.cur.procs["tampered"].pid() != 0 {
		t.Error("the tampered plugin was started")
	}
	if resp, err := b.m.GenerateText(ctxT(t), "pinned", sdk.TextRequest{Prompt: "x"}); err != nil || resp.Text != "pinned:x" {
		t.Fatalf("pinned plugin with the right sum: %+v, %v", resp, err)
	}
	st := Statuses(cfg)
	if len(st) != 2 || st[0].Name != "pinned" || st[0].Checksum != "ok" || !strings.HasPrefix(st[1].Checksum, "MISMATCH") {
		t.Errorf("Statuses = %+v", st)
	}
}

func TestReloadSwapsTheProviderWithoutDroppingAnInFlightCall(t *testing.T) {
	t.Parallel()
	holding := make(chan Call, 1)
	release := make(chan struct{})
	ctl := newControl(t, func(_ *http.Request, c Call) Answer {
		if c.Prompt == "hold" {
			holding <- c
			<-release
		}
		return Answer{Text: c.Prompt}
	})
	oldCfg := testConfig()
	addProvider(oldCfg, "p", "old", ctl.url)
	oldCfg.Models["writer"] = config.Model{Name: "writer", Deployments: []config.Deployment{{Provider: "p"}}}
	b := setup(t, oldCfg)

	done := make(chan error, 1)
	var held sdk.TextResponse
	go func() {
		var err error
		held, err = b.m.GenerateText(ctxT(t), "writer", sdk.TextRequest{Prompt: "hold"})
		done <- err
	}()
	oldCall := <-holding

	newCfg := testConfig()
	addProvider(newCfg, "p", "new", ctl.url)
	newCfg.Models["writer"] = config.Model{Name: "writer", Deployments: []config.Deployment{{Provider: "p"}}}
	if err := b.m.Reload(newCfg); err != nil {
		t.Fatal(err)
	}
	resp, err := b.m.GenerateText(ctxT(t), "writer", sdk.TextRequest{Prompt: "fresh"})
	if err != nil || resp.Text != "new:fresh" {
		t.Fatalf("call after reload = %+v, %v; want new:fresh", resp, err)
	}
	if alive(oldCall.PID) != nil {
		t.Fatal("the old generation's process died while its call was in flight")
	}
	close(release)
	if err := <-done; err != nil || held.Text != "old:hold" {
		t.Fatalf("in-flight call = %+v, %v; want old:hold", held, err)
	}
	// The old process is killed once its last call returned.
	if err := testwait.Until(10*time.Second, func() bool { return alive(oldCall.PID) != nil }); err != nil {
		t.Fatalf("old plugin process %d still alive after its generation's last call", oldCall.PID)
	}
}

// alive returns nil while the process pid exists.
func alive(pid int) error { return syscall.Kill(pid, 0) }

func TestTheExampleThirdPartyPluginIsLoadedFromConfig(t *testing.T) {
	t.Parallel()
	var got map[string]string
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/services/T/B/X" {
			t.Errorf("slack got %s %s", r.Method, r.URL.Path)
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(slack.Close)
	cfg := testConfig()
	// The fake Slack listens on loopback, which the guarded client refuses
	// unless config allows it; the manager passes this on to the plugin.
	cfg.AllowedPrivateCIDRs = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	cfg.Plugins["slack"] = config.Plugin{Name: "slack", Kind: "destination", Command: bin.slackdest}
	b := setup(t, cfg)
	ctx := ctxT(t)

	if got := b.m.Destinations(); len(got) != 1 || got[0] != "slack" {
		t.Fatalf("Destinations() = %v", got)
	}
	info, err := b.m.DestinationInfo(ctx, "slack")
	if err != nil || info.Name != "slack" || len(info.RequiredKeys) != 1 || info.RequiredKeys[0] != "text" {
		t.Fatalf("DestinationInfo = %+v, %v", info, err)
	}
	problems, err := b.m.Validate(ctx, "slack", sdk.ValidateRequest{Content: sdk.Content{}, Credentials: map[string]string{}})
	if err != nil || len(problems) != 2 {
		t.Fatalf("Validate of an empty payload = %+v, %v; want two problems", problems, err)
	}
	_, err = b.m.Export(ctx, "slack", sdk.ExportRequest{ScheduleID: "s", IdempotencyKey: "k", Content: sdk.Content{"text": "We shipped."}, Credentials: map[string]string{"webhook_url": slack.URL + "/services/T/B/X"}})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	if got["text"] != "We shipped." {
		t.Errorf("slack received %v", got)
	}
	if _, err := b.m.DestinationInfo(ctx, "nope"); !errors.Is(err, sdk.ErrUnknownDestination) || !strings.Contains(err.Error(), "slack") {
		t.Errorf("unknown destination error = %v, want ErrUnknownDestination naming slack", err)
	}
}

func TestFirstPartyPluginsRunTheHostExecutable(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Plugins["webhook"] = config.Plugin{Name: "webhook", Kind: "destination"}
	b := setup(t, cfg)
	info, err := b.m.DestinationInfo(ctxT(t), "webhook")
	if err != nil || info.Name != "webhook" {
		t.Fatalf("DestinationInfo(webhook) = %+v, %v", info, err)
	}
	line, err := b.m.Check(ctxT(t), "webhook")
	if err != nil || !strings.HasPrefix(line, "destination webhook") {
		t.Errorf("Check = %q, %v", line, err)
	}
}

func TestPluginEnvPutsConfigAfterTheHostAndDropsHostSecrets(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.AllowedPrivateCIDRs = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.0/8")}
	host := []string{"PATH=/bin", "OPENAI_API_KEY=host", "HERALD_SECRET_KEY=s3cret", "HERALD_ALLOWED_PRIVATE_CIDRS=0.0.0.0/0"}
	env := pluginEnv(host, cfg, map[string]string{"OPENAI_API_KEY": "block"})
	last := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		last[k] = v
	}
	if last["OPENAI_API_KEY"] != "block" || last["PATH"] != "/bin" || last[sdk.AllowedPrivateCIDRsEnv] != "10.0.0.0/8,127.0.0.0/8" || last[sdk.LogLevelEnv] != "info" {
		t.Errorf("env = %v", env)
	}
	if _, ok := last["HERALD_SECRET_KEY"]; ok {
		t.Error("the host's secret key reached the plugin")
	}
}

func TestBackoffIsNoneForTheFirstRestartThenDoubles(t *testing.T) {
	t.Parallel()
	want := []time.Duration{0, 0, 250 * time.Millisecond, 500 * time.Millisecond, time.Second}
	for n, w := range want {
		if got := backoff(n); got != w {
			t.Errorf("backoff(%d) = %s, want %s", n, got, w)
		}
	}
	if got := backoff(100); got != maxRestartBackoff {
		t.Errorf("backoff(100) = %s", got)
	}
}

func TestNewManagerRefusesAMissingCommandAndCallsAfterCloseFail(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Plugins["ghost"] = config.Plugin{Name: "ghost", Kind: "destination", Command: "/nonexistent/ghost-plugin"}
	if _, err := NewManager(nil, cfg, nil); err == nil || !strings.Contains(err.Error(), `"ghost"`) {
		t.Fatalf("NewManager error = %v, want one naming the plugin", err)
	}
	cfg = testConfig()
	addProvider(cfg, "a", "a", "")
	b := setup(t, cfg)
	if _, err := b.m.GenerateText(ctxT(t), "a", sdk.TextRequest{Prompt: "x"}); err != nil {
		t.Fatal(err)
	}
	pid := b.m.cur.procs["a"].pid()
	b.m.Close()
	if alive(pid) == nil {
		t.Errorf("plugin process %d alive after Close", pid)
	}
	if _, err := b.m.GenerateText(ctxT(t), "a", sdk.TextRequest{Prompt: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close = %v, want ErrClosed", err)
	}
}
