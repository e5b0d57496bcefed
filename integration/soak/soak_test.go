package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/loadgen"
	"github.com/heraldhq/herald/integration/testenv"
)

func TestSoak(t *testing.T) {
	if os.Getenv("HERALD_SOAK") != "1" {
		t.Skip("the fleet run is `make soak` (HERALD_SOAK=1); it takes minutes")
	}
	cfg := loadConfig(t)
	t.Logf("soak: %s", cfg)
	ctx := context.Background()
	dbURL := testenv.NewSchema(t, testenv.DatabaseURL(t))
	redisURL := testenv.RedisURL(t)
	eng := newEngine(t, cfg.seed)
	siteURL, ca := newSite(t)

	hcl := fmt.Sprintf(`
visibility {
  engines      = [%s]
  concurrency  = %d
  tracker_tick = "1s"
}
queue "seoQueue" { concurrency = %d }
plan "business" {
  trackers           = 100000
  tracker_samples    = %d
  monthly_ai_credits = 1000000000
  jobs_queued        = 100000
  jobs_running       = 0
  log_lines_per_day  = 0
}
`, `"`+strings.Join(engines, `", "`)+`"`, cfg.engineCap, cfg.queueConcurrency, cfg.samples)
	cfgFile := filepath.Join(t.TempDir(), "herald.hcl")
	if err := os.WriteFile(cfgFile, []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"HERALD_DATABASE_URL": dbURL, "HERALD_REDIS_URL": redisURL, "HERALD_CONFIG": cfgFile,
		"HERALD_SECRET_KEY": "soak-secret-key-soak-secret-key-0123456789",
		"OPENAI_API_KEY":    "sk-soak", "OPENAI_BASE_URL": eng.URL + "/v1", "OPENAI_MAX_CONCURRENCY": fmt.Sprint(cfg.pluginConcurrency),
		"SSL_CERT_FILE": ca, "HERALD_ALLOWED_PRIVATE_CIDRS": "127.0.0.0/8",
	}
	a := harness.Start(t, harness.Options{Env: env})
	b := harness.Start(t, harness.Options{Env: env, Key: a.Key})
	hosts := []string{a.URL, b.URL}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })

	// Workspaces, each with a traffic site and its trackers (created
	// inactive through the API, with prompts of their own so no answer
	// comes from the answer cache).
	client := loadgen.Client(64)
	nws := max(1, (cfg.trackers+cfg.perWorkspace-1)/cfg.perWorkspace)
	keys := make([]string, nws)
	sites := make([][]site, nws)
	trackers := make([][]string, nws)
	var allSites []site
	var all []string
	for w := range nws {
		out, err := a.Run(ctx, "keys", "create", "--workspace", fmt.Sprintf("soak-%d", w), "--plan", "business")
		if err != nil {
			t.Fatalf("keys create: %v\n%s", err, out)
		}
		keys[w] = harness.LastLine(out)
		st, s := do(t, client, hosts[w%2], keys[w], "POST", "/v1/ai-traffic/sites", map[string]any{"domain": fmt.Sprintf("soak%d.example", w)})
		if st != http.StatusCreated {
			t.Fatalf("create site: %d %v", st, s)
		}
		sites[w] = []site{{id: str(s, "id"), key: str(s, "siteKey"), secret: str(s, "ingestSecret")}}
		allSites = append(allSites, sites[w][0])
		for k := 0; k < cfg.perWorkspace && len(all) < cfg.trackers; k++ {
			var prompts []string
			for p := range cfg.prompts {
				prompts = append(prompts, fmt.Sprintf("%s %d-%d-%d: which widget supplier is best for this job?", promptMark, w, k, p))
			}
			st, tr := do(t, client, hosts[k%2], keys[w], "POST", "/v1/visibility/trackers", map[string]any{
				"websiteurl": siteURL, "competitors": []string{"Globex Corp", "Initech (initech.com)", "Umbrella"},
				"prompts": prompts, "cadence": "daily", "active": false,
			})
			if st != http.StatusCreated {
				t.Fatalf("create tracker: %d %v", st, tr)
			}
			id := str(tr["tracker"].(map[string]any), "id")
			trackers[w] = append(trackers[w], id)
			all = append(all, id)
		}
	}
	// Slots: the trackers taken round-robin over the workspaces (a
	// workspace's trackers do not all fall due together), the i-th due at
	// start + i × window / trackers.
	all = all[:0]
	for k := 0; k < cfg.perWorkspace; k++ {
		for w := range nws {
			if k < len(trackers[w]) {
				all = append(all, trackers[w][k])
			}
		}
	}
	start := time.Now().Add(10 * time.Second).Truncate(time.Second)
	slots := map[string]time.Time{}
	for i, id := range all {
		slot := start.Add(time.Duration(i) * cfg.window / time.Duration(len(all))).Truncate(time.Millisecond)
		slots[id] = slot
		if _, err := conn.Exec(ctx, `UPDATE visibility_trackers SET active = TRUE, next_run_at = $2, slot_minute = $3 WHERE id = $1`,
			id, slot.UnixMilli(), slot.UTC().Hour()*60+slot.UTC().Minute()); err != nil {
			t.Fatal(err)
		}
	}
	lastSlot := start
	if len(all) > 0 {
		lastSlot = slots[all[len(all)-1]]
	}

	// Load: beacons, log lines and reads for the duration, from start.
	time.Sleep(time.Until(start))
	loadCtx, stopLoad := context.WithTimeout(ctx, cfg.duration)
	defer stopLoad()
	var c counters
	lat := newLatencies()
	rd := &reader{client: client, hosts: hosts, keys: keys, trackers: trackers, sites: sites, lat: lat}
	senders := []interface{ Wait() }{
		pace(loadCtx, cfg.beacons, 64, func(i int64) { beacon(client, hosts, allSites, &c, i) }),
		pace(loadCtx, cfg.logLines/float64(cfg.logBatch), 8, func(i int64) { logBatch(client, hosts, allSites, &c, i, cfg.logBatch) }),
		pace(loadCtx, cfg.reads, 8, rd.read),
	}

	// Samples until the traffic has ended and every run is done (or the
	// last run's window has passed).
	rec := newRecorder(t, cfg, a, b, conn, eng, &c, lat)
	deadline := lastSlot.Add(cfg.window)
	for {
		time.Sleep(min(cfg.every, time.Until(rec.next)))
		if time.Now().After(rec.next) {
			rec.sample(ctx)
		}
		trafficDone := loadCtx.Err() != nil
		if trafficDone && (rec.done(ctx) >= len(all) || time.Now().After(deadline)) {
			break
		}
	}
	for _, s := range senders {
		s.Wait()
	}
	rec.sample(ctx)
	rec.finish(ctx, cfg, all, slots, start)
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// do sends a JSON request with the api key and decodes the answer.
func do(t *testing.T, client *http.Client, base, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("api-key", key)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

// ports are the ports of the database and Redis URLs (the connections
// of each host are counted by them).
func ports(dbURL, redisURL string) (pg, rd int) {
	port := func(raw string, def int) int {
		u, err := url.Parse(raw)
		if err != nil || u.Port() == "" {
			return def
		}
		n, _ := strconv.Atoi(u.Port())
		return n
	}
	return port(dbURL, 5432), port(redisURL, 6379)
}
