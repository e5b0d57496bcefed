package visibility_test

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// BenchmarkReport runs whole reports through REST and the queue against
// fake engines that answer every question in 500 ms. one-answer is the
// floor (one prompt on one engine: one engine round trip plus the probes
// asked alongside); 25x4 is 25 prompts on 4 engines (100 answers and 20
// probes), which the per-workspace concurrency cap (16) spreads out.
// Target: 25x4 under 10 s.
func BenchmarkReport(b *testing.B) {
	for _, tc := range []struct {
		name             string
		prompts, engines int
	}{{"one-answer", 1, 1}, {"25x4", 25, 4}} {
		b.Run(tc.name, func(b *testing.B) {
			var engines []string
			for i := range tc.engines {
				engines = append(engines, fmt.Sprintf("engine%d", i))
			}
			bu := setup(b, storetest.SQLite(b), options{engines: engines, concurrency: 16})
			bu.engines.delay = 500 * time.Millisecond
			var ps []string
			for i := range tc.prompts {
				ps = append(ps, fmt.Sprintf("%q", fmt.Sprintf("best widget supplier number %d", i)))
			}
			req := `{"websiteurl":"https://example.com","competitors":["Globex Corp"],"prompts":[` + strings.Join(ps, ",") + `]}`
			b.ResetTimer()
			for range b.N {
				// Past the cache window: every iteration asks the engines.
				bu.clock.advance(11 * time.Minute)
				bu.report(b, bu.business, req)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/report")
			if r := bu.srv.Do(b, "GET", "/v1/ai/generate/seo-site-report", bu.business, "").Want(b, http.StatusOK).Body; r["isEmpty"] != false {
				b.Fatal("no report")
			}
		})
	}
}

// BenchmarkScoring scores 1,000 stored answers (10 prompts × 4 engines ×
// 25 reports' worth of text, 6 tracked brands) with Compute, against a
// baseline that only lowercases the same texts (the least any matcher
// must do). Target: under 50 ms.
func BenchmarkScoring(b *testing.B) {
	brands := analysis.Brands(analysis.SelfBrand("Acme", "acme.com"),
		[]string{"Globex Corp", "https://initech.io", "Umbrella", "Hooli", "Stark Industries"})
	engines := []string{"gpt", "claude", "gemini", "perplexity"}
	answers := make([]analysis.Answer, 1000)
	for i := range answers {
		answers[i] = analysis.Answer{
			Engine: engines[i%4], Prompt: fmt.Sprintf("prompt %d", i%10),
			Text: strings.Repeat("Buyers compare many vendors before choosing one for their factory. ", 12) +
				[]string{"Globex Corp leads, then Acme (https://acme.com/widgets) and Hooli.", "Initech and Umbrella are popular; see https://initech.io.",
					"Stark Industries is pricey.", "No vendor stands out."}[i%4],
			Citations: []analysis.Citation{{URL: "https://news.example/widgets"}},
		}
	}
	b.Run("baseline-lowercase", func(b *testing.B) {
		for range b.N {
			n := 0
			for _, a := range answers {
				n += len(strings.ToLower(a.Text))
			}
			if n == 0 {
				b.Fatal("nothing")
			}
		}
	})
	b.Run("compute-1000", func(b *testing.B) {
		for range b.N {
			c := scoring.Compute(brands, engines, answers, nil, nil)
			if c.Scores.ShareOfVoice.TotalMentions == 0 {
				b.Fatal("no mentions")
			}
		}
	})
}

// BenchmarkEvidenceRead reads a stored report over REST with and without
// ?evidence=true, the report holding the worst answer of the matching benchmarks (150,000
// one-letter words, stored cut to 100,000 bytes) and a competitor "g":
// the evidence is read as stored at completion, not recomputed. Target:
// evidence under 50 ms p50.
func BenchmarkEvidenceRead(b *testing.B) {
	bu := setup(b, storetest.SQLite(b), options{engines: []string{"gpt"}})
	bu.report(b, bu.business, `{"websiteurl":"https://example.com","competitors":["g"],"prompts":["worst case"]}`)
	for _, path := range []string{"/v1/ai/generate/seo-site-report", "/v1/ai/generate/seo-site-report?evidence=true"} {
		name := "without-evidence"
		if strings.Contains(path, "evidence") {
			name = "with-evidence"
		}
		b.Run(name, func(b *testing.B) {
			var ru0, ru1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for range b.N {
				bu.srv.Do(b, "GET", path, bu.business, "").Want(b, http.StatusOK)
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
