package soak

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/heraldhq/herald/internal/testwait"
)

// finish runs the checks and writes the summary beside the samples.
func (r *recorder) finish(ctx context.Context, cfg config, all []string, slots map[string]time.Time, start time.Time) {
	t := r.t
	var sum strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&sum, format+"\n", args...)
		t.Logf(format, args...)
	}
	line("# %s", cfg)
	line("elapsed %s, %d samples in %s", time.Since(start).Round(time.Second), r.rows, r.path)

	// Every run: one slot row, one report, completed within its window,
	// every answer stored.
	type run struct {
		slot, completed      int64
		state                string
		runs, reports, ans   int
		reportID, skipReason *string
	}
	got := map[string]run{}
	rows, err := r.conn.Query(ctx, `SELECT tr.tracker_id, tr.slot, tr.report_id, tr.skip_reason, COALESCE(v.state, ''), COALESCE(v.completed_at, 0),
		(SELECT COUNT(*) FROM visibility_tracker_runs x WHERE x.tracker_id = tr.tracker_id),
		(SELECT COUNT(*) FROM visibility_reports y WHERE y.tracker_id = tr.tracker_id),
		(SELECT COUNT(*) FROM visibility_answers a WHERE a.report_id = tr.report_id AND a.kind = 'prompt' AND a.error IS NULL)
		FROM visibility_tracker_runs tr LEFT JOIN visibility_reports v ON v.id = tr.report_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var x run
		if err := rows.Scan(&id, &x.slot, &x.reportID, &x.skipReason, &x.state, &x.completed, &x.runs, &x.reports, &x.ans); err != nil {
			t.Fatal(err)
		}
		got[id] = x
	}
	rows.Close()
	want := cfg.prompts * len(engines) * cfg.samples
	var late []time.Duration
	bad := 0
	for _, id := range all {
		x, ok := got[id]
		slot := slots[id].UnixMilli()
		var problem string
		switch {
		case !ok:
			problem = "never ran"
		case x.runs != 1 || x.reports != 1:
			problem = fmt.Sprintf("%d slot rows and %d reports, want 1 and 1", x.runs, x.reports)
		case x.slot != slot:
			problem = fmt.Sprintf("ran slot %d, want %d", x.slot, slot)
		case x.state != "completed":
			problem = fmt.Sprintf("report %q (skip %v)", x.state, x.skipReason)
		case x.completed-slot > cfg.window.Milliseconds():
			problem = fmt.Sprintf("done %s after its slot, over the %s window", time.Duration(x.completed-slot)*time.Millisecond, cfg.window)
		case x.ans != want:
			problem = fmt.Sprintf("%d answers stored, want %d", x.ans, want)
		}
		if ok && x.completed > 0 {
			late = append(late, time.Duration(x.completed-slot)*time.Millisecond)
		}
		if problem != "" {
			if bad++; bad <= 10 {
				t.Errorf("tracker %s: %s", id, problem)
			}
		}
	}
	line("runs: %d of %d done within the %s window, each exactly once with its %d answers (%d wrong); slot → report done p50 %s, p99 %s, max %s",
		len(all)-bad, len(all), cfg.window, want, bad, pct(late, 0.5).Round(time.Millisecond), pct(late, 0.99).Round(time.Millisecond), pct(late, 1).Round(time.Millisecond))

	// Every answer asked exactly as often as the samples say.
	calls, most, asked := r.eng.stats()
	off := 0
	for k, n := range asked {
		if n != cfg.samples {
			if off++; off <= 5 {
				t.Errorf("engine asked %q %d times, want %d", strings.ReplaceAll(k, "\x00", " / "), n, cfg.samples)
			}
		}
	}
	if len(asked) != cfg.trackers*cfg.prompts*len(engines) {
		t.Errorf("engines asked %d distinct (model, prompt) pairs, want %d", len(asked), cfg.trackers*cfg.prompts*len(engines))
	}
	line("engines: %d calls in all (answers, probes, judge), at most %d at once; %d (model, prompt) pairs, %d not asked exactly %d times",
		calls, most, len(asked), off, cfg.samples)

	// No beacon and no log line lost: the stores hold what was accepted,
	// each once.
	if e := r.c.firstErr.Load(); e != nil {
		t.Errorf("load: %d beacons and %d log requests failed; first: %s", r.c.beaconsFailed.Load(), r.c.logFailed.Load(), e)
	}
	accB, accL, crawl := r.c.beaconsAccepted.Load(), r.c.linesAccepted.Load(), r.c.linesCrawler.Load()
	var events, sessions, hits, lineIDs int64
	stored := func() bool {
		r.conn.QueryRow(ctx, `SELECT COUNT(*), COUNT(DISTINCT session_id) FROM traffic_events WHERE kind = 'pageview'`).Scan(&events, &sessions)
		r.conn.QueryRow(ctx, `SELECT COUNT(*), COUNT(DISTINCT user_agent) FROM crawler_hits`).Scan(&hits, &lineIDs)
		return events >= accB && hits >= crawl
	}
	testwait.Until(60*time.Second, stored) // the beacon inbox folds after the 202
	if events != accB || sessions != accB {
		t.Errorf("beacons: %d accepted, %d pageviews stored over %d sessions", accB, events, sessions)
	}
	if hits != crawl || lineIDs != crawl || crawl != accL || accL != r.c.linesSent.Load() {
		t.Errorf("log lines: %d sent, %d accepted, %d crawler hits answered, %d stored with %d distinct line ids", r.c.linesSent.Load(), accL, crawl, hits, lineIDs)
	}
	line("beacons: %d sent, %d accepted (202), %d stored once each; log lines: %d sent in %d requests, %d accepted, %d stored once each",
		r.c.beaconsSent.Load(), accB, events, r.c.linesSent.Load(), r.c.logRequests.Load(), accL, hits)

	// Read routes.
	r.lat.mu.Lock()
	var routes []string
	for route, ds := range r.lat.all {
		routes = append(routes, fmt.Sprintf("%s: %d reads, p50 %s, p99 %s, max %s, %d failed", route, len(ds),
			pct(ds, 0.5).Round(100*time.Microsecond), pct(ds, 0.99).Round(100*time.Microsecond), pct(ds, 1).Round(time.Millisecond), r.lat.errors[route]))
		if r.lat.errors[route] > 0 {
			t.Errorf("%s: %d reads failed", route, r.lat.errors[route])
		}
	}
	r.lat.mu.Unlock()
	sort.Strings(routes)
	for _, s := range routes {
		line("read %s", s)
	}
	if len(r.overP99) > 0 {
		t.Errorf("read p99 over %s in %d route-intervals: %s", r.bound, len(r.overP99), strings.Join(r.overP99, "; "))
	}
	line("worst interval p99 of a read route: %s (bound %s, %d route-intervals over)", r.worstP99.Round(100*time.Microsecond), r.bound, len(r.overP99))

	// Resources and bytes per row.
	line("hosts: %.1f CPU-s in all (both process trees, plugins included) over %s: %.2f cores on average; peak RSS %s MB, peak PostgreSQL connections %d",
		r.cpuTotal.Seconds(), time.Since(r.began).Round(time.Second), r.cpuTotal.Seconds()/time.Since(r.began).Seconds(), mb(r.peakRSS), r.peakConns)
	line("database: %.1f CPU-s in the PostgreSQL backends serving the hosts (%.2f cores on average)", r.dbCPU.Seconds(), r.dbCPU.Seconds()/time.Since(r.began).Seconds())
	line("redis: %.1f CPU-s (every redis-server on the machine); load generator and fakes (this process): %.1f CPU-s",
		(r.prevRedis - r.startRedis).Seconds(), (r.prevSelf - r.startSelf).Seconds())
	sizes, err := tableSizes(ctx, r.conn)
	if err != nil {
		t.Fatal(err)
	}
	line("database: %s MB", mb(dbSize(ctx, r.conn)))
	for _, s := range sizes {
		per := "-"
		if s.rows > 0 {
			per = fmt.Sprintf("%d", s.total/s.rows)
		}
		line("table %s: %d rows, %s MB with indexes (%s MB heap), %s bytes a row, %d dead tuples", s.name, s.rows, mb(s.total), mb(s.heap), per, s.dead)
	}
	if err := os.WriteFile(strings.TrimSuffix(r.path, ".tsv")+".txt", []byte(sum.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
