package visibility_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// intervalRun is a 50-prompt × 4-engine × 3-sample run naming 5 tracked
// brands, with sentiment judged for every mention.
func intervalRun() ([]analysis.Brand, []string, []analysis.Answer, []map[string]analysis.Sentiment) {
	brands := analysis.BuildBrands(analysis.SelfBrand("Acme", "acme.com"), []analysis.CompetitorInput{
		{Name: "Globex", Domain: "globex.com"}, {Name: "Initech", Domain: "initech.io"}, {Name: "Umbrella"}, {Name: "Hooli"}})
	engines := []string{"gpt", "claude", "gemini", "perplexity"}
	names := []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli"}
	r := rand.New(rand.NewPCG(1, 2))
	var answers []analysis.Answer
	var sentiments []map[string]analysis.Sentiment
	for _, e := range engines {
		for p := 0; p < 50; p++ {
			for k := 0; k < 3; k++ {
				var named []string
				sent := map[string]analysis.Sentiment{}
				for i, n := range names {
					if r.Float64() < 0.5 {
						named = append(named, n)
						sent[strings.ToLower(n)] = analysis.Sentiment{Label: "neutral", Score: 40 + r.IntN(30)}
					}
					_ = i
				}
				r.Shuffle(len(named), func(i, j int) { named[i], named[j] = named[j], named[i] })
				text := "For this question, consider " + strings.Join(named, ", ") + ". See https://acme.com/pricing."
				answers = append(answers, analysis.Answer{Engine: e, Prompt: "buyer question " + strconv.Itoa(p), Sample: k, Text: text})
				sentiments = append(sentiments, sent)
			}
		}
	}
	return brands, engines, answers, sentiments
}

// BenchmarkIntervals: the bootstrap of every figure of every brand,
// overall and per engine, of a 50-prompt × 4-engine × 3-sample run
// (bootstrap), against computing the run's figures once (figures: the
// report's Compute and Extend over the same answers). Target: bootstrap
// p50 under 50 ms.
func BenchmarkIntervals(b *testing.B) {
	brands, engines, answers, sentiments := intervalRun()
	c := scoring.Compute(brands, engines, answers, nil, nil)
	b.Run("figures", func(b *testing.B) {
		var samples []time.Duration
		cpu := cpuNow()
		for range b.N {
			start := time.Now()
			c := scoring.Compute(brands, engines, answers, nil, nil)
			scoring.Extend(&c, brands, engines, answers, sentiments)
			samples = append(samples, time.Since(start))
		}
		reportCPU(b, cpu)
		reportP50(b, samples)
	})
	b.Run("bootstrap", func(b *testing.B) {
		var samples []time.Duration
		cpu := cpuNow()
		for i := range b.N {
			start := time.Now()
			tab := scoring.BuildPromptTable(brands, engines, answers, c.Mentions, sentiments)
			iv := tab.Intervals("run-" + strconv.Itoa(i))
			samples = append(samples, time.Since(start))
			if iv[""]["acme"][scoring.FigVisibility].Interval == nil {
				b.Fatal("no interval")
			}
		}
		reportCPU(b, cpu)
		reportP50(b, samples)
	})
	prev := scoring.BuildPromptTable(brands, engines, answers, c.Mentions, sentiments)
	b.Run("paired", func(b *testing.B) {
		var samples []time.Duration
		cpu := cpuNow()
		for i := range b.N {
			start := time.Now()
			tab := scoring.BuildPromptTable(brands, engines, answers, c.Mentions, sentiments)
			tab.ChangesSince(prev, "run-"+strconv.Itoa(i))
			samples = append(samples, time.Since(start))
		}
		reportCPU(b, cpu)
		reportP50(b, samples)
	})
}

// cpuNow is the process's CPU time (user + system): on a shared machine
// the wall time says how busy the others are, the CPU time what the work
// costs.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((cpuNow()-since).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func reportP50(b *testing.B, samples []time.Duration) {
	b.Helper()
	for i := 1; i < len(samples); i++ {
		for j := i; j > 0 && samples[j] < samples[j-1]; j-- {
			samples[j], samples[j-1] = samples[j-1], samples[j]
		}
	}
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkTrackerRun: a tracker run of 25 prompts × 4 engines × 3 samples
// (300 answers, 20 probes) against engines answering in 500 ms, through
// the API and the job queue, against the floor of one run of one prompt
// on one engine (one sample). Target: the 25×4×3 run under 15 s.
func BenchmarkTrackerRun(b *testing.B) {
	for _, tc := range []struct {
		name                      string
		prompts, engines, samples int
	}{{"one-answer", 1, 1, 1}, {"25x4x3", 25, 4, 3}} {
		b.Run(tc.name, func(b *testing.B) {
			var engines []string
			for i := range tc.engines {
				engines = append(engines, fmt.Sprintf("engine%d", i))
			}
			plans := testPlans()
			biz := plans["business"]
			biz.TrackerSamples = tc.samples
			plans["business"] = biz
			bu := setup(b, storetest.SQLite(b), options{engines: engines, concurrency: 16, plans: plans})
			bu.engines.delay = 500 * time.Millisecond
			var ps []string
			for i := range tc.prompts {
				ps = append(ps, strconv.Quote(fmt.Sprintf("best widget supplier number %d", i)))
			}
			body := `{"websiteurl":"https://example.com","competitors":["Globex Corp"],"prompts":[` + strings.Join(ps, ",") + `],"cadence":"daily","active":false}`
			id := bu.srv.Do(b, "POST", "/v1/visibility/trackers", bu.business, body).Want(b, http.StatusCreated).Body["tracker"].(map[string]any)["id"].(string)
			b.ResetTimer()
			for range b.N {
				bu.clock.advance(11 * time.Minute) // past the answer cache
				run := bu.srv.Do(b, "POST", "/v1/visibility/trackers/"+id+"/run", bu.business, "").Want(b, http.StatusAccepted)
				bu.waitJob(b, bu.business, run.Body["jobId"].(string))
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
		})
	}
}
