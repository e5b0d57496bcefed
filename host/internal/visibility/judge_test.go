package visibility_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

const mondayBody = `{"websiteurl":"https://example.com","competitors":["Monday (monday.com)"],"prompts":["best work management tool"]}`

// brandOf returns the evidence of slug in the answer of engine.
func brandOf(t *testing.T, r map[string]any, engine, slug string) map[string]any {
	t.Helper()
	for _, a := range r["answers"].([]any) {
		am := a.(map[string]any)
		if am["engine"] != engine {
			continue
		}
		for _, b := range am["brands"].([]any) {
			if bm := b.(map[string]any); bm["brand"] == slug {
				return bm
			}
		}
	}
	t.Fatalf("no %s in %s's evidence", slug, engine)
	return nil
}

func TestTheJudgeDecidesSentenceInitialNamesAndItsVerdictIsStored(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt", "claude"}})
		_, job := b.report(t, b.business, mondayBody)
		reportID := get(t, job, "result.reportId").(string)
		r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK).Body
		// gpt: "Monday is where many teams start: its boards are flexible."
		// names the brand (judge: yes); claude: "Monday is eaten by email"
		// does not.
		gm, cm := brandOf(t, r, "gpt", "monday"), brandOf(t, r, "claude", "monday")
		if gm["mentioned"] != true || gm["position"] != float64(1) || cm["mentioned"] != false {
			t.Fatalf("monday evidence: gpt %v, claude %v", gm, cm)
		}
		judged, _ := json.Marshal(gm["judged"])
		if !strings.Contains(string(judged), `"namesBrand":true`) || !strings.Contains(string(judged), `"sentence":"Monday is where many teams start: its boards are flexible."`) {
			t.Errorf("gpt's verdict = %s", judged)
		}
		if mj, _ := json.Marshal(get(t, r, "report.geo.mentionJudging")); string(mj) != `{"asked":2,"counted":1,"note":"","unjudged":0}` {
			t.Errorf("mentionJudging = %s", mj)
		}
		// Stored with the answers: the rescore reproduces the report
		// without asking the judge again.
		notes, err := s.ListAnswerMentions(context.Background(), b.businessID, reportID)
		if err != nil || len(notes) != 2 || !strings.Contains(notes[0].Verdicts+notes[1].Verdicts, `"namesBrand":true`) {
			t.Fatalf("stored verdicts = %+v, %v", notes, err)
		}
		calls := b.engines.count("judge", "mention")
		before, _ := json.Marshal(r["scores"])
		done, err := visibility.Rescore(context.Background(), s, b.businessID, nil)
		if err != nil {
			t.Fatal(err)
		}
		score := get(t, r, "scores.aiVisibility.score").(float64)
		want := visibility.Rescored{ReportID: reportID, WorkspaceID: b.businessID, From: analysis.ScoringVersion, To: analysis.ScoringVersion, Before: score, After: score}
		if len(done) != 1 || done[0] != want {
			t.Errorf("rescored = %+v, want [%+v]", done, want)
		}
		after := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report", b.business, "").Want(t, http.StatusOK).Body
		if a, _ := json.Marshal(after["scores"]); string(a) != string(before) || b.engines.count("judge", "mention") != calls {
			t.Errorf("rescore changed the scores %s → %s or asked the judge", before, a)
		}
	})
}

// The judge's verdicts go to the answers they were asked of, when answers
// with nothing to judge come between them.
func TestTheJudgesVerdictsGoToTheAnswersTheyDecide(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, options{engines: []string{"gpt", "claude"}})
		b.report(t, b.business, `{"websiteurl":"https://example.com","competitors":["Monday (monday.com)"],"prompts":["best widget supplier","best work management tool"]}`)
		r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK).Body
		for _, a := range r["answers"].([]any) {
			am := a.(map[string]any)
			for _, be := range am["brands"].([]any) {
				bm := be.(map[string]any)
				if bm["brand"] != "monday" {
					continue
				}
				judged, _ := json.Marshal(bm["judged"])
				text, _ := am["text"].(string)
				// Only an answer that opens a sentence with Monday has a
				// verdict, and it is on that sentence.
				if has := bm["judged"] != nil; has != strings.HasPrefix(text, "Monday") || has && !strings.Contains(string(judged), strings.Split(text, ".")[0]) {
					t.Errorf("%s's answer %q: monday judged %s", am["engine"], text, judged)
				}
				if want := strings.HasPrefix(text, "Monday is where"); bm["mentioned"] != want {
					t.Errorf("%s's answer %q: monday mentioned %v, want %v", am["engine"], text, bm["mentioned"], want)
				}
			}
		}
		if mj, _ := json.Marshal(get(t, r, "report.geo.mentionJudging")); string(mj) != `{"asked":2,"counted":1,"note":"","unjudged":0}` {
			t.Errorf("mentionJudging = %s", mj)
		}
	})
}

func TestWithoutAJudgeTheOccurrenceDoesNotCountAndTheReportSaysSo(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), options{engines: []string{"gpt", "claude"}, judge: "broken"})
	b.report(t, b.business, mondayBody)
	r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK).Body
	if gm := brandOf(t, r, "gpt", "monday"); gm["mentioned"] != false || gm["unjudged"] != float64(1) {
		t.Errorf("gpt's Monday without a judge: %v", gm)
	}
	note, _ := get(t, r, "report.geo.mentionJudging.note").(string)
	if !strings.Contains(note, "2 sentence-initial occurrence(s)") {
		t.Errorf("the report must say the occurrences were not judged: %q", note)
	}
	// The probes go to the configured judge too, not to the engine that
	// answered them: with the judge broken, none is graded.
	probes := get(t, r, "report.geo.entityUnderstanding.probes").([]any)
	if len(probes) != 10 {
		t.Fatalf("%d probes, want 5 × 2 engines", len(probes))
	}
	for _, p := range probes {
		if p := p.(map[string]any); p["verdict"] != "missing" {
			t.Errorf("%s's probe %s graded %v by a broken judge", p["engine"], p["id"], p["verdict"])
		}
	}
}

func TestTheWorstAnswerIsCappedAndItsEvidenceIsReadAsStored(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	b := setup(t, s, options{engines: []string{"gpt"}})
	_, job := b.report(t, b.business, `{"websiteurl":"https://example.com","competitors":["g"],"prompts":["worst case"]}`)
	reportID := get(t, job, "result.reportId").(string)
	// Stored when the report completed, before any read.
	version, body, err := s.GetVisibilityEvidence(context.Background(), b.businessID, reportID)
	if err != nil || version != analysis.ScoringVersion || !strings.Contains(body, `"brand":"g","name":"g","self":false,"mentioned":true`) {
		t.Fatalf("stored evidence v%d %.200s: %v", version, body, err)
	}
	r := b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK).Body
	a := r["answers"].([]any)[0].(map[string]any)
	if text := a["text"].(string); len(text) != visibility.MaxAnswerBytes || a["truncated"] != true {
		t.Fatalf("the 300,000-byte answer is stored as %d bytes, truncated %v", len(text), a["truncated"])
	}
	// Read as stored, not recomputed: a changed stored evidence shows.
	changed := strings.Replace(body, `"brand":"g","name":"g","self":false,"mentioned":true`, `"brand":"g","name":"g","self":false,"mentioned":false`, 1)
	if err := s.SaveVisibilityEvidence(context.Background(), b.businessID, reportID, analysis.ScoringVersion, changed); err != nil {
		t.Fatal(err)
	}
	r = b.srv.Do(t, "GET", "/v1/ai/generate/seo-site-report?evidence=true", b.business, "").Want(t, http.StatusOK).Body
	if g := brandOf(t, r, "gpt", "g"); g["mentioned"] != false {
		t.Errorf("the evidence was recomputed on read: %v", g)
	}
}
