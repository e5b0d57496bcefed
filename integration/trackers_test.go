package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// Slots across real hosts: two built binaries on one PostgreSQL
// schema and one Redis, looking for due trackers every 200ms. The trackers
// are SQL fixtures (copies of a tracker created through the API, so their
// input is what the API stores): 200 API creations would each start a
// first run, and the slot of an API-created tracker is a day away. Their
// next_run_at is set by SQL, as a host that was down would find it.

const trackerHCL = `
visibility { tracker_tick = "200ms" }
plan "business" {
  trackers           = 2000
  monthly_ai_credits = 1000000
  jobs_queued        = 100000
}
plan "enterprise" { monthly_ai_credits = 0 }
`

type trackerDB struct {
	t    *testing.T
	conn *pgx.Conn
}

func (d trackerDB) exec(sql string, args ...any) {
	d.t.Helper()
	if _, err := d.conn.Exec(context.Background(), sql, args...); err != nil {
		d.t.Fatalf("%s: %v", sql, err)
	}
}

func (d trackerDB) count(sql string, args ...any) int {
	d.t.Helper()
	var n int
	if err := d.conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		d.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// template creates an inactive tracker through the API (no first run) and
// returns its id.
func templateTracker(t *testing.T, base, key string) string {
	t.Helper()
	status, out := api(t, base, key, "POST", "/v1/visibility/trackers", map[string]any{
		"websiteurl": "https://example.com", "competitors": []string{"Globex Corp"},
		"prompts": []string{"best widget supplier"}, "cadence": "daily", "active": false,
	})
	if status != http.StatusCreated {
		t.Fatalf("create tracker: %d %v", status, out)
	}
	return out["tracker"].(map[string]any)["id"].(string)
}

// copyTrackers inserts n active copies of the template with ids
// prefix-0..n-1, tracker i due at slot + (i % 60) seconds: n trackers due
// in the one minute starting at slot.
func (d trackerDB) copyTrackers(template, prefix string, n int, slot time.Time) {
	d.t.Helper()
	d.exec(`INSERT INTO visibility_trackers (id, workspace_id, website_url, input, engines, cadence, active, slot_minute, slot_weekday,
		next_run_at, created_at, updated_at)
		SELECT $2::text || g, workspace_id, website_url, input, engines, cadence, TRUE, $3::int, 0, $4::bigint + (g % 60) * 1000, created_at, updated_at
		FROM visibility_trackers, generate_series(0, $5::int - 1) AS g WHERE id = $1`,
		template, prefix+"-", slot.Hour()*60+slot.Minute(), slot.UnixMilli(), n)
}

// quiet waits until a look started after now has finished on every live
// host: it adds sentinel trackers due now and waits until each host has
// claimed one (a host's looks run one after another, so an earlier look
// holding stale rows has ended by then).
func (d trackerDB) quiet(template string, hosts int) {
	d.t.Helper()
	call := time.Now().UnixNano()
	for round := 0; ; round++ {
		// One sentinel a round, inserted at a random phase of the hosts'
		// 200 ms looks (not a wait for anything): whichever host looks
		// first takes it, so every live host soon takes one. Inserting
		// right after the previous claim would keep favouring one host.
		time.Sleep(time.Duration(rand.IntN(250)) * time.Millisecond)
		prefix := fmt.Sprintf("sentinel-%d-%d", call, round)
		d.copyTrackers(template, prefix, 1, time.Now().Add(-time.Minute).Truncate(time.Minute))
		claimed := func() bool {
			return d.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE $1`, prefix+"-%") == 1
		}
		if testwait.Until(15*time.Second, claimed) != nil {
			d.t.Fatalf("sentinel trackers were not claimed within 15s")
		}
		if d.count(`SELECT COUNT(DISTINCT host) FROM visibility_tracker_runs WHERE tracker_id LIKE $1`,
			fmt.Sprintf("sentinel-%d-%%", call)) >= hosts {
			return
		}
		if round == 60 {
			d.t.Fatalf("after 60 rounds of sentinels not every host has looked")
		}
	}
}

// checkOnce asserts that each tracker with the prefix ran its slot exactly
// once: one (tracker, slot) row, one report with its trackerId, next slot
// moved a day on, and the lateness recorded on the row and the tracker.
func (d trackerDB) checkOnce(prefix string, n int, minLate time.Duration) {
	d.t.Helper()
	rows, err := d.conn.Query(context.Background(), `SELECT t.id, t.next_run_at, t.last_late_ms,
		(SELECT COUNT(*) FROM visibility_tracker_runs r WHERE r.tracker_id = t.id),
		(SELECT COUNT(*) FROM visibility_reports v WHERE v.tracker_id = t.id),
		(SELECT MIN(r.late_ms - (r.started_at - r.slot)) FROM visibility_tracker_runs r WHERE r.tracker_id = t.id),
		(SELECT MIN(r.late_ms) FROM visibility_tracker_runs r WHERE r.tracker_id = t.id),
		(SELECT MIN(r.slot) FROM visibility_tracker_runs r WHERE r.tracker_id = t.id)
		FROM visibility_trackers t WHERE t.id LIKE $1 ORDER BY t.id`, prefix+"-%")
	if err != nil {
		d.t.Fatal(err)
	}
	defer rows.Close()
	seen, bad := 0, 0
	for rows.Next() {
		var id string
		var next, runs, reports, lateDiff, late, slot int64
		var lastLate *int64
		if err := rows.Scan(&id, &next, &lastLate, &runs, &reports, &lateDiff, &late, &slot); err != nil {
			d.t.Fatal(err)
		}
		seen++
		switch {
		case runs != 1 || reports != 1:
			d.t.Errorf("%s: %d slot rows and %d reports, want 1 and 1", id, runs, reports)
		case next != slot-slot%60000+24*time.Hour.Milliseconds():
			d.t.Errorf("%s: next slot %d, want the ran slot's minute (%d) plus a day", id, next, slot)
		case lateDiff != 0 || late < minLate.Milliseconds() || lastLate == nil || *lastLate != late:
			d.t.Errorf("%s: late_ms %d (started-slot differs by %d), last_late_ms %v, want ≥ %s recorded on both", id, late, lateDiff, lastLate, minLate)
		default:
			continue
		}
		if bad++; bad > 10 {
			d.t.Fatalf("more than 10 trackers wrong")
		}
	}
	if seen != n {
		d.t.Fatalf("%d trackers with prefix %s, want %d", seen, prefix, n)
	}
}

func TestTrackerSlotsAcrossTwoHosts(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	c := startCluster(t, e, trackerHCL, nil)
	for _, p := range []*harness.Proc{c.a, c.b} {
		p.AllowLog(`lease ran out while held|rescued jobs with expired leases`, "a host is killed while it runs tracker reports")
	}
	conn, err := pgx.Connect(context.Background(), c.env["HERALD_DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	db := trackerDB{t: t, conn: conn}
	tmpl := templateTracker(t, c.a.URL, c.a.Key)
	broke := c.key(t, "broke", "enterprise")
	brokeTmpl := templateTracker(t, c.b.URL, broke)

	t.Run("200 trackers due in one minute, both hosts up: each runs once, late, and says how late", func(t *testing.T) {
		db.t = t
		// The minute two minutes ago: every slot is at least a minute late.
		slot := time.Now().Add(-2 * time.Minute).Truncate(time.Minute)
		db.copyTrackers(tmpl, "up", 200, slot)
		db.copyTrackers(brokeTmpl, "broke", 5, slot)
		all := func() bool {
			return db.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE 'up-%' OR tracker_id LIKE 'broke-%'`) >= 205
		}
		if testwait.Until(30*time.Second, all) != nil {
			t.Fatalf("not all 205 slots claimed within 30s\n%s\n%s", c.a.Output(), c.b.Output())
		}
		db.quiet(tmpl, 2)
		db.checkOnce("up", 200, time.Minute)
		hosts := db.count(`SELECT COUNT(DISTINCT host) FROM visibility_tracker_runs WHERE tracker_id LIKE 'up-%'`)
		t.Logf("200 slots claimed by %d hosts", hosts)

		// A workspace without credits: the slot is spent with lastSkip and
		// no report.
		if n := db.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE 'broke-%' AND report_id IS NULL
			AND skip_reason LIKE 'AI credit limit reached%'`); n != 5 {
			t.Errorf("%d of 5 skipped slots recorded with the credit reason", n)
		}
		if n := db.count(`SELECT COUNT(*) FROM visibility_reports WHERE tracker_id LIKE 'broke-%'`); n != 0 {
			t.Errorf("%d reports for trackers without credits", n)
		}
		status, out := api(t, c.b.URL, broke, "GET", "/v1/visibility/trackers/broke-0", nil)
		skip, _ := out["tracker"].(map[string]any)["lastSkip"].(map[string]any)
		if status != http.StatusOK || skip == nil || skip["reason"] == nil || skip["at"] == nil {
			t.Errorf("GET tracker without credits: %d %v, want lastSkip {at, reason}", status, out)
		}
	})

	// The scale figure, measured (logged, not asserted: the machine
	// is shared): 1,000 trackers due at one slot, two hosts, how long until
	// every run has started (claimed, report and job queued).
	t.Run("1,000 trackers due at one slot across two hosts: time until all started", func(t *testing.T) {
		db.t = t
		slot := time.Now().Add(time.Second)
		db.copyTrackers(tmpl, "k", 1000, slot)
		db.exec(`UPDATE visibility_trackers SET next_run_at = $1 WHERE id LIKE 'k-%'`, slot.UnixMilli())
		all := func() bool {
			return db.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE 'k-%'`) >= 1000
		}
		if testwait.Until(90*time.Second, all) != nil {
			t.Fatalf("1,000 slots not claimed within 90s")
		}
		observed := time.Since(slot)
		db.quiet(tmpl, 2)
		db.checkOnce("k", 1000, 0)
		p50 := db.count(`SELECT PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY late_ms) FROM visibility_tracker_runs WHERE tracker_id LIKE 'k-%'`)
		maxLate := db.count(`SELECT MAX(late_ms) FROM visibility_tracker_runs WHERE tracker_id LIKE 'k-%'`)
		hosts := db.count(`SELECT COUNT(DISTINCT host) FROM visibility_tracker_runs WHERE tracker_id LIKE 'k-%'`)
		t.Logf("1,000 due trackers: all started %s after the slot (observed by the test); look start after the slot p50 %d ms, max %d ms; %d hosts",
			observed.Round(time.Millisecond), p50, maxLate, hosts)
	})

	t.Run("one host killed as the slot arrives: the other runs every tracker once, late", func(t *testing.T) {
		db.t = t
		// The slot is one second away; A is killed when the first claim of
		// it lands (A may have claimed some: those committed or not).
		slot := time.Now().Add(time.Second)
		db.copyTrackers(tmpl, "kill", 200, slot)
		db.exec(`UPDATE visibility_trackers SET next_run_at = $1 WHERE id LIKE 'kill-%'`, slot.UnixMilli())
		// Poll without backing off (testwait.Until's 100ms steps are as
		// long as the whole slot takes): one query after another.
		claimedKill := func() int {
			return db.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE 'kill-%'`)
		}
		for deadline := time.Now().Add(15 * time.Second); claimedKill() == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("the slot never started")
			}
		}
		c.a.Kill()
		// What A committed is final now; everything else is B's to run.
		atKill := claimedKill()
		all := func() bool {
			return db.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE 'kill-%'`) >= 200
		}
		if testwait.Until(30*time.Second, all) != nil {
			t.Fatalf("not all 200 slots claimed within 30s of the kill\n%s", c.b.Output())
		}
		db.quiet(tmpl, 1)
		db.checkOnce("kill", 200, 0)
		// B is the host that claimed the sentinels after the kill.
		var bHost string
		if err := conn.QueryRow(context.Background(), `SELECT host FROM visibility_tracker_runs WHERE tracker_id LIKE 'sentinel-%'
			ORDER BY started_at DESC LIMIT 1`).Scan(&bHost); err != nil {
			t.Fatal(err)
		}
		byB := db.count(`SELECT COUNT(*) FROM visibility_tracker_runs WHERE tracker_id LIKE 'kill-%' AND host = $1`, bHost)
		lateMax := db.count(`SELECT COALESCE(MAX(late_ms), 0) FROM visibility_tracker_runs WHERE tracker_id LIKE 'kill-%'`)
		t.Logf("%d slots claimed when A was killed; the surviving host claimed %d of 200; latest start %d ms after the slot", atKill, byB, lateMax)
		if byB < 200-atKill {
			t.Errorf("the survivor claimed %d, want at least the %d left at the kill", byB, 200-atKill)
		}
		if lateMax <= 0 {
			t.Errorf("no run started late after the kill (max late_ms %d)", lateMax)
		}
	})
}
