package impact_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/impact"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/sdk"
)

// BenchmarkTrackerImpact is the impact view of one tracker with 100
// published posts over 180 days of daily runs (20 prompts × 2 engines,
// 7,200 stored answers with their evidence; each post targets one of 5
// tags and has its page's crawls and visits read from AI traffic), against
// reading the same rows raw (the targeted posts, the runs, their answers
// and their evidence) without decoding or computing. Target: p50 under
// 150 ms on both backends.
func BenchmarkTrackerImpact(b *testing.B) {
	backends := map[string]func(testing.TB) *store.Store{"sqlite": storetest.SQLite}
	if os.Getenv("HERALD_TEST_DATABASE_URL") != "" {
		backends["postgres"] = storetest.Postgres
	}
	for name, open := range backends {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			svc, p, id := impactFixture(b, s)
			ctx := context.Background()
			b.Run("impact", func(b *testing.B) {
				took := make([]time.Duration, 0, b.N)
				for range b.N {
					start := time.Now()
					list, err := svc.Tracker(ctx, p, id)
					if err != nil || len(list) != 100 || list[0].State != impact.StateReady {
						b.Fatalf("impact: %d %v", len(list), err)
					}
					took = append(took, time.Since(start))
				}
				reportP50(b, took)
			})
			b.Run("raw", func(b *testing.B) {
				took := make([]time.Duration, 0, b.N)
				for range b.N {
					start := time.Now()
					posts, err := s.TargetedPosts(ctx, p.WorkspaceID, id)
					if err != nil || len(posts) != 100 {
						b.Fatalf("raw posts: %d %v", len(posts), err)
					}
					_, runs, err := s.TrackerReports(ctx, p.WorkspaceID, id, time.Now().AddDate(0, 0, -200).UnixMilli())
					if err != nil || len(runs) != 180 {
						b.Fatalf("raw runs: %d %v", len(runs), err)
					}
					ids := make([]string, len(runs))
					for i, r := range runs {
						ids[i] = r.ID
						if _, _, err := s.GetVisibilityEvidence(ctx, p.WorkspaceID, r.ID); err != nil {
							b.Fatal(err)
						}
					}
					if a, err := s.ReportAnswers(ctx, p.WorkspaceID, ids); err != nil || len(a) != 7200 {
						b.Fatalf("raw answers: %d %v", len(a), err)
					}
					took = append(took, time.Since(start))
				}
				reportP50(b, took)
			})
		})
	}
}

// reportP50 reports the median of the iterations in milliseconds.
func reportP50(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}

type noQueue struct{}

func (noQueue) EnqueueTx(context.Context, store.Querier, jobs.NewJob) (string, error) { return "", nil }
func (noQueue) Wake(...string)                                                        {}

type noDests struct{}

func (noDests) Destinations() []string { return []string{"wordpress"} }
func (noDests) Validate(context.Context, string, sdk.ValidateRequest) ([]sdk.Problem, error) {
	return nil, nil
}
func (noDests) Export(context.Context, string, sdk.ExportRequest) (sdk.ExportResult, error) {
	return sdk.ExportResult{}, nil
}

type noCreds struct{}

func (noCreds) ExportCredentials(context.Context, destination.Export) (map[string]string, error) {
	return nil, nil
}
func (noCreds) Credentials(context.Context, destination.Export) (map[string]string, error) {
	return nil, nil
}

func impactFixture(b *testing.B, s *store.Store) (*impact.Service, auth.Principal, string) {
	ctx := context.Background()
	ws, user, err := s.EnsureWorkspaceUser(ctx, "bench", "business", "a@bench.test")
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	caps := quota.New(s, config.Limits{})
	trackers, err := tracker.New(tracker.Deps{Store: s, Queue: noQueue{}, Quota: caps, Reports: &visibility.Service{}, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	schedules, err := schedule.New(schedule.Deps{Store: s, Queue: noQueue{}, Quota: caps, Destinations: noDests{}, Credentials: noCreds{}})
	if err != nil {
		b.Fatal(err)
	}
	w, err := traffic.NewWriter(ctx, s, traffic.WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Close)
	pages, err := traffic.New(traffic.Deps{Store: s, Writer: w, BaseURL: "http://herald.test"})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := impact.New(impact.Deps{Schedules: schedules, Trackers: trackers, Pages: pages, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	engines := []string{"gpt-4o", "sonar"}
	setup := tracker.TrackerSetup{WebsiteURL: "https://zentrix.com/"}
	for i := range 20 {
		setup.Prompts = append(setup.Prompts, tracker.TrackerPrompt{Text: fmt.Sprintf("prompt %d", i), Tags: []string{fmt.Sprintf("tag%d", i%5)}})
	}
	row := store.Tracker{WorkspaceID: ws.ID, WebsiteURL: setup.WebsiteURL, Input: visibility.MustJSON(setup), Engines: visibility.MustJSON(engines), Cadence: tracker.CadenceDaily,
		Active: true, NextRunAt: now.Add(time.Hour).UnixMilli(), CreatedAt: now.AddDate(0, 0, -181).UnixMilli(), UpdatedAt: now.UnixMilli()}
	if err := s.Tx(ctx, func(q store.Querier) error { return s.CreateTracker(ctx, q, &row, 1000) }); err != nil {
		b.Fatal(err)
	}
	for d := 179; d >= 0; d-- {
		at := now.AddDate(0, 0, -d).Add(-time.Minute).UnixMilli()
		done := at + 1000
		r := &store.VisibilityReport{WorkspaceID: ws.ID, WebsiteURL: setup.WebsiteURL, Input: "{}", Engines: visibility.MustJSON(engines), State: store.ReportCompleted,
			CreditsMonth: "2026-01", CreatedAt: at, CompletedAt: &done, TrackerID: &row.ID}
		if err := s.CreateVisibilityReport(ctx, nil, r); err != nil {
			b.Fatal(err)
		}
		var evidence []map[string]any
		for _, e := range engines {
			for i := range 20 {
				named := (i+d)%3 == 0
				text := fmt.Sprintf("For question %d, Globex leads. See https://g2.com/p%d and https://zentrix.com/blog/post-%d/.", i, i, d%100)
				sa := store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: ws.ID, Kind: visibility.KindPrompt, Engine: e, Item: fmt.Sprint(i),
					Question: fmt.Sprintf("prompt %d", i), Text: text, Citations: "[]", AskedAt: at, CreatedAt: at}
				if err := s.SaveVisibilityAnswer(ctx, &sa); err != nil {
					b.Fatal(err)
				}
				evidence = append(evidence, map[string]any{"key": e + "/" + fmt.Sprint(i), "mentions": []any{}, "brands": []any{
					map[string]any{"brand": "zentrix", "name": "Zentrix", "self": true, "mentioned": named, "position": 1, "weight": map[bool]float64{true: 1}[named]},
					map[string]any{"brand": "globex", "name": "Globex", "mentioned": true, "position": 1, "weight": 1},
				}})
			}
		}
		if err := s.SaveVisibilityEvidence(ctx, ws.ID, r.ID, 1, visibility.MustJSON(evidence)); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		pub := now.AddDate(0, 0, -170+i).UnixMilli()
		link := fmt.Sprintf("https://zentrix.com/blog/post-%d/", i)
		sc := store.Schedule{WorkspaceID: ws.ID, UserID: user.ID, ExportTo: "wordpress", Status: store.SchedulePublished, Content: "{}",
			ExternalURL: &link, PublishedAt: &pub, CreatedAt: pub - 1000}
		if err := s.InsertSchedule(ctx, nil, &sc); err != nil {
			b.Fatal(err)
		}
		if err := s.InsertScheduleTarget(ctx, nil, store.ScheduleTarget{ScheduleID: sc.ID, WorkspaceID: ws.ID, TrackerID: row.ID, Prompts: []string{fmt.Sprintf("tag%d", i%5)}}); err != nil {
			b.Fatal(err)
		}
	}
	return svc, auth.Principal{WorkspaceID: ws.ID, Plan: "business", UserID: user.ID}, row.ID
}
