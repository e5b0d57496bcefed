package soak

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// config is the run's size. The defaults are the scaled run for a shared
// 2-core machine; the full size is
//
//	make soak SOAK_TRACKERS=1000 SOAK_WINDOW=1h SOAK_DURATION=30m SOAK_BEACONS=200 SOAK_LOG_LINES=2000
//
// which waits for the last run due at the hour's end (more than an hour
// in all), and the full rate for 30 minutes is `make soak-full-rate`:
// 500 trackers due within 30 minutes (the hour's 0.28 runs a second),
// 200 beacons/s and 2,000 log lines/s for those 30 minutes (the
// Makefile passes SOAK_* as HERALD_SOAK_*).
type config struct {
	trackers, perWorkspace      int
	prompts, samples            int
	window, duration, every     time.Duration
	beacons, logLines, reads    float64
	logBatch                    int
	seed                        uint64
	p99                         time.Duration
	out                         string
	queueConcurrency, engineCap int
	// pluginConcurrency is the openai plugin's own cap on requests in
	// flight per host (OPENAI_MAX_CONCURRENCY): the fake is local, so
	// the cap under test is the workspace's (engineCap).
	pluginConcurrency int
}

// engines are the four engine routes every tracker asks (all on the
// openai plugin, answered by the one fake).
var engines = []string{"gpt-4o", "gpt-4.1", "gpt-5", "gpt-5-mini"}

func loadConfig(t *testing.T) config {
	c := config{
		trackers: 50, perWorkspace: 5, prompts: 25, samples: 3,
		window: 5 * time.Minute, duration: 5 * time.Minute, every: time.Minute,
		beacons: 50, logLines: 500, reads: 4, logBatch: 500,
		seed: 1, p99: 200 * time.Millisecond, out: "bin/soak",
		queueConcurrency: 16, engineCap: 16, pluginConcurrency: 256,
	}
	ints := map[string]*int{"TRACKERS": &c.trackers, "TRACKERS_PER_WORKSPACE": &c.perWorkspace, "PROMPTS": &c.prompts,
		"SAMPLES": &c.samples, "LOG_BATCH": &c.logBatch, "QUEUE_CONCURRENCY": &c.queueConcurrency, "ENGINE_CAP": &c.engineCap,
		"PLUGIN_CONCURRENCY": &c.pluginConcurrency}
	for k, p := range ints {
		if v := os.Getenv("HERALD_SOAK_" + k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n == 0 && k != "TRACKERS" {
				t.Fatalf("HERALD_SOAK_%s=%q: want a positive integer (TRACKERS may be 0: traffic only)", k, v)
			}
			*p = n
		}
	}
	floats := map[string]*float64{"BEACONS": &c.beacons, "LOG_LINES": &c.logLines, "READS": &c.reads}
	for k, p := range floats {
		if v := os.Getenv("HERALD_SOAK_" + k); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				t.Fatalf("HERALD_SOAK_%s=%q: want a rate per second (0 or more)", k, v)
			}
			*p = f
		}
	}
	durs := map[string]*time.Duration{"WINDOW": &c.window, "DURATION": &c.duration, "EVERY": &c.every, "P99": &c.p99}
	for k, p := range durs {
		if v := os.Getenv("HERALD_SOAK_" + k); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				t.Fatalf("HERALD_SOAK_%s=%q: want a duration such as 5m", k, v)
			}
			*p = d
		}
	}
	if v := os.Getenv("HERALD_SOAK_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HERALD_SOAK_SEED=%q: want an integer", v)
		}
		c.seed = n
	}
	if v := os.Getenv("HERALD_SOAK_OUT"); v != "" {
		c.out = v
	}
	if c.window <= 0 || c.duration <= 0 || c.every <= 0 {
		t.Fatalf("window, duration and sample interval must be positive")
	}
	return c
}

func (c config) String() string {
	return fmt.Sprintf("%d trackers (%d per workspace) × %d prompts × %d engines × %d samples due within %s; %.0f beacons/s, %.0f log lines/s (batches of %d), %.0f reads/s for %s; engines answer in %s–%s (seed %d); engine cap %d per workspace, plugin cap %d per host",
		c.trackers, c.perWorkspace, c.prompts, len(engines), c.samples, c.window, c.beacons, c.logLines, c.logBatch, c.reads, c.duration, minDelay, maxDelay, c.seed, c.engineCap, c.pluginConcurrency)
}
