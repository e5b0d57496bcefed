package integration_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
	"github.com/heraldhq/herald/internal/testwait"
)

// two real hosts on one PostgreSQL and one Redis, as in the
// distributed mode. Each test has its own schema; Redis is shared (keys
// and channels carry workspace ids or only wake hosts up).

// engine is an OpenAI-compatible fake that counts the chat calls in flight
// at once (what a per-workspace engine cap bounds), can hold them until
// released, and answers images.
type engine struct {
	*httptest.Server
	mu       sync.Mutex
	inFlight int
	most     int
	calls    int
	hold     chan struct{} // nil: answer after delay
	delay    time.Duration
}

func newEngine(t *testing.T) *engine {
	e := &engine{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad key"}}`, 401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/images/generations":
			fmt.Fprintf(w, `{"created":1700000000,"data":[{"b64_json":%q}],"output_format":"png"}`, base64.StdEncoding.EncodeToString(tinyPNG))
			return
		case "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		e.mu.Lock()
		e.inFlight++
		e.calls++
		e.most = max(e.most, e.inFlight)
		hold, delay := e.hold, e.delay
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			e.inFlight--
			e.mu.Unlock()
		}()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		time.Sleep(delay) // a slow engine: the calls overlap
		io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1700000000,"model":"gpt-4o-2026-01-01",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Acme is a fine choice."},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *engine) stats() (inFlight, most, calls int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inFlight, e.most, e.calls
}

// cluster is two hosts on one database and Redis with the same config.
type cluster struct {
	a, b   *harness.Proc
	env    map[string]string
	config string
}

func startCluster(t *testing.T, e *engine, hcl string, extra map[string]string) *cluster {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "herald.hcl")
	if err := os.WriteFile(cfg, []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"HERALD_DATABASE_URL": testenv.NewSchema(t, testenv.DatabaseURL(t)),
		"HERALD_REDIS_URL":    testenv.RedisURL(t),
		"HERALD_CONFIG":       cfg,
		"OPENAI_API_KEY":      "sk-test", "OPENAI_BASE_URL": e.URL + "/v1",
	}
	for k, v := range extra {
		env[k] = v
	}
	c := &cluster{env: env, config: cfg}
	allow := []harness.Allow{harness.Allow{Match: `HERALD_SECRET_KEY is not set`, Why: "a distributed host without a shared secret key warns at start; these hosts store no credentials"}}
	c.a = harness.Start(t, harness.Options{Env: env, AllowLog: allow})
	c.b = harness.Start(t, harness.Options{Env: env, Key: c.a.Key, AllowLog: allow})
	return c
}

// key creates a workspace on plan and returns its API key.
func (c *cluster) key(t *testing.T, workspace, plan string) string {
	t.Helper()
	out, err := c.a.Run(context.Background(), "keys", "create", "--workspace", workspace, "--plan", plan)
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	return harness.LastLine(out)
}

// burst sends n requests at once, alternating between the hosts, and
// counts the answers by status.
func (c *cluster) burst(n int, method, path, key string, body func(i int) string) map[int]int {
	var (
		mu  sync.Mutex
		got = map[int]int{}
		wg  sync.WaitGroup
	)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			host := c.a
			if i%2 == 1 {
				host = c.b
			}
			<-start
			req, _ := http.NewRequest(method, host.URL+path, strings.NewReader(body(i)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("api-key", key)
			status := -1
			if res, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				status = res.StatusCode
			}
			mu.Lock()
			got[status]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return got
}

func TestTwoHostsFreeAuditIsOneReport(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	c := startCluster(t, e, "", nil)
	key := c.key(t, "freeco", "free")
	got := c.burst(40, "POST", "/v1/ai/generate/seo-site-report", key, func(int) string {
		return `{"websiteurl":"https://example.com","prompts":["best widget supplier"]}`
	})
	if got[202] != 1 || got[403] != 39 {
		t.Fatalf("40 reports of a free workspace over two hosts: %v, want 1 × 202 and 39 × 403\nA:\n%s\nB:\n%s", got, c.a.Output(), c.b.Output())
	}
}

func TestTwoHostsCreditsNeverGoBelowZero(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	c := startCluster(t, e, "plan \"pro\" {\n  monthly_ai_credits = 10\n}\n", nil)
	key := c.key(t, "proco", "pro")
	got := c.burst(100, "POST", "/v1/ai/generate/image", key, func(i int) string { return fmt.Sprintf(`{"text":"a lighthouse %d"}`, i) })
	if got[200] != 10 || got[403] != 90 {
		t.Fatalf("100 images on 10 credits over two hosts: %v, want 10 × 200 and 90 × 403", got)
	}
}

func TestTwoHostsVoiceCapHolds(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	c := startCluster(t, e, "limits {\n  max_voices = 5\n}\n", nil)
	key := c.key(t, "voiceco", "pro")
	got := c.burst(50, "POST", "/v1/ai/generate/brand-voice/text", key, func(i int) string { return fmt.Sprintf(`{"content":"voice %d writes plainly"}`, i) })
	if got[201] != 5 || got[429] != 45 {
		t.Fatalf("50 voice creates with a cap of 5 over two hosts: %v, want 5 × 201 and 45 × 429", got)
	}
	status, body := call(t, "GET", c.b.URL+"/v1/ai/brand-voice/", key, "")
	if status != 200 || len(body["data"].([]any)) != 5 {
		t.Fatalf("voices stored: %d %v", status, body)
	}
}

// reportBody asks n prompts of a site that cannot be fetched (the report
// still runs: every engine call still happens); tag keeps two reports'
// questions apart, so neither is answered from the other's cache.
func reportBody(tag string, n int) string {
	var p []string
	for i := range n {
		p = append(p, fmt.Sprintf("%q", fmt.Sprintf("widget question %s %d", tag, i)))
	}
	return `{"websiteurl":"https://127.0.0.1:1/","prompts":[` + strings.Join(p, ",") + `]}`
}

func TestTwoHostsEngineCapIsSharedAcrossHosts(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	e.delay = 150 * time.Millisecond
	// One report at a time per host, so two reports of one workspace run on
	// both hosts at once; 4 engine calls at once for the workspace.
	c := startCluster(t, e, "visibility {\n  concurrency = 4\n}\nqueue \"seoQueue\" {\n  concurrency = 1\n}\n", nil)
	key := c.key(t, "capco", "business")
	var jobs []string
	for _, h := range []*harness.Proc{c.a, c.b} {
		status, body := call(t, "POST", h.URL+"/v1/ai/generate/seo-site-report", key, reportBody(h.URL, 12))
		if status != 202 {
			t.Fatalf("queue: %d %v", status, body)
		}
		jobs = append(jobs, body["jobId"].(string))
	}
	for _, id := range jobs {
		body := waitJobKey(t, c.a, key, id, 90*time.Second)
		if body["state"] != "completed" {
			t.Fatalf("report job: %v\nA:\n%s\nB:\n%s", body, c.a.Output(), c.b.Output())
		}
	}
	_, most, calls := e.stats()
	if most > 4 {
		t.Fatalf("the fake engine saw %d calls of one workspace at once over two hosts; the cap is 4", most)
	}
	if most < 4 || calls < 24 {
		t.Fatalf("at most %d calls at once in %d: the reports did not press on the cap", most, calls)
	}
}

// waitJobKey polls a job with a workspace's key until it ends.
func waitJobKey(t *testing.T, p *harness.Proc, key, jobID string, within time.Duration) map[string]any {
	t.Helper()
	var body map[string]any
	if testwait.Until(within, func() bool {
		_, body = call(t, "GET", p.URL+"/v1/ai/generate/job/"+jobID, key, "")
		return body["state"] == "completed" || body["state"] == "failed"
	}) != nil {
		t.Fatalf("job %s never finished: %v\n%s", jobID, body, p.Output())
	}
	return body
}

func TestTwoHostsPlanChangeOnOneIsEnforcedByTheOther(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	write := func(path string, scheduler bool) {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("plan \"business\" {\n  scheduler_api_access = %t\n}\n", scheduler)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := startCluster(t, e, "plan \"business\" {\n  scheduler_api_access = true\n}\n", nil)
	key := c.key(t, "bizco", "business")
	if status, body := call(t, "GET", c.b.URL+"/v1/scheduler", key, ""); status != 200 {
		t.Fatalf("scheduler on B before: %d %v", status, body)
	}
	// SIGHUP on A with the scheduler API taken away: B refuses within 5 s.
	write(c.config, false)
	if err := c.a.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, c.a, "plans_version=2", 1)
	changed := time.Now()
	if err := testwait.Until(5*time.Second, func() bool {
		status, _ := call(t, "GET", c.b.URL+"/v1/scheduler", key, "")
		return status == 403
	}); err != nil {
		t.Fatalf("host B still allows the scheduler API 5 s after host A applied the plan change:\n%s", c.b.Output())
	}
	t.Logf("host B enforced the change %s after host A applied it", time.Since(changed).Round(time.Millisecond))
	waitOutput(t, c.b, "plans applied: version=2", 1)

	// `herald plans apply FILE` from anywhere gives it back on both hosts.
	other := filepath.Join(t.TempDir(), "plans.hcl")
	write(other, true)
	out, err := c.a.Run(context.Background(), "plans", "apply", other)
	if err != nil || !strings.Contains(out, "plans version 3 stored") {
		t.Fatalf("plans apply: %v\n%s", err, out)
	}
	for _, h := range []*harness.Proc{c.a, c.b} {
		if err := testwait.Until(5*time.Second, func() bool {
			status, _ := call(t, "GET", h.URL+"/v1/scheduler", key, "")
			return status == 200
		}); err != nil {
			t.Fatalf("a host did not apply version 3 within 5 s:\n%s", h.Output())
		}
		waitOutput(t, h, "plans applied: version=3", 1)
	}
}

func TestAKilledHostsEngineSlotsFreeWithinTheLease(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	e.hold = make(chan struct{})
	extra := map[string]string{"HERALD_CONCURRENCY_LEASE": "2s", "HERALD_JOB_LEASE": "2s"}
	c := startCluster(t, e, "visibility {\n  concurrency = 4\n}\nqueue \"seoQueue\" {\n  concurrency = 1\n}\n", extra)
	for _, p := range []*harness.Proc{c.a, c.b} {
		p.AllowLog(`rescued jobs with expired leases`, "host A is killed holding the report job; B rescues it")
		p.AllowLog(`lease ran out while held`, "host A is killed holding engine slots")
	}
	key := c.key(t, "killco", "business")
	// B runs no reports until A is gone: stop it, and start it again after.
	if err := c.b.Stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	status, body := call(t, "POST", c.a.URL+"/v1/ai/generate/seo-site-report", key, reportBody("a", 8))
	if status != 202 {
		t.Fatalf("queue: %d %v", status, body)
	}
	jobID := body["jobId"].(string)
	if err := testwait.Until(30*time.Second, func() bool { n, _, _ := e.stats(); return n == 4 }); err != nil {
		t.Fatalf("host A never held 4 engine calls:\n%s", c.a.Output())
	}
	c.a.Kill() // SIGKILL: its 4 slots are never released, only not renewed
	c.b.Restart()
	killed := time.Now()
	// B takes the job over once its lease ends and needs the slots A held.
	if err := testwait.Until(20*time.Second, func() bool { n, _, _ := e.stats(); return n > 0 }); err != nil {
		t.Fatalf("host B never got an engine slot after host A died:\n%s", c.b.Output())
	}
	t.Logf("host B called the engine %s after host A was killed", time.Since(killed).Round(time.Millisecond))
	close(e.hold)
	body = waitJobKey(t, c.b, key, jobID, 60*time.Second)
	if body["state"] != "completed" {
		t.Fatalf("report after the takeover: %v\n%s", body, c.b.Output())
	}
	if _, most, _ := e.stats(); most > 4 {
		t.Fatalf("%d engine calls at once; the cap is 4", most)
	}
}
