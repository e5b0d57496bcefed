package visibility_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// samplePlans are testPlans with business asking 3 samples per prompt and
// engine (reports and trackers alike).
func samplePlans() map[string]config.Plan {
	p := testPlans()
	b := p["business"]
	b.ReportSamples, b.TrackerSamples = 3, 3
	p["business"] = b
	return p
}

// A report asks each prompt samples times on each engine, concurrently,
// charges a credit per answer, and never takes one stored answer for two
// samples: within the cache window the engine is still asked three times.
func TestSamplesAreAskedAndChargedPerAnswer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt", "claude"}, plans: samplePlans(), ttl: time.Hour})
		_, job := b.report(t, b.business, reportBody)
		for _, e := range []string{"gpt", "claude"} {
			for _, p := range []string{"best widget supplier", "widgets for factories"} {
				if n := b.engines.count(e, p); n != 3 {
					t.Errorf("%s asked %q %d times, want 3 (one per sample, none from the cache)", e, p, n)
				}
			}
		}
		id := job["result"].(map[string]any)["reportId"].(string)
		r, err := s.GetVisibilityReport(context.Background(), b.businessID, id)
		if err != nil || r.Samples != 3 || r.CreditsReserved != 2*2*3 {
			t.Fatalf("report samples %d credits %d (%v), want 3 samples and 12 credits (prompts × engines × samples)", r.Samples, r.CreditsReserved, err)
		}
		res := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK).Body
		if res["samples"] != float64(3) {
			t.Errorf("samples = %v, want 3", res["samples"])
		}
		answers := res["answers"].([]any)
		seen := map[string]bool{}
		for _, a := range answers {
			m := a.(map[string]any)
			sample, _ := m["sample"].(float64)
			seen[fmt.Sprintf("%s|%s|%v", m["engine"], m["prompt"], sample)] = true
		}
		if len(answers) != 12 || len(seen) != 12 {
			t.Errorf("%d answers, %d distinct (engine, prompt, sample); want 12 of each", len(answers), len(seen))
		}
		vis := res["scores"].(map[string]any)["aiVisibility"].(map[string]any)
		if vis["n"] != float64(12) || vis["prompts"] != float64(2) {
			t.Errorf("aiVisibility n %v over %v prompts, want 12 answers over 2 prompts", vis["n"], vis["prompts"])
		}
		// A second report within the window reuses the three answers
		// another report got, one per sample: no engine is asked again.
		before := b.engines.total()
		b.report(t, b.business, reportBody)
		if n := b.engines.total() - before; n != 0 {
			t.Errorf("the second report asked the engines %d more times, want none (3 cached answers per prompt, probes cached)", n)
		}
	})
}

// A tracker's own samples: 1 to 10 and at most the plan's tracker_samples,
// else 400 naming samples; 0 on update goes back to the plan's.
func TestTrackerSamplesAreChecked(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt"}, plans: samplePlans()})
		for _, n := range []string{"0", "11", "4", "-1"} {
			res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, fmt.Sprintf(trackerBody, "daily", `,"samples":`+n)).WantMessage(t, http.StatusBadRequest)
			if msg := res.Body["message"].(string); !strings.HasPrefix(msg, "samples") {
				t.Errorf("samples %s: %q does not name samples", n, msg)
			}
		}
		res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, fmt.Sprintf(trackerBody, "daily", `,"samples":2`)).Want(t, http.StatusCreated)
		tr := res.Body["tracker"].(map[string]any)
		if tr["samples"] != float64(2) {
			t.Fatalf("tracker samples = %v, want 2", tr["samples"])
		}
		job := b.waitJob(t, b.business, res.Body["jobId"].(string))
		id := job["result"].(map[string]any)["reportId"].(string)
		if r, _ := s.GetVisibilityReport(context.Background(), b.businessID, id); r.Samples != 2 || r.CreditsReserved != 2*1*2 {
			t.Errorf("run samples %d credits %d, want 2 and 4", r.Samples, r.CreditsReserved)
		}
		path := "/v1/visibility/trackers/" + tr["id"].(string)
		b.srv.Do(t, "PUT", path, b.business, `{"samples":12}`).WantMessage(t, http.StatusBadRequest)
		if got := b.srv.Do(t, "PUT", path, b.business, `{"samples":0}`).Want(t, http.StatusOK).Body["tracker"].(map[string]any); got["samples"] != nil {
			t.Errorf("samples 0 kept %v, want null (the plan's)", got["samples"])
		}
	})
}

// A plan lowering tracker_samples while a run is under way changes the
// next run, not that one.
func TestALoweredPlanAppliesToTheNextRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt"}, plans: samplePlans()})
		gate := make(chan struct{})
		b.engines.gate, b.engines.gateOnly = gate, "gpt"
		res := b.srv.Do(t, "POST", "/v1/visibility/trackers", b.business, fmt.Sprintf(trackerBody, "daily", "")).Want(t, http.StatusCreated)
		select {
		case <-b.engines.asked: // not yet: the gate holds every call
		case <-time.After(200 * time.Millisecond):
		}
		lowered := samplePlans()
		biz := lowered["business"]
		biz.TrackerSamples = 1
		lowered["business"] = biz
		b.plans.Set(lowered)
		close(gate)
		job := b.waitJob(t, b.business, res.Body["jobId"].(string))
		first := job["result"].(map[string]any)["reportId"].(string)
		if n := b.engines.count("gpt", "best widget supplier"); n != 3 {
			t.Errorf("the running run asked %d samples, want the 3 it was queued with", n)
		}
		run := b.srv.Do(t, "POST", "/v1/visibility/trackers/"+res.Body["tracker"].(map[string]any)["id"].(string)+"/run", b.business, "").Want(t, http.StatusAccepted)
		job = b.waitJob(t, b.business, run.Body["jobId"].(string))
		next := job["result"].(map[string]any)["reportId"].(string)
		r1, _ := s.GetVisibilityReport(context.Background(), b.businessID, first)
		r2, _ := s.GetVisibilityReport(context.Background(), b.businessID, next)
		if r1.Samples != 3 || r2.Samples != 1 {
			t.Errorf("samples %d then %d, want 3 (queued before the change) then 1", r1.Samples, r2.Samples)
		}
	})
}
