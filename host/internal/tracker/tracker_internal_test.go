package tracker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// A tracker prompt takes up to MaxTags tags of up to MaxTagChars
// characters each.
func TestTrackerTagLimitsAllowExactlyTheLimit(t *testing.T) {
	plan := config.Plan{PromptsPerReport: 5}
	tags := func(n, chars int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("é", chars)
		}
		return out
	}
	for _, tc := range []struct {
		tags []string
		err  string
	}{
		{tags(MaxTags, MaxTagChars), ""},
		{tags(MaxTags+1, 1), "invalid_argument: prompts[0].tags: 11 tags given; the limit is 10"},
		{tags(1, MaxTagChars+1), "invalid_argument: prompts[0].tags[0] is longer than 50 characters"},
	} {
		setup := TrackerSetup{WebsiteURL: "https://example.com", Prompts: []TrackerPrompt{{Text: "best widget supplier", Tags: tc.tags}}}
		_, err := setup.validate(plan, "pro")
		if got := errText(err); got != tc.err {
			t.Errorf("%d tags of %d characters: error %q, want %q", len(tc.tags), len([]rune(tc.tags[0])), got, tc.err)
		}
	}
}

// A cadence the plan does not offer names the plan's cadences, or none.
func TestValidateCadenceNamesThePlansCadences(t *testing.T) {
	if err := validateCadence(CadenceDaily, config.Plan{}, "free"); !strings.Contains(errText(err), "(cadences: none)") {
		t.Errorf("no cadences: %v", err)
	}
	if err := validateCadence(CadenceDaily, config.Plan{TrackerCadences: []string{CadenceWeekly}}, "pro"); !strings.Contains(errText(err), "(cadences: weekly)") {
		t.Errorf("weekly only: %v", err)
	}
	if err := validateCadence(CadenceWeekly, config.Plan{TrackerCadences: []string{CadenceWeekly}}, "pro"); err != nil {
		t.Errorf("weekly on a weekly plan: %v", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestTrafficJoinCarriesTheLastRunForward(t *testing.T) {
	const d0 = int64(20000) // epoch day of the window's first day
	run := func(day int64, vis map[string]float64) trendRun {
		engines := map[string]scoring.BrandEngineFigures{}
		for e, v := range vis {
			engines[e] = scoring.BrandEngineFigures{Visibility: v}
		}
		return trendRun{report: store.VisibilityReport{CreatedAt: day*86400000 + 3600000},
			computed: scoring.Computed{Geo: scoring.Geo{Brands: []scoring.BrandFigures{{BrandScore: scoring.BrandScore{Slug: "zentrix", Self: true}, Engines: engines}}}}}
	}
	runs := []trendRun{
		run(d0-3, map[string]float64{"gpt-4o": 10}), // before the window: carried in
		run(d0+1, map[string]float64{"gpt-4o": 50, "claude-sonnet": 20, "mystery": 99}),
		run(d0+4, map[string]float64{"gpt-4o": 70}),
	}
	visits := map[int64]map[string]int64{d0 + 1: {"chatgpt": 5}, d0 + 4: {"chatgpt": 7, "perplexity": 9}, d0 + 2: {"claude": 3}}
	s := &Service{}
	j := joinTraffic("site", "zentrix.com", s.engineSource, runs, visits, d0, 10)
	if _, ok := j.Totals["mystery"]; ok {
		t.Errorf("an engine with no AI traffic source is joined: %s", show(j.Totals))
	}
	var gpt, claude []string
	for _, d := range j.Days {
		g, c := d.Engines["gpt-4o"], d.Engines["claude-sonnet"]
		gpt = append(gpt, fmt.Sprintf("%s/%v/%d", show(g.Visibility), g.Carried, g.Visits))
		claude = append(claude, fmt.Sprintf("%s/%d", show(c.Visibility), c.Visits))
	}
	if got := strings.Join(gpt, " "); got != "10/true/0 50/false/5 50/true/0 50/true/0 70/false/7 70/true/0 70/true/0 70/true/0 70/true/0 70/true/0" {
		t.Errorf("gpt-4o (chatgpt) days = %s", got)
	}
	if got := strings.Join(claude, " "); got != "null/0 20/0 20/3 20/0 20/0 20/0 20/0 20/0 20/0 20/0" {
		t.Errorf("claude-sonnet (claude) days = %s", got)
	}
	g := j.Change["gpt-4o"]
	// First 7 days: (10 + 3×50 + 3×70) / 7 = 52.857; last 7: (50 + 6×70)
	// / 7 = 67.143; change 14.3. Visits 12 → 7: −5.
	if g.Source != "chatgpt" || show(g.VisibilityFirst7) != "52.9" || show(g.VisibilityLast7) != "67.1" || show(g.VisibilityChange) != "14.3" ||
		g.VisitsFirst7 != 12 || g.VisitsLast7 != 7 || g.VisitsChange != -5 {
		t.Errorf("gpt-4o change = %s", show(g))
	}
	if tot := j.Totals["gpt-4o"]; tot.Visits != 12 || show(tot.MeanVisibility) != "58" {
		t.Errorf("gpt-4o totals = %s, want 12 visits, mean 58", show(tot))
	}
	if c := j.Change["claude-sonnet"]; c.Source != "claude" || show(c.VisibilityChange) != "0" || c.VisitsChange != -3 {
		t.Errorf("claude-sonnet change = %s", show(c))
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fakeTraffic answers DailyVisits for one site and records what it was
// asked.
type fakeTraffic struct {
	siteID, asked string
	visits        map[int64]map[string]int64
}

func (f *fakeTraffic) DailyVisits(_ context.Context, workspaceID, domain string, firstDay int64, days int) (string, map[int64]map[string]int64, error) {
	f.asked = fmt.Sprintf("%s %s %d %d", workspaceID, domain, firstDay, days)
	if domain != "zentrix.com" {
		return "", nil, nil
	}
	return f.siteID, f.visits, nil
}

// The trend's join asks traffic for the tracked domain's visits over the
// window and joins them; a domain traffic does not track, or no Traffic,
// gives no join.
func TestTheTrendAsksTrafficForTheTrackedDomain(t *testing.T) {
	const d0 = int64(20000)
	start := time.Unix(d0*86400, 0).UTC()
	runs := []trendRun{{report: store.VisibilityReport{CreatedAt: (d0+1)*86400000 + 3600000},
		computed: scoring.Computed{Geo: scoring.Geo{Brands: []scoring.BrandFigures{{BrandScore: scoring.BrandScore{Slug: "zentrix", Self: true},
			Engines: map[string]scoring.BrandEngineFigures{"gpt-4o": {Visibility: 40}}}}}}}}
	f := &fakeTraffic{siteID: "site-1", visits: map[int64]map[string]int64{d0 + 1: {"chatgpt": 6}}}
	s := &Service{traffic: f}
	tr := Tracker{Setup: TrackerSetup{WebsiteURL: "https://www.zentrix.com/pricing"}}
	j, err := s.trafficJoin(context.Background(), "ws-1", tr, nil, runs, start, 3)
	if err != nil || j == nil {
		t.Fatalf("join = %v, %v", j, err)
	}
	if f.asked != "ws-1 zentrix.com 20000 3" {
		t.Errorf("traffic asked %q, want the workspace, the registrable domain and the window", f.asked)
	}
	if e := j.Days[1].Engines["gpt-4o"]; j.SiteID != "site-1" || e.Visits != 6 || show(e.Visibility) != "40" {
		t.Errorf("join = %s", show(j))
	}
	tr.Setup.WebsiteURL = "https://globex.com/"
	if j, err := s.trafficJoin(context.Background(), "ws-1", tr, nil, runs, start, 3); j != nil || err != nil {
		t.Errorf("an untracked domain joins: %s, %v", show(j), err)
	}
	if j, err := (&Service{}).trafficJoin(context.Background(), "ws-1", tr, nil, runs, start, 3); j != nil || err != nil {
		t.Errorf("no Traffic joins: %s, %v", show(j), err)
	}
}
