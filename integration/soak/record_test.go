package soak

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heraldhq/herald/integration/harness"
)

// recorder writes one row per sample interval to the run's file and keeps
// what the final checks need.
type recorder struct {
	t         *testing.T
	hosts     []*harness.Proc
	conn      *pgx.Conn
	eng       *engine
	c         *counters
	lat       *latencies
	file      *os.File
	path      string
	began     time.Time
	last      time.Time
	next      time.Time
	every     time.Duration
	pgPort    int
	redisPort int
	prev      []usage
	prevB     int64
	prevL     int64
	prevDone  int
	prevCalls int
	worstP99  time.Duration
	overP99   []string
	bound     time.Duration
	cpuTotal  time.Duration
	peakRSS   int64
	peakConns int
	rows      int
	db        backends
	dbCPU     time.Duration
	// Redis and the load generator's CPU so far, at the last sample and
	// at the start.
	prevRedis, prevSelf   time.Duration
	startRedis, startSelf time.Duration
}

func newRecorder(t *testing.T, cfg config, a, b *harness.Proc, conn *pgx.Conn, eng *engine, c *counters, lat *latencies) *recorder {
	dir := cfg.out
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(harness.Root(), dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "soak-"+time.Now().UTC().Format("20060102T150405Z")+".tsv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fmt.Fprintf(f, "# %s\n", cfg)
	fmt.Fprintln(f, "elapsed_s\tcpu_cores_a\tcpu_cores_b\tdb_cpu_cores\trss_mb_a\trss_mb_b\tprocs\tdb_mb\tpg_conns_a\tpg_conns_b\tredis_conns\tbeacons_per_s\tlog_lines_per_s\truns_done\tengine_calls_per_s\tread_p99_ms_worst_route\tread_p99_ms_by_route\tredis_cpu_cores\tloadgen_cpu_cores")
	pg, rd := ports(os.Getenv("HERALD_TEST_DATABASE_URL"), os.Getenv("HERALD_TEST_REDIS_URL"))
	r := &recorder{t: t, hosts: []*harness.Proc{a, b}, conn: conn, eng: eng, c: c, lat: lat, file: f, path: path,
		began: time.Now(), every: cfg.every, pgPort: pg, redisPort: rd, bound: cfg.p99}
	r.last, r.next = r.began, r.began.Add(cfg.every)
	var ports []int
	for _, h := range r.hosts {
		u := hostUsage(h.PID(), pg, rd)
		r.prev = append(r.prev, u)
		ports = append(ports, u.pgLocal...)
	}
	r.db.cpu(context.Background(), conn, ports)
	r.prevRedis, r.prevSelf = sideCPU()
	r.startRedis, r.startSelf = r.prevRedis, r.prevSelf
	return r
}

// done counts the fleet's completed reports.
func (r *recorder) done(ctx context.Context) int {
	var n int
	r.conn.QueryRow(ctx, `SELECT COUNT(*) FROM visibility_reports WHERE tracker_id IS NOT NULL AND state = 'completed'`).Scan(&n)
	return n
}

func (r *recorder) sample(ctx context.Context) {
	now := time.Now()
	secs := now.Sub(r.last).Seconds()
	if secs < 1 {
		return
	}
	var cells []string
	var cores []float64
	var rss []int64
	var pg, ports []int
	procs, redis := 0, 0
	for i, h := range r.hosts {
		u := hostUsage(h.PID(), r.pgPort, r.redisPort)
		cores = append(cores, (u.cpu-r.prev[i].cpu).Seconds()/secs)
		r.cpuTotal += u.cpu - r.prev[i].cpu
		rss = append(rss, u.rss)
		pg = append(pg, u.pgConns)
		ports = append(ports, u.pgLocal...)
		procs += u.procs
		redis += u.rdb
		r.prev[i] = u
	}
	dbCPU := r.db.cpu(ctx, r.conn, ports)
	r.dbCPU += dbCPU
	r.peakRSS = max(r.peakRSS, rss[0]+rss[1])
	r.peakConns = max(r.peakConns, pg[0]+pg[1])
	beacons, lines := r.c.beaconsAccepted.Load(), r.c.linesAccepted.Load()
	done := r.done(ctx)
	calls, _, _ := r.eng.stats()
	per, worst := r.lat.cut()
	routes := make([]string, 0, len(per))
	for route, p := range per {
		routes = append(routes, fmt.Sprintf("%s=%.1f", strings.TrimPrefix(route, "GET "), float64(p.Microseconds())/1000))
		if r.bound > 0 && p > r.bound {
			r.overP99 = append(r.overP99, fmt.Sprintf("%s at %.0fs: p99 %s", route, now.Sub(r.began).Seconds(), p.Round(time.Millisecond)))
		}
	}
	sort.Strings(routes)
	r.worstP99 = max(r.worstP99, worst)
	cells = append(cells, fmt.Sprintf("%.0f", now.Sub(r.began).Seconds()),
		fmt.Sprintf("%.2f", cores[0]), fmt.Sprintf("%.2f", cores[1]), fmt.Sprintf("%.2f", dbCPU.Seconds()/secs), mb(rss[0]), mb(rss[1]), fmt.Sprint(procs),
		mb(dbSize(ctx, r.conn)), fmt.Sprint(pg[0]), fmt.Sprint(pg[1]), fmt.Sprint(redis),
		fmt.Sprintf("%.1f", float64(beacons-r.prevB)/secs), fmt.Sprintf("%.1f", float64(lines-r.prevL)/secs),
		fmt.Sprint(done-r.prevDone), fmt.Sprintf("%.1f", float64(calls-r.prevCalls)/secs),
		fmt.Sprintf("%.1f", float64(worst.Microseconds())/1000), strings.Join(routes, " "))
	rdCPU, selfCPU := sideCPU()
	cells = append(cells, fmt.Sprintf("%.2f", (rdCPU-r.prevRedis).Seconds()/secs), fmt.Sprintf("%.2f", (selfCPU-r.prevSelf).Seconds()/secs))
	r.prevRedis, r.prevSelf = rdCPU, selfCPU
	fmt.Fprintln(r.file, strings.Join(cells, "\t"))
	r.t.Logf("soak %s", strings.Join(cells, " | "))
	r.prevB, r.prevL, r.prevDone, r.prevCalls = beacons, lines, done, calls
	r.last, r.next = now, now.Add(r.every)
	r.rows++
}
