package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFloorDivRoundsTowardMinusInfinity(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b, want int64 }{
		{0, 8, 0}, {1, 8, 0}, {7, 8, 0}, {8, 8, 1}, {9, 8, 1}, {16, 8, 2},
		{-1, 8, -1}, {-7, 8, -1}, {-8, 8, -1}, {-9, 8, -2}, {-16, 8, -2}, {-17, 8, -3},
		{1, -8, -1}, {8, -8, -1}, {9, -8, -2}, {-1, -8, 0}, {-8, -8, 1}, {-9, -8, 1},
		{-1, 86_400_000, -1}, {86_399_999, 86_400_000, 0}, {86_400_000, 86_400_000, 1},
	} {
		if got := floorDiv(c.a, c.b); got != c.want {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// rowsOf returns the first cols arguments of each row of width arguments
// that the statements on table wrote, in order.
func rowsOf(execs []recordedExec, table string, width, cols int) []string {
	var out []string
	for _, e := range execs {
		if !strings.HasPrefix(e.sql, "INSERT INTO "+table+" ") {
			continue
		}
		for i := 0; i+width <= len(e.args); i += width {
			out = append(out, strings.TrimSuffix(fmt.Sprintln(e.args[i:i+cols]...), "\n"))
		}
	}
	return out
}

func checkRows(t *testing.T, name string, got []string, want ...string) {
	t.Helper()
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("%s rows in order\n %q\nwant\n %q", name, got, want)
	}
}

// TestTrafficRollupsWriteRowsInKeyOrder checks the order of the upserted
// rollup rows: concurrent writers lock rows in this order, so two batches
// touching the same rows cannot deadlock. Keys differ in each field alone.
func TestTrafficRollupsWriteRowsInKeyOrder(t *testing.T) {
	t.Parallel()
	r := NewTrafficRollups()
	for _, k := range []dailyKey{{"s2", 5, "a"}, {"s1", 6, "a"}, {"s1", 5, "b"}, {"s1", 5, "a"}, {"s2", 4, "b"}} {
		r.AddDaily(k.site, k.day, k.source, TrafficDailyDelta{Visits: 1})
	}
	r.AddDaily("s1", 5, "a", TrafficDailyDelta{Pageviews: 2})
	r.AddDaily("s1", 5, "zero", TrafficDailyDelta{}) // nothing to add: no row
	for _, k := range []pageKey{{"s2", 1, 3, "/a"}, {"s1", 8, 0, "/a"}, {"s1", 1, 4, "/a"}, {"s1", 1, 3, "/b"}, {"s1", 1, 3, "/a"}} {
		r.pages[k] = &TrafficPageDelta{AIPageviews: 1}
	}
	for _, k := range []crawlerKey{{"s2", 5, "a"}, {"s1", 6, "a"}, {"s1", 5, "b"}, {"s1", 5, "a"}, {"s2", 4, "b"}} {
		r.AddCrawler(k.site, k.day, k.bot, 1)
	}
	r.AddCrawler("s1", 5, "a", 2)
	if got := r.Daily("s1", 5, "a"); got != (TrafficDailyDelta{Visits: 1, Pageviews: 2}) {
		t.Errorf("Daily(s1, 5, a) = %+v, want the two increments added", got)
	}
	if got := r.Daily("s1", 5, "zero"); got != (TrafficDailyDelta{}) {
		t.Errorf("Daily(s1, 5, zero) = %+v, want zero", got)
	}
	q := &recordQuerier{}
	if err := r.write(context.Background(), q, Postgres, 0); err != nil {
		t.Fatal(err)
	}
	checkRows(t, "traffic_daily", rowsOf(q.execs, "traffic_daily", 9, 5),
		"s1 5 a 1 2", "s1 5 b 1 0", "s1 6 a 1 0", "s2 4 b 1 0", "s2 5 a 1 0")
	checkRows(t, "traffic_pages", rowsOf(q.execs, "traffic_pages", 7, 4),
		"s1 1 3 /a", "s1 1 3 /b", "s1 1 4 /a", "s1 8 0 /a", "s2 1 3 /a")
	checkRows(t, "traffic_crawlers", rowsOf(q.execs, "traffic_crawlers", 4, 4),
		"s1 5 a 3", "s1 5 b 1", "s1 6 a 1", "s2 4 b 1", "s2 5 a 1")
}

// TestTrafficRollupsWriteStopsAtAFailedUpsert fails each of the three
// upserts in turn: write must return the error and run no later upsert.
func TestTrafficRollupsWriteStopsAtAFailedUpsert(t *testing.T) {
	t.Parallel()
	r := NewTrafficRollups()
	r.AddDaily("s1", 5, "a", TrafficDailyDelta{Visits: 1})
	r.pages[pageKey{"s1", 1, 5, "/a"}] = &TrafficPageDelta{AIPageviews: 1}
	r.AddCrawler("s1", 5, "a", 1)
	boom := errors.New("boom")
	for failAt, table := range []string{"traffic_daily", "traffic_pages", "traffic_crawlers"} {
		q := &recordQuerier{failAt: failAt + 1, err: boom}
		err := r.write(context.Background(), q, SQLite, 0)
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), table) {
			t.Errorf("upsert %d failing: err = %v, want %v naming %s", failAt+1, err, boom, table)
		}
		if len(q.execs) != failAt+1 {
			t.Errorf("upsert %d failing: %d statements ran", failAt+1, len(q.execs))
		}
	}
}

// TestWriteSessionsInsertsNewAndRewritesDirtySessionsInKeyOrder checks the
// statements writeSessions runs: new sessions in a plain INSERT, dirty ones
// in an upsert, clean ones not at all, each in (site, session) order so that
// concurrent writers lock rows in the same order.
func TestWriteSessionsInsertsNewAndRewritesDirtySessionsInKeyOrder(t *testing.T) {
	t.Parallel()
	sessions := map[TrafficSessionKey]*TrafficSession{}
	add := func(site, id string, isNew, dirty bool) {
		sessions[TrafficSessionKey{site, id}] = &TrafficSession{SiteID: site, SessionID: id, New: isNew, Dirty: dirty}
	}
	for _, k := range [][2]string{{"s2", "a"}, {"s1", "b"}, {"s1", "a"}, {"s2", "0"}} {
		add(k[0], "new-"+k[1], true, false)
		add(k[0], "dirty-"+k[1], false, true)
		add(k[0], "clean-"+k[1], false, false)
	}
	add("s0", "new-dirty", true, true) // new wins: inserted, not upserted
	q := &recordQuerier{}
	if err := (&Store{Dialect: Postgres}).writeSessions(context.Background(), q, sessions); err != nil {
		t.Fatal(err)
	}
	var fresh, changed []recordedExec
	for _, e := range q.execs {
		if strings.Contains(e.sql, "ON CONFLICT") {
			changed = append(changed, e)
		} else {
			fresh = append(fresh, e)
		}
	}
	checkRows(t, "new sessions", rowsOf(fresh, "traffic_sessions", 14, 2),
		"s0 new-dirty", "s1 new-a", "s1 new-b", "s2 new-0", "s2 new-a")
	checkRows(t, "dirty sessions", rowsOf(changed, "traffic_sessions", 14, 2),
		"s1 dirty-a", "s1 dirty-b", "s2 dirty-0", "s2 dirty-a")

	boom := errors.New("boom")
	q = &recordQuerier{failAt: 1, err: boom}
	if err := (&Store{Dialect: Postgres}).writeSessions(context.Background(), q, sessions); !errors.Is(err, boom) || len(q.execs) != 1 {
		t.Errorf("a failed insert: err %v after %d statements, want %v after 1", err, len(q.execs), boom)
	}
}

// TestTrafficRollupsAddPageCountsEverySpanOnceAcrossRetries: AddPage adds
// to the block of each page span that holds the day, and a retried
// transaction, which writes the same rollups again, upserts the same rows.
func TestTrafficRollupsAddPageCountsEverySpanOnceAcrossRetries(t *testing.T) {
	t.Parallel()
	r := NewTrafficRollups()
	r.AddPage("s1", 7, "/a", TrafficPageDelta{AIVisits: 1, AIPageviews: 1})
	r.AddPage("s1", 8, "/a", TrafficPageDelta{AIPageviews: 1, AIDurationMs: 5})
	r.AddPage("s1", 7, "/a", TrafficPageDelta{AIPageviews: 1})
	want := []string{
		"s1 1 7 /a 1 2 0", "s1 1 8 /a 0 1 5", // days 7 and 8
		"s1 8 0 /a 1 2 0", "s1 8 1 /a 0 1 5", // 8-day blocks 0 (days 0-7) and 1
		"s1 64 0 /a 1 3 5", "s1 512 0 /a 1 3 5",
	}
	for try := 1; try <= 2; try++ {
		q := &recordQuerier{}
		if err := r.write(context.Background(), q, SQLite, 0); err != nil {
			t.Fatal(err)
		}
		checkRows(t, fmt.Sprintf("traffic_pages, write %d", try), rowsOf(q.execs, "traffic_pages", 7, 7), want...)
	}
}
