package analysis_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coregx/ahocorasick"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
)

// throughputTarget is how much text the answer-analysis benchmark pushes
// through each side: the labelled corpus repeated to about 100 MB.
const throughputTarget = 100 << 20

type throughputSet struct {
	brands  []analysis.Brand
	answers []analysis.Answer
	bytes   int
	// bare is a multi-pattern automaton of the same aliases (as written,
	// lower case and title case: the automaton has no case folding).
	bare *ahocorasick.Automaton
}

// loadThroughputCorpus reads testdata/mentions_corpus.json into one set per
// brand set, each answer list repeated until the whole corpus is about
// throughputTarget bytes of answer text.
func loadThroughputCorpus(tb testing.TB) ([]throughputSet, int) {
	return loadThroughputCorpusTo(tb, throughputTarget)
}

// loadThroughputCorpusTo is loadThroughputCorpus repeated to about target
// bytes.
func loadThroughputCorpusTo(tb testing.TB, target int) ([]throughputSet, int) {
	raw, err := os.ReadFile("testdata/mentions_corpus.json")
	if err != nil {
		tb.Fatal(err)
	}
	var c struct {
		BrandSets map[string]struct {
			Self struct {
				Name, Domain, Category string
			} `json:"self"`
			Competitors []analysis.CompetitorInput `json:"competitors"`
		} `json:"brandSets"`
		Answers []struct {
			Set       string                    `json:"set"`
			Engine    string                    `json:"engine"`
			Text      string                    `json:"text"`
			Citations []string                  `json:"citations"`
			Verdicts  []analysis.MentionVerdict `json:"verdicts"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		tb.Fatal(err)
	}
	var sets []throughputSet
	once := 0
	for name, bs := range c.BrandSets {
		self := analysis.SelfBrand(bs.Self.Name, bs.Self.Domain)
		self.Category = bs.Self.Category
		set := throughputSet{brands: analysis.BuildBrands(self, bs.Competitors)}
		for _, a := range c.Answers {
			if a.Set != name {
				continue
			}
			ans := analysis.Answer{Engine: a.Engine, Prompt: "p", Text: a.Text, Verdicts: a.Verdicts}
			for _, u := range a.Citations {
				ans.Citations = append(ans.Citations, analysis.Citation{URL: u})
			}
			set.answers = append(set.answers, ans)
			set.bytes += len(a.Text)
		}
		var patterns []string
		for _, b := range set.brands {
			for _, al := range b.Aliases {
				patterns = append(patterns, al, strings.ToLower(al), strings.ToUpper(al[:1])+al[1:])
			}
		}
		set.bare, err = ahocorasick.NewBuilder().AddStrings(patterns).Build()
		if err != nil {
			tb.Fatal(err)
		}
		once += set.bytes
		sets = append(sets, set)
	}
	if once == 0 {
		tb.Fatal("empty corpus")
	}
	reps := max(1, target/once)
	for i := range sets {
		base := sets[i].answers
		for range reps - 1 {
			sets[i].answers = append(sets[i].answers, base...)
		}
		sets[i].bytes *= reps
	}
	return sets, once * reps
}

// heraldPass is the whole analysis a report's answers get without a
// judge model: mentions, positions and citations of every tracked brand
// (ScoreMentions, as a report is scored), then each mentioned brand's
// negative cue (CueText.NegativeAt through one CueIndex of the brands, as
// a run reads each answer it stores without a judge model).
func heraldPass(sets []throughputSet) int { return heraldPassWith(sets, false) }

// heraldPassWith is heraldPass; with evidence it also writes out every
// brand's evidence of every answer (MentionScores.AllEvidence), as a
// report does where it stores its evidence.
func heraldPassWith(sets []throughputSet, evidence bool) int {
	n := 0
	engines := []string{"gpt", "claude", "gemini", "perplexity"}
	for _, s := range sets {
		ms := scoring.ScoreMentions(s.brands, engines, s.answers)
		if evidence {
			n += len(ms.AllEvidence())
		}
		ix := analysis.NewCueIndex(s.brands) // once per report
		var cues analysis.CueText            // reused from answer to answer
		for i, a := range s.answers {
			read := false // split and searched once per answer
			for _, m := range ms.Mentions[i] {
				if !read {
					ix.Reset(&cues, a.Text)
					read = true
				}
				if cues.NegativeAt(analysis.BrandIndex(s.brands, m.Brand)) != "" {
					n++
				}
				n++
			}
		}
	}
	return n
}

// barePass finds every alias occurrence in every answer with the
// automaton: the least any mention detection must do.
func barePass(sets []throughputSet) int {
	n := 0
	for _, s := range sets {
		for _, a := range s.answers {
			n += len(s.bare.FindAll([]byte(a.Text), -1))
		}
	}
	return n
}

// BenchmarkAnswerAnalysisThroughput measures Herald's answer analysis in
// MB/s over the labelled corpus repeated to ~100 MB, against a bare
// multi-pattern scan (github.com/coregx/ahocorasick) of the same aliases
// over the same bytes, in the same run. "ratio" is Herald's time over the
// bare scan's, in wall time and in the process's CPU time;
// herald-with-evidence also writes out every brand's evidence of every
// answer, as a report does where it stores its evidence.
// docs/BENCHMARKS.md records the figures:
//
//	go test -run '^$' -bench AnswerAnalysisThroughput -benchtime 1x ./host/internal/visibility/analysis
func BenchmarkAnswerAnalysisThroughput(b *testing.B) {
	sets, total := loadThroughputCorpus(b)
	mb := float64(total) / (1 << 20)
	// run measures pass as one sub-benchmark: wall and CPU seconds per
	// pass over the whole set.
	run := func(name string, pass func() int) (wall, cpu float64) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(total))
			runtime.GC()
			start := processCPU()
			b.ResetTimer()
			for range b.N {
				if pass() == 0 {
					b.Fatal("found nothing")
				}
			}
			wall = b.Elapsed().Seconds() / float64(b.N)
			cpu = (processCPU() - start).Seconds() / float64(b.N)
			b.ReportMetric(mb/wall, "MB/s")
			b.ReportMetric(mb/cpu, "MB/cpu-s")
		})
		return wall, cpu
	}
	herald, heraldCPU := run("herald", func() int { return heraldPass(sets) })
	bare, bareCPU := run("bare-aho-corasick", func() int { return barePass(sets) })
	_, withCPU := run("herald-with-evidence", func() int { return heraldPassWith(sets, true) })
	if herald > 0 && bare > 0 && heraldCPU > 0 && bareCPU > 0 {
		b.Logf("%.0f MB: herald %.1f MB/s, bare scan %.1f MB/s, ratio %.2f; CPU time: herald %.1f MB/cpu-s, bare %.1f, ratio %.2f",
			mb, mb/herald, mb/bare, herald/bare, mb/heraldCPU, mb/bareCPU, heraldCPU/bareCPU)
		if withCPU > 0 {
			b.Logf("with every answer's evidence written out: herald %.1f MB/cpu-s, ratio %.2f", mb/withCPU, withCPU/bareCPU)
		}
	}
}

// BenchmarkAnswerAnalysisInstructions is the benchmark above's two passes
// over a smaller copy of the corpus (HERALD_ANALYSIS_MB, 2 MB unless set),
// one pass per iteration, for counting instructions under valgrind: an
// instruction count does not move with the machine's load, so a ratio of
// counts shows a change of a few percent that wall and CPU times on a
// shared machine hide. scripts/analysis-instructions.sh runs it:
//
//	make bench-instructions
func BenchmarkAnswerAnalysisInstructions(b *testing.B) {
	mb := 2
	if v := os.Getenv("HERALD_ANALYSIS_MB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("HERALD_ANALYSIS_MB=%q: want a whole number of MB", v)
		}
		mb = n
	}
	sets, total := loadThroughputCorpusTo(b, mb<<20)
	if v := os.Getenv("HERALD_ANALYSIS_CUES"); v != "" {
		every, err := strconv.Atoi(v)
		if err != nil || every < 1 {
			b.Fatalf("HERALD_ANALYSIS_CUES=%q: want one answer in how many to hold a negative phrase", v)
		}
		total = withNegativePhrases(sets, every)
	}
	for _, side := range []struct {
		name string
		pass func([]throughputSet) int
	}{{"herald", heraldPass}, {"bare", barePass}} {
		b.Run(side.name, func(b *testing.B) {
			b.SetBytes(int64(total))
			for range b.N {
				if side.pass(sets) == 0 {
					b.Fatal("found nothing")
				}
			}
		})
	}
}

// withNegativePhrases gives one answer in every of each set a sentence
// with a negative phrase next to one of the set's brands ("Avoid Acme
// if uptime matters.", "Acme has had outages."), in turn, so that the
// cue pass has cues to find: the labelled corpus holds none, as most
// answers do not. It returns the sets' bytes of answer text.
func withNegativePhrases(sets []throughputSet, every int) int {
	phrases := []string{" Avoid %s if uptime matters.", " %s has had outages this year.", "\nSome teams report problems with %s.", " %s is overpriced for small teams."}
	total, k := 0, 0
	for i := range sets {
		s := &sets[i]
		s.answers = slices.Clone(s.answers)
		s.bytes = 0
		for j := range s.answers {
			if j%every == 0 {
				b := s.brands[k%len(s.brands)]
				s.answers[j].Text += fmt.Sprintf(phrases[k%len(phrases)], b.Name)
				k++
			}
			s.bytes += len(s.answers[j].Text)
		}
		total += s.bytes
	}
	return total
}

// processCPU is the process's user and system CPU time (garbage
// collection included): on a shared machine the wall time also counts
// waiting for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The benchmark's two sides must see the same text and both find
// something: a pass that found nothing would measure nothing.
func TestThroughputCorpusBothSidesFindMentions(t *testing.T) {
	sets, total := loadThroughputCorpus(t)
	if total < throughputTarget/2 {
		t.Fatalf("corpus repeated to %d bytes, want about %d", total, throughputTarget)
	}
	for i := range sets {
		sets[i].answers = sets[i].answers[:min(len(sets[i].answers), 20)]
	}
	if heraldPass(sets) == 0 || barePass(sets) == 0 {
		t.Fatal("a pass found no mention")
	}
	// With a negative phrase in one answer of two, the cue pass has cues
	// to find: one answer of two holds one.
	withNegativePhrases(sets, 2)
	answers, cued := 0, 0
	for _, s := range sets {
		ix := analysis.NewCueIndex(s.brands)
		var c analysis.CueText
		for _, a := range s.answers {
			answers++
			ix.Reset(&c, a.Text)
			for bi := range s.brands {
				if c.NegativeAt(bi) != "" {
					cued++
					break
				}
			}
		}
	}
	if 2*cued < answers {
		t.Fatalf("%d of %d answers have a negative cue, want half", cued, answers)
	}
}
