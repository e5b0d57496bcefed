package schedule

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// countingQueue stands for the job queue: it records the publish jobs
// enqueued in transactions that may still roll back, so the test counts
// schedules in the store instead.
type countingQueue struct{}

func (countingQueue) EnqueueTx(context.Context, store.Querier, jobs.NewJob) (string, error) {
	return store.NewID(), nil
}
func (countingQueue) Wake(...string) {}

// TestHostsRacingOverARulesOccurrencesCreateEachOnce runs the occurrence
// creation of one rule from several "hosts" at once, each with the rule as
// it read it: every occurrence exists once, with one schedule per
// destination.
func TestHostsRacingOverARulesOccurrencesCreateEachOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		ws, user, err := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		first := time.Now().Add(time.Hour).Truncate(time.Minute)
		r, err := checkRepeat(Repeat{Frequency: "daily", TimeZone: "America/New_York", Count: 40}, first, time.Now(), config.DefaultPlans()["business"])
		if err != nil {
			t.Fatal(err)
		}
		ruleJSON, _ := json.Marshal(r)
		tplJSON, _ := json.Marshal(template{Title: "Daily", Schedules: []templateSchedule{{ExportTo: "webhook", Content: `{"title":"Daily"}`}, {ExportTo: "linkedin", Content: `{"text":"Daily"}`}}})
		next := r.First
		row := store.ScheduleRule{WorkspaceID: ws.ID, UserID: user.ID, Rule: string(ruleJSON), Template: string(tplJSON), NextAt: &next}
		if err := st.InsertScheduleRule(ctx, &row); err != nil {
			t.Fatal(err)
		}
		upTo := first.Add(60 * 24 * time.Hour).UnixMilli()
		var wg sync.WaitGroup
		made := make([]int, 4)
		for i := range made {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := createOccurrences(ctx, st, countingQueue{}, row, upTo)
				if err != nil {
					t.Error(err)
				}
				made[i] = n
			}()
		}
		wg.Wait()
		// Whoever lost a race stopped; one more pass finishes the rule.
		rest, err := st.DueScheduleRules(ctx, upTo, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rest {
			n, err := createOccurrences(ctx, st, countingQueue{}, r, upTo)
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, n)
		}
		total := 0
		for _, n := range made {
			total += n
		}
		var posts, schedules, distinct int
		storetest.QueryRow(ctx, st, `SELECT COUNT(*), COUNT(DISTINCT occurrence_at) FROM posts WHERE rule_id = $1`, row.ID).Scan(&posts, &distinct)
		storetest.QueryRow(ctx, st, `SELECT COUNT(*) FROM schedules s JOIN posts p ON p.id = s.post_id WHERE p.rule_id = $1`, row.ID).Scan(&schedules)
		if posts != 40 || distinct != 40 || schedules != 80 || total != 40 {
			t.Fatalf("%d posts (%d distinct times), %d schedules, %d reported created (%v); want 40, 40, 80, 40", posts, distinct, schedules, total, made)
		}
		after, err := st.GetScheduleRule(ctx, ws.ID, row.ID)
		if err != nil || after.NextAt != nil || after.CreatedCount != 40 {
			t.Fatalf("rule after its last occurrence: %+v, %v; want ended with 40 created", after, err)
		}
	})
}
