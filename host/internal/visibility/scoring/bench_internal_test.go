package scoring

import (
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// cpuTime is the process's user and system CPU time: reported per op
// beside the wall time, which on a shared machine includes waiting.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// corpusAnswers are the labelled corpus's answers repeated to n, with the
// brands of every brand set tracked at once (22 brands).
func corpusAnswers(tb testing.TB, n int) ([]analysis.Brand, []analysis.Answer) {
	raw, err := os.ReadFile("../analysis/testdata/mentions_corpus.json")
	if err != nil {
		tb.Fatal(err)
	}
	var c struct {
		BrandSets map[string]struct {
			Self struct {
				Name, Domain string
			} `json:"self"`
			Competitors []analysis.CompetitorInput `json:"competitors"`
		} `json:"brandSets"`
		Answers []struct {
			Engine, Text string
			Citations    []string
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		tb.Fatal(err)
	}
	var comps []analysis.CompetitorInput
	for _, set := range c.BrandSets {
		comps = append(comps, analysis.ParseCompetitor(set.Self.Name+" ("+set.Self.Domain+")"))
		comps = append(comps, set.Competitors...)
	}
	brands := analysis.BuildBrands(analysis.SelfBrand("Tasklane", "tasklane.io"), comps)
	answers := make([]analysis.Answer, n)
	for i := range answers {
		a := c.Answers[i%len(c.Answers)]
		answers[i] = analysis.Answer{Engine: a.Engine, Prompt: "p", Text: a.Text}
		for _, u := range a.Citations {
			answers[i].Citations = append(answers[i].Citations, analysis.Citation{URL: u})
		}
	}
	return brands, answers
}

// v1Score is the mention part of the version 1 scorer: every answer
// matched and every brand's citations checked, as ScoreMentions did.
func v1Score(brands []analysis.Brand, answers []analysis.Answer) int {
	m := newV1Matcher(brands)
	n := 0
	for _, a := range answers {
		text := strings.ToLower(a.Text)
		hosts := v1citedHosts(a, text)
		n += len(m.mentions(text, hosts))
		for _, b := range brands {
			if v1cites(hosts, b.Domains) {
				n++
			}
		}
	}
	return n
}

// BenchmarkScoringVersions scores 1,000 stored answers (the labelled
// corpus repeated, 22 tracked brands) with the current rules
// (ScoreMentions: prose, trie, citations for every brand) and with the
// version 1 scorer in the same run. Target: v2 under 50 ms.
func BenchmarkScoringVersions(b *testing.B) {
	brands, answers := corpusAnswers(b, 1000)
	engines := []string{"gpt", "claude", "gemini", "perplexity"}
	b.Run("v1-1000", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for range b.N {
			if v1Score(brands, answers) == 0 {
				b.Fatal("no mentions")
			}
		}
	})
	b.Run("v2-1000", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for range b.N {
			if ms := ScoreMentions(brands, engines, answers); ms.TotalMentions == 0 {
				b.Fatal("no mentions")
			}
		}
	})
}

// BenchmarkMatchingWorstAnswer is the worst answer of the matching benchmarks: one-letter
// words and a competitor "g". Version 1 is quadratic (it compares every
// occurrence with every accepted one): 15,000 words already take it
// long; version 2 reads 150,000 (and 100,000 bytes, the stored cap) in
// one pass.
func BenchmarkMatchingWorstAnswer(b *testing.B) {
	brands := analysis.Brands(analysis.SelfBrand("Tasklane", "tasklane.io"), []string{"g"})
	for _, tc := range []struct {
		name  string
		words int
		v1    bool
	}{{"v1-15000-words", 15000, true}, {"v2-15000-words", 15000, false}, {"v2-150000-words", 150000, false}} {
		a := analysis.Answer{Engine: "gpt", Text: strings.Repeat("g ", tc.words)}
		b.Run(tc.name, func(b *testing.B) {
			defer reportCPU(b, cpuTime())
			for range b.N {
				if tc.v1 {
					v1Score(brands, []analysis.Answer{a})
				} else {
					ScoreMentions(brands, []string{"gpt"}, []analysis.Answer{a})
				}
			}
		})
	}
}
