package tracker

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/heraldhq/herald/host/internal/apiconv"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// Trend window and drill-down bounds.
const (
	defaultTrendDays    = 30
	maxTrendDays        = 365
	defaultTrendAnswers = 5
	maxTrendAnswers     = 30
)

// TrendFigures are one brand's figures in one day's run (over one engine's
// answers, or over all of them).
type TrendFigures struct {
	Visibility   float64  `json:"visibility"`
	MentionRate  float64  `json:"mentionRate"`
	AvgPosition  *float64 `json:"avgPosition"`
	Sentiment    *float64 `json:"sentiment"`
	ShareOfVoice float64  `json:"shareOfVoice"`
	// Intervals says how sure each figure is; Changes is each figure's
	// change since the tracker's previous run, significant or not (a
	// chart marks only the significant ones).
	Intervals map[string]scoring.FigureInterval `json:"intervals,omitempty"`
	Changes   map[string]scoring.Change         `json:"changes,omitempty"`
}

// TrendPoint is one day of the trend: the day's last run.
type TrendPoint struct {
	Day       string `json:"day"`
	ReportID  string `json:"reportId"`
	TrackerID string `json:"trackerId"`
	Time      string `json:"time"`
	// Engines maps engine → brand slug → figures over that engine's
	// answers; All the same over every answer.
	Engines          map[string]map[string]TrendFigures `json:"engines"`
	All              map[string]TrendFigures            `json:"all"`
	SourceVisibility float64                            `json:"sourceVisibility"`
}

// TrendBrand is a tracked brand of the trend.
type TrendBrand struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
	Self bool   `json:"self"`
}

// TrendAnswer is one stored answer in a prompt's drill-down.
type TrendAnswer struct {
	ReportID  string                        `json:"reportId"`
	At        string                        `json:"at"`
	Text      string                        `json:"text"`
	Error     string                        `json:"error,omitempty"`
	Mentions  []analysis.Mention            `json:"mentions"`
	Sentiment map[string]analysis.Sentiment `json:"sentiment"`
	Citations []analysis.Citation           `json:"citations"`
}

// TrendPrompt is a prompt's last answers per engine, newest first.
type TrendPrompt struct {
	Prompt  string                   `json:"prompt"`
	Tags    []string                 `json:"tags"`
	Engines map[string][]TrendAnswer `json:"engines"`
}

// Trend is a tracker's view over a window of days.
type Trend struct {
	Tracker Tracker
	Days    int
	Engines []string
	Brands  []TrendBrand
	Series  []TrendPoint
	Prompts []TrendPrompt
	// Traffic is the visibility-and-visits series, nil when the workspace
	// does not track the tracker's domain in AI traffic.
	Traffic *TrafficJoin
}

// trendRun is a completed run decoded.
type trendRun struct {
	report   store.VisibilityReport
	computed scoring.Computed
	brands   []analysis.Brand
}

func decodeRun(r store.VisibilityReport) (trendRun, error) {
	run := trendRun{report: r}
	if r.Result == nil {
		return run, fmt.Errorf("report %s has no result", r.ID)
	}
	// Only what the trend shows: the source visibility and the brands'
	// figures (a result also holds the probes and the recommendations).
	var part struct {
		Scores struct {
			SourceVisibility *scoring.SourceVisibilityScore `json:"sourceVisibility"`
		} `json:"scores"`
		Geo struct {
			Brands []scoring.BrandFigures `json:"brands"`
		} `json:"geo"`
	}
	if err := json.Unmarshal([]byte(*r.Result), &part); err != nil {
		return run, fmt.Errorf("decode report %s result: %w", r.ID, err)
	}
	run.computed.Scores.SourceVisibility, run.computed.Geo.Brands = part.Scores.SourceVisibility, part.Geo.Brands
	if r.Brands != nil {
		if err := json.Unmarshal([]byte(*r.Brands), &run.brands); err != nil {
			return run, fmt.Errorf("decode report %s brands: %w", r.ID, err)
		}
	}
	return run, nil
}

// Trend returns the tracker's trend over the last days (default 30) with
// answers answers per prompt and engine (default 5).
func (s *Service) Trend(ctx context.Context, p auth.Principal, id string, days, answers int) (*Trend, error) {
	if days == 0 {
		days = defaultTrendDays
	}
	if days < 1 || days > maxTrendDays {
		return nil, apierr.Invalid("days must be between 1 and %d, got %d", maxTrendDays, days)
	}
	if answers == 0 {
		answers = defaultTrendAnswers
	}
	if answers < 1 || answers > maxTrendAnswers {
		return nil, apierr.Invalid("answers must be between 1 and %d, got %d", maxTrendAnswers, answers)
	}
	t, err := s.GetTracker(ctx, p, id)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(days - 1))
	before, reports, err := s.store.TrackerReports(ctx, p.WorkspaceID, id, start.UnixMilli())
	if err != nil {
		return nil, err
	}
	tr := &Trend{Tracker: t, Days: days, Engines: []string{}, Brands: []TrendBrand{}, Series: []TrendPoint{}, Prompts: []TrendPrompt{}}
	runs := make([]trendRun, 0, len(reports))
	for _, r := range reports {
		run, err := decodeRun(r)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	tr.Series, tr.Engines = series(runs)
	if len(runs) > 0 {
		for _, b := range runs[len(runs)-1].brands {
			tr.Brands = append(tr.Brands, TrendBrand{Slug: b.Slug, Name: b.Name, Self: b.Self})
		}
	}
	if tr.Prompts, err = s.drillDown(ctx, p.WorkspaceID, t, runs, answers); err != nil {
		return nil, err
	}
	var prior *trendRun
	if before != nil {
		run, err := decodeRun(*before)
		if err != nil {
			return nil, err
		}
		prior = &run
	}
	if tr.Traffic, err = s.trafficJoin(ctx, p.WorkspaceID, t, prior, runs, start, days); err != nil {
		return nil, err
	}
	return tr, nil
}

// series is one point per day with a run (the day's last run), and the
// engines seen.
func series(runs []trendRun) ([]TrendPoint, []string) {
	points := []TrendPoint{}
	engines := []string{}
	seen := map[string]bool{}
	for _, run := range runs {
		created := time.UnixMilli(run.report.CreatedAt).UTC()
		pt := TrendPoint{Day: created.Format(time.DateOnly), ReportID: run.report.ID, Time: created.Format(time.RFC3339Nano),
			Engines: map[string]map[string]TrendFigures{}, All: map[string]TrendFigures{}}
		if sv := run.computed.Scores.SourceVisibility; sv != nil {
			pt.SourceVisibility = sv.Score
		}
		if run.report.TrackerID != nil {
			pt.TrackerID = *run.report.TrackerID
		}
		for _, b := range run.computed.Geo.Brands {
			pt.All[b.Slug] = TrendFigures{Visibility: b.Visibility, MentionRate: b.MentionRate, AvgPosition: b.AvgPosition,
				Sentiment: b.Sentiment, ShareOfVoice: b.ShareOfVoice, Intervals: b.Intervals, Changes: b.Changes}
			for e, f := range b.Engines {
				if pt.Engines[e] == nil {
					pt.Engines[e] = map[string]TrendFigures{}
				}
				pt.Engines[e][b.Slug] = TrendFigures{Visibility: f.Visibility, MentionRate: f.MentionRate, AvgPosition: f.AvgPosition,
					Sentiment: f.Sentiment, ShareOfVoice: f.ShareOfVoice, Intervals: f.Intervals, Changes: f.Changes}
				if !seen[e] {
					seen[e] = true
					engines = append(engines, e)
				}
			}
		}
		if n := len(points); n > 0 && points[n-1].Day == pt.Day {
			points[n-1] = pt // the day's last run
			continue
		}
		points = append(points, pt)
	}
	sort.Strings(engines)
	return points, engines
}

// drillDown lists, per prompt of the tracker, the last n answers of each
// engine over the window's runs, newest first.
func (s *Service) drillDown(ctx context.Context, ws string, t Tracker, runs []trendRun, n int) ([]TrendPrompt, error) {
	out := make([]TrendPrompt, 0, len(t.Setup.Prompts))
	if len(runs) == 0 {
		for _, p := range t.Setup.Prompts {
			out = append(out, TrendPrompt{Prompt: p.Text, Tags: apiconv.NonNil(p.Tags), Engines: map[string][]TrendAnswer{}})
		}
		return out, nil
	}
	// The newest runs first; only as many runs as can hold n answers of a
	// prompt on an engine are read.
	ids := make([]string, 0, n)
	byID := map[string]trendRun{}
	for i := len(runs) - 1; i >= 0 && len(ids) < n; i-- {
		ids = append(ids, runs[i].report.ID)
		byID[runs[i].report.ID] = runs[i]
	}
	stored, err := s.store.ReportAnswers(ctx, ws, ids)
	if err != nil {
		return nil, err
	}
	rank := map[string]int{}
	for i, id := range ids {
		rank[id] = i
	}
	sort.SliceStable(stored, func(i, j int) bool { return rank[stored[i].ReportID] < rank[stored[j].ReportID] })
	matchers := map[string]*analysis.Matcher{}
	byPrompt := map[string]map[string][]TrendAnswer{}
	for _, a := range stored {
		run := byID[a.ReportID]
		m := matchers[a.ReportID]
		if m == nil {
			m = analysis.NewMatcher(run.brands)
			matchers[a.ReportID] = m
		}
		ans := analysis.Answer{Engine: a.Engine, Prompt: a.Question, Text: a.Text, Citations: []analysis.Citation{}}
		if a.Error != nil {
			ans.Error = *a.Error
		}
		_ = json.Unmarshal([]byte(a.Citations), &ans.Citations)
		ta := TrendAnswer{ReportID: a.ReportID, At: time.UnixMilli(a.AskedAt).UTC().Format(time.RFC3339), Text: a.Text, Error: ans.Error,
			Mentions: m.Mentions(ans), Sentiment: analysis.DecodeSentiment(a.Sentiment), Citations: ans.Citations}
		if ta.Mentions == nil {
			ta.Mentions = []analysis.Mention{}
		}
		if byPrompt[a.Question] == nil {
			byPrompt[a.Question] = map[string][]TrendAnswer{}
		}
		if len(byPrompt[a.Question][a.Engine]) < n {
			byPrompt[a.Question][a.Engine] = append(byPrompt[a.Question][a.Engine], ta)
		}
	}
	for _, p := range t.Setup.Prompts {
		eng := byPrompt[p.Text]
		if eng == nil {
			eng = map[string][]TrendAnswer{}
		}
		out = append(out, TrendPrompt{Prompt: p.Text, Tags: apiconv.NonNil(p.Tags), Engines: eng})
	}
	return out, nil
}

// csvFigures are the figures whose interval and change the CSV carries,
// with their column names.
var csvFigures = [][2]string{{scoring.FigVisibility, "visibility"}, {scoring.FigMentionRate, "mention_rate"}, {scoring.FigAvgPosition, "avg_position"},
	{scoring.FigSentiment, "sentiment"}, {scoring.FigShareOfVoice, "share_of_voice"}}

// CSV is the trend as rows: day, engine ("all" for every answer), brand,
// the figures, then per figure its interval (<figure>_low, <figure>_high;
// empty when none), its change since the previous run and whether that
// change is significant (<figure>_change, <figure>_significant).
func (tr *Trend) CSV() [][]string {
	header := []string{"day", "report_id", "engine", "brand", "self", "visibility", "mention_rate", "avg_position", "sentiment", "share_of_voice", "source_visibility"}
	for _, f := range csvFigures {
		header = append(header, f[1]+"_low", f[1]+"_high", f[1]+"_change", f[1]+"_significant")
	}
	rows := [][]string{header}
	self := map[string]bool{}
	for _, b := range tr.Brands {
		self[b.Slug] = b.Self
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
	opt := func(f *float64) string {
		if f == nil {
			return ""
		}
		return num(*f)
	}
	add := func(pt TrendPoint, engine string, figs map[string]TrendFigures) {
		slugs := make([]string, 0, len(figs))
		for slug := range figs {
			slugs = append(slugs, slug)
		}
		sort.Slice(slugs, func(i, j int) bool {
			if self[slugs[i]] != self[slugs[j]] {
				return self[slugs[i]]
			}
			return slugs[i] < slugs[j]
		})
		for _, slug := range slugs {
			f := figs[slug]
			row := []string{pt.Day, pt.ReportID, engine, slug, strconv.FormatBool(self[slug]), num(f.Visibility), num(f.MentionRate),
				opt(f.AvgPosition), opt(f.Sentiment), num(f.ShareOfVoice), num(pt.SourceVisibility)}
			for _, fig := range csvFigures {
				lo, hi, change, sig := "", "", "", ""
				if iv := f.Intervals[fig[0]].Interval; iv != nil {
					lo, hi = num(iv.Low), num(iv.High)
				}
				if c, ok := f.Changes[fig[0]]; ok {
					change, sig = num(c.Value), strconv.FormatBool(c.Significant)
				}
				row = append(row, lo, hi, change, sig)
			}
			rows = append(rows, row)
		}
	}
	for _, pt := range tr.Series {
		add(pt, "all", pt.All)
		for _, e := range tr.Engines {
			if figs, ok := pt.Engines[e]; ok {
				add(pt, e, figs)
			}
		}
	}
	return rows
}
