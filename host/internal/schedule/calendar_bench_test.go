package schedule

import (
	"context"
	"fmt"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// BenchmarkCalendar reads one month of a workspace holding 10,000 posts in
// that month (one schedule each), through Calendar (the route's service:
// the query, the grouping by day in a zone, the post statuses) and as the
// same rows read raw, on SQLite and PostgreSQL. It reports p50 and p90 of
// single reads in milliseconds (docs/BENCHMARKS.md, Scheduler calendar).
func BenchmarkCalendar(b *testing.B) {
	for _, backend := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		b.Run(backend.name, func(b *testing.B) {
			st := backend.open(b)
			ctx := context.Background()
			ws, user, err := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
			if err != nil {
				b.Fatal(err)
			}
			month := time.Date(2031, time.March, 1, 0, 0, 0, 0, time.UTC)
			const n = 10000
			err = st.Tx(ctx, func(q store.Querier) error {
				for i := range n {
					at := month.Add(time.Duration(i) * (31 * 24 * time.Hour / n)).UnixMilli()
					p := store.Post{WorkspaceID: ws.ID, UserID: user.ID, Title: fmt.Sprintf("Post %d", i), WhenToExport: &at}
					if _, err := st.InsertPost(ctx, q, &p); err != nil {
						return err
					}
					sc := store.Schedule{WorkspaceID: ws.ID, UserID: user.ID, ExportTo: "webhook", Status: StatusPending.stored(), WhenToExport: &at,
						Content: `{"title":"x"}`, PostID: &p.ID}
					if err := st.InsertSchedule(ctx, q, &sc); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			svc := &Service{store: st, plans: plans.New(nil)}
			p := auth.Principal{WorkspaceID: ws.ID, Plan: "business", Via: auth.ViaSession}
			b.Run("calendar", func(b *testing.B) {
				measure(b, func() error {
					cal, err := svc.Calendar(ctx, p, "2031-03-01", "2031-03-31", "Europe/Berlin")
					if err == nil && len(cal.Days) < 30 {
						err = fmt.Errorf("%d days", len(cal.Days))
					}
					return err
				})
			})
			b.Run("raw", func(b *testing.B) {
				from, to := month.UnixMilli(), month.AddDate(0, 1, 0).UnixMilli()
				measure(b, func() error {
					rows := 0
					err := storetest.Query(ctx, st, func(r store.Row) error {
						var id, title, sid, dest, status string
						var when int64
						var rule *string
						rows++
						return r.Scan(&id, &title, &when, &rule, &sid, &dest, &status)
					}, `SELECT p.id, p.title, p.when_to_export, p.rule_id, s.id, s.export_to, s.status
						FROM posts p JOIN schedules s ON s.post_id = p.id
						WHERE p.workspace_id = $1 AND p.when_to_export >= $2 AND p.when_to_export < $3`, ws.ID, from, to)
					if err == nil && rows != n {
						err = fmt.Errorf("%d rows", rows)
					}
					return err
				})
			})
		})
	}
}

// measure runs fn b.N times and reports the p50 and p90 of one run, and
// the process's CPU time per run (user and system: on a shared machine
// it moves less with the load than wall time; for PostgreSQL it leaves out
// the server's share).
func measure(b *testing.B, fn func() error) {
	times := make([]time.Duration, 0, b.N)
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	cpu := cpuTime() - cpu0
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
