package visibility_test

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

const trackerBody = `{"websiteurl":"https://example.com","competitors":["Globex Corp",{"name":"Initech","domain":"initech.io"}],` +
	`"prompts":["best widget supplier",{"text":"widgets for factories","tags":["factories"]}],"cadence":"%s"%s}`

// Plans: free cannot create a tracker (403), a weekly-only plan refuses
// daily (400 naming cadence), and over the plan's trackers is a 403.
func TestTrackerPlans(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.free, fmt.Sprintf(trackerBody, "weekly", "")).Want(t, http.StatusForbidden)
		if !strings.Contains(res.Body["message"].(string), "not available on the free plan") {
			t.Errorf("free: %s", res.Raw)
		}
		res = b.srv.Do(t, "POST", "/v1/visibility/trackers", b.pro, fmt.Sprintf(trackerBody, "daily", "")).Want(t, http.StatusBadRequest)
		if !strings.HasPrefix(res.Body["message"].(string), "cadence") {
			t.Errorf("daily on pro: %s", res.Raw)
		}
		for i := 0; i < 2; i++ {
			b.srv.Do(t, "POST", "/v1/visibility/trackers", b.pro, fmt.Sprintf(trackerBody, "weekly", `,"active":false,"selfAliases":["Acme Inc"],"engines":["claude"]`)).Want(t, http.StatusCreated)
		}
		// Paused trackers do not count; a third active one... the two are
		// paused, so resume both, then a third is over the cap.
		list := b.srv.Do(t, "GET", "/v1/visibility/trackers", b.pro, "").Want(t, http.StatusOK).Body["trackers"].([]any)
		// A paused tracker has not run: its trend is empty.
		empty := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+list[0].(map[string]any)["id"].(string)+"/trend", b.pro, "").Want(t, http.StatusOK).Body
		if fmt.Sprint(empty["series"], empty["brands"]) != "[] []" {
			t.Errorf("trend before any run: series %v, brands %v", empty["series"], empty["brands"])
		}
		for _, tr := range list {
			id := tr.(map[string]any)["id"].(string)
			up := b.srv.Do(t, "PUT", "/v1/visibility/trackers/"+id, b.pro, `{"active":true}`).Want(t, http.StatusOK).Body["tracker"].(map[string]any)
			// Fields the update leaves out are kept.
			before := tr.(map[string]any)
			for _, f := range []string{"competitors", "engines", "selfAliases", "prompts"} {
				if fmt.Sprint(up[f]) != fmt.Sprint(before[f]) {
					t.Errorf("PUT {active} changed %s: %v → %v", f, before[f], up[f])
				}
			}
			if fmt.Sprint(up["selfAliases"]) != "[Acme Inc]" || len(up["competitors"].([]any)) != 2 || fmt.Sprint(up["engines"]) != "[claude]" {
				t.Errorf("after PUT {active}: selfAliases %v, competitors %v, engines %v", up["selfAliases"], up["competitors"], up["engines"])
			}
		}
		res = b.srv.Do(t, "POST", "/v1/visibility/trackers", b.pro, fmt.Sprintf(trackerBody, "weekly", "")).Want(t, http.StatusForbidden)
		if !strings.Contains(res.Body["message"].(string), "allows 2 active trackers") {
			t.Errorf("over the cap: %s", res.Raw)
		}
		// Another workspace's tracker is a 404.
		id := list[0].(map[string]any)["id"].(string)
		b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id, b.business, "").Want(t, http.StatusNotFound)
		b.srv.Do(t, "POST", "/v1/visibility/trackers/"+id+"/run", b.business, "").Want(t, http.StatusNotFound)
	})
}

// The first run starts at creation; it is a report with trackerId in the
// history, not the free audit and not a refresh; POST …/run runs now.
func TestTrackerFirstRunIsAHistoryPoint(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, fmt.Sprintf(trackerBody, "daily", "")).Want(t, http.StatusCreated)
		tr := res.Body["tracker"].(map[string]any)
		id := tr["id"].(string)
		if want := b.clock.now().UTC().Format("15:04"); tr["slotTime"] != want {
			t.Errorf("slotTime = %v, want the creation's %s", tr["slotTime"], want)
		}
		if res.Body["jobId"] == "" || tr["cadence"] != "daily" || tr["active"] != true || tr["lastSkip"] != nil {
			t.Fatalf("create: %s", res.Raw)
		}
		prompts := tr["prompts"].([]any)
		if p := prompts[1].(map[string]any); p["text"] != "widgets for factories" || fmt.Sprint(p["tags"]) != "[factories]" {
			t.Errorf("prompts = %v", prompts)
		}
		b.waitJob(t, b.business, res.Body["jobId"].(string))
		rep := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
		if rep["trackerId"] != id {
			t.Errorf("report trackerId = %v, want %s", rep["trackerId"], id)
		}
		hist := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report/history", b.business, "").Want(t, http.StatusOK).Body["points"].([]any)
		if len(hist) != 1 || hist[0].(map[string]any)["trackerId"] != id {
			t.Errorf("history = %v", hist)
		}
		run := b.srv.Do(t, "POST", "/v1/visibility/trackers/"+id+"/run", b.business, "").Want(t, http.StatusAccepted)
		if run.Body["message"] != "Tracker run queued" || run.Body["jobId"] == "" {
			t.Fatalf("run: %s", run.Raw)
		}
		b.waitJob(t, b.business, run.Body["jobId"].(string))
		// The second run carries change (first run: null).
		scores := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body["scores"].(map[string]any)
		if c := scores["aiVisibility"].(map[string]any)["change"].(map[string]any); c["value"] != float64(0) || c["significant"] != false {
			t.Errorf("change of an identical second run = %v, want 0, not significant", c)
		}
		trend := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend?days=7&answers=2", b.business, "").Want(t, http.StatusOK).Body
		if brands := trend["brands"].([]any); len(brands) != 3 {
			t.Errorf("trend brands = %v, want the last run's three", brands)
		}
		if series := trend["series"].([]any); len(series) != 1 {
			t.Errorf("series = %v (two runs on one day: one point)", series)
		}
		ps := trend["prompts"].([]any)
		if eng := ps[0].(map[string]any)["engines"].(map[string]any); len(eng["gpt"].([]any)) != 2 {
			t.Errorf("drill-down = %v", eng)
		}
		// Every prompt answer's sentiment was judged and stored (an object,
		// empty when no brand has one); a failed answer's is never judged
		// (null).
		for _, p := range ps {
			for engine, answers := range p.(map[string]any)["engines"].(map[string]any) {
				for _, a := range answers.([]any) {
					a := a.(map[string]any)
					_, judged := a["sentiment"].(map[string]any)
					if ms, ok := a["mentions"].([]any); !ok || (a["error"] == nil && engine == "gpt" && len(ms) == 0) {
						t.Errorf("%s answer to %v: mentions %v, want a list (gpt names brands)", engine, p.(map[string]any)["prompt"], a["mentions"])
					}
					if failed := a["error"] != nil; judged == failed {
						t.Errorf("%s answer to %v (error %v): sentiment %v", engine, p.(map[string]any)["prompt"], a["error"], a["sentiment"])
					}
				}
			}
		}
		csvRes, err := http.Get(b.srv.URL + "/v1/visibility/trackers/" + id + "/trend.csv")
		if err != nil || csvRes.StatusCode != http.StatusUnauthorized {
			t.Errorf("csv without a key: %v %v", csvRes, err)
		}
		// The CSV route reads answers as the JSON route does: the same
		// values are refused with the same message, the same accepted.
		for _, answers := range []string{"0", "1", "30"} {
			b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend?answers="+answers, b.business, "").Want(t, http.StatusOK)
			b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend.csv?answers="+answers, b.business, "").Want(t, http.StatusOK)
		}
		// days: 1 to 365 on both routes, as docs/API.md says.
		for _, days := range []string{"1", "365"} {
			b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend?days="+days, b.business, "").Want(t, http.StatusOK)
			b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend.csv?days="+days, b.business, "").Want(t, http.StatusOK)
		}
		for _, days := range []string{"-1", "366"} {
			b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend?days="+days, b.business, "").WantMessage(t, http.StatusBadRequest)
			b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend.csv?days="+days, b.business, "").WantMessage(t, http.StatusBadRequest)
		}
		for _, answers := range []string{"-1", "31"} {
			j := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend?answers="+answers, b.business, "").WantMessage(t, http.StatusBadRequest)
			c := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id+"/trend.csv?answers="+answers, b.business, "").WantMessage(t, http.StatusBadRequest)
			want := "answers must be between 1 and 30, got " + answers
			if j.Body["message"] != want || c.Body["message"] != want {
				t.Errorf("answers=%s: json %q, csv %q, want %q for both", answers, j.Body["message"], c.Body["message"], want)
			}
		}
	})
}

// Slots: two hosts on one store, 200 trackers due in the same minute:
// each slot runs exactly once. A slot missed while no host looked runs
// late, once, and records how late. A slot the credits do not cover is
// skipped with lastSkip.
func TestTrackerSlotsRunOnceAcrossHosts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		other := b.restart(t)
		const n = 200
		ids := make([]string, 0, n)
		for i := 0; i < n; i++ {
			res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, fmt.Sprintf(trackerBody, "daily", `,"active":false`)).Want(t, http.StatusCreated)
			ids = append(ids, res.Body["tracker"].(map[string]any)["id"].(string))
		}
		for _, id := range ids {
			b.srv.Do(t, "PUT", "/v1/visibility/trackers/"+id, b.business, `{"active":true}`).Want(t, http.StatusOK)
		}
		// A day and 3 hours later: every slot is due, 3 hours late.
		b.clock.advance(27 * time.Hour)
		ctx := context.Background()
		var wg sync.WaitGroup
		claimed := make([]int, 2)
		for i, svc := range []*bundle{b, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := svc.trackers.QueueDue(ctx)
				if err != nil {
					t.Error(err)
				}
				claimed[i] = c
			}()
		}
		wg.Wait()
		if claimed[0]+claimed[1] != n {
			t.Fatalf("claimed %v, want %d in all", claimed, n)
		}
		var rows, reports int
		if err := storetest.QueryRow(ctx, s, `SELECT COUNT(*), COUNT(DISTINCT tracker_id) FROM visibility_tracker_runs`).Scan(&rows, &reports); err != nil {
			t.Fatal(err)
		}
		if rows != n || reports != n {
			t.Fatalf("slot rows %d over %d trackers, want %d", rows, reports, n)
		}
		if err := storetest.QueryRow(ctx, s, `SELECT COUNT(*) FROM visibility_reports WHERE tracker_id IS NOT NULL`).Scan(&reports); err != nil || reports != n {
			t.Fatalf("tracker reports = %d (%v), want %d", reports, err, n)
		}
		// Looking again finds nothing due.
		if c, err := other.trackers.QueueDue(ctx); c != 0 || err != nil {
			t.Fatalf("second look claimed %d (%v)", c, err)
		}
		tr := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+ids[0], b.business, "").Want(t, http.StatusOK).Body["tracker"].(map[string]any)
		// Created at T (slot T's time of day), the slot T+24h ran at T+27h:
		// 3 hours late, to the second of the slot's minute.
		late := tr["lastLateMs"].(float64)
		if late < float64(3*time.Hour/time.Millisecond) || late >= float64((3*time.Hour+time.Minute)/time.Millisecond) {
			t.Errorf("lastLateMs = %v, want 3h (within the slot's minute)", late)
		}
	})
}

func TestTrackerSkipsASlotTheCreditsDoNotCover(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.pro, fmt.Sprintf(trackerBody, "weekly", "")).Want(t, http.StatusCreated)
		id := res.Body["tracker"].(map[string]any)["id"].(string)
		b.waitJob(t, b.pro, res.Body["jobId"].(string))
		// Spend the rest of the slot's month's 40 credits.
		ctx := context.Background()
		b.clock.advance(7 * 24 * time.Hour)
		month := b.clock.now().UTC().Format("2006-01")
		used, _ := creditstore.New(s).CreditsUsed(ctx, b.proID, month)
		if _, ok, err := creditstore.New(s).ReserveCredits(ctx, b.proID, month, 40-used, 40); err != nil || !ok {
			t.Fatalf("reserve: %v %v", ok, err)
		}
		if c, err := b.trackers.QueueDue(ctx); c != 1 || err != nil {
			t.Fatalf("claimed %d (%v)", c, err)
		}
		tr := b.srv.Do(t, "GET", "/v1/visibility/trackers/"+id, b.pro, "").Want(t, http.StatusOK).Body["tracker"].(map[string]any)
		skip, _ := tr["lastSkip"].(map[string]any)
		if skip == nil || !strings.Contains(skip["reason"].(string), "AI credit limit reached") {
			t.Fatalf("lastSkip = %v", tr["lastSkip"])
		}
		var n int
		if err := storetest.QueryRow(ctx, s, `SELECT COUNT(*) FROM visibility_reports WHERE tracker_id = $1`, id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("reports = %d (%v), want only the first run", n, err)
		}
		// By hand: 403, recorded too.
		b.srv.Do(t, "POST", "/v1/visibility/trackers/"+id+"/run", b.pro, "").Want(t, http.StatusForbidden)
	})
}
