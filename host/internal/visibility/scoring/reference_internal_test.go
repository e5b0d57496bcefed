package scoring

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// refScoreMentions is ScoreMentions as it was before its evidence was
// allocated in blocks, kept verbatim but for where the evidence goes (it
// returns every answer's evidence beside the scores, which now keep
// facts): the differential test below holds ScoreMentions to it.
func refScoreMentions(brands []analysis.Brand, engines []string, answers []analysis.Answer) (MentionScores, [][]analysis.BrandEvidence, [][]string) {
	evidence := make([][]analysis.BrandEvidence, len(answers))
	cited := make([][]string, len(answers))
	brands = analysis.InferDomains(brands, answers)
	m := analysis.NewMatcher(brands)
	engines = slices.Clone(engines) // answers of unlisted engines are appended
	out := MentionScores{Providers: map[string]*float64{}, Mentions: make([][]analysis.Mention, len(answers))}
	type acc struct {
		weight        float64
		mentions, pos int
		cited         int
	}
	per := make([]acc, len(brands))
	type engAcc struct {
		weight float64
		n      int
		status EngineStatus
	}
	byEngine := map[string]*engAcc{}
	for _, e := range engines {
		byEngine[e] = &engAcc{status: EngineStatus{Engine: e}}
	}
	answered := 0
	for i, a := range answers {
		e := byEngine[a.Engine]
		if e == nil {
			e = &engAcc{status: EngineStatus{Engine: a.Engine}}
			byEngine[a.Engine] = e
			engines = append(engines, a.Engine)
		}
		e.status.Planned++
		an := m.Analyze(a)
		evidence[i] = an.Brands
		if len(an.Pending) > 0 {
			out.Pending = append(out.Pending, PendingAnswer{Answer: i, Requests: an.Pending})
		}
		if a.NoAnswer && a.Error == "" {
			e.status.NoAnswer++
			continue
		}
		if a.Missing() {
			e.status.Missing++
			msg := a.Error
			e.status.Error = &msg
			continue
		}
		e.status.Answered++
		e.n++
		answered++
		ms := an.Mentions
		out.Mentions[i] = ms
		for _, be := range an.Brands {
			for _, v := range be.Judged {
				out.Judging.Asked++
				if v.Names {
					out.Judging.Counted++
				}
			}
			out.Judging.Unjudged += be.Unjudged
		}
		for _, mt := range ms {
			bi := analysis.BrandIndex(brands, mt.Brand)
			per[bi].weight += mt.Weight
			per[bi].mentions++
			per[bi].pos += mt.Position
			if mt.Self {
				e.weight += mt.Weight
			}
		}
		for bi, be := range an.Brands {
			if be.Cited {
				per[bi].cited++
				cited[i] = append(cited[i], brands[bi].Slug)
			}
		}
	}
	for _, e := range engines {
		ea := byEngine[e]
		out.Engines = append(out.Engines, ea.status)
		if ea.n > 0 {
			v := Round1(100 * ea.weight / float64(ea.n))
			out.Providers[e] = &v
		} else {
			out.Providers[e] = nil
		}
	}
	for bi, b := range brands {
		out.TotalMentions += per[bi].mentions
		if b.Self {
			out.SelfMentions = per[bi].mentions
		}
	}
	for bi, b := range brands {
		bs := BrandScore{Name: b.Name, Slug: b.Slug, Self: b.Self, Aliases: b.Aliases, InferredDomain: b.InferredDomain, Mentions: per[bi].mentions, Citations: per[bi].cited}
		if answered > 0 {
			bs.Visibility = Round1(100 * per[bi].weight / float64(answered))
			bs.MentionRate = Round1(100 * float64(per[bi].mentions) / float64(answered))
		}
		if out.TotalMentions > 0 {
			bs.ShareOfVoice = Round1(100 * float64(per[bi].mentions) / float64(out.TotalMentions))
		}
		if per[bi].mentions > 0 {
			bs.AveragePosition = Round1(float64(per[bi].pos) / float64(per[bi].mentions))
		}
		out.Brands = append(out.Brands, bs)
	}
	if len(out.Brands) > 0 {
		out.Visibility = out.Brands[0].Visibility
		out.ShareOfVoice = out.Brands[0].ShareOfVoice
	}
	if answered > 0 {
		s := Interpretation(out.Visibility)
		out.Interpretation = &s
	}
	if out.Judging.Unjudged > 0 {
		out.Judging.Note = fmt.Sprintf("%d sentence-initial occurrence(s) of brand names that are ordinary words were not decided by a judge model and do not count", out.Judging.Unjudged)
	}
	return out, evidence, cited
}

// TestScoreMentionsGivesWhatTheReferenceGives compares ScoreMentions with
// the reference over the labelled corpus, whole and in random cuts and
// joins of its answers, with failed and empty answers and engines outside
// the list.
func TestScoreMentionsGivesWhatTheReferenceGives(t *testing.T) {
	brands, corpus := corpusAnswers(t, 72)
	r := rand.New(rand.NewPCG(46, 1))
	sets := [][]analysis.Answer{corpus}
	for range 200 {
		var answers []analysis.Answer
		for range 1 + r.IntN(40) {
			a := corpus[r.IntN(len(corpus))]
			b := corpus[r.IntN(len(corpus))]
			cut := r.IntN(len(a.Text) + 1)
			a.Text = a.Text[:cut] + []string{" ", "\n", ". ", ""}[r.IntN(4)] + b.Text[r.IntN(len(b.Text)+1):]
			a.Citations = append(slices.Clone(a.Citations), b.Citations...)
			switch r.IntN(12) {
			case 0:
				a.Error = "failed"
			case 1:
				a.NoAnswer = true
			case 2:
				a.Engine = "other"
			}
			answers = append(answers, a)
		}
		sets = append(sets, answers)
	}
	mentions := 0
	for _, answers := range sets {
		for _, bs := range [][]analysis.Brand{brands, brands[:3], {brands[0]}} {
			got := ScoreMentions(bs, []string{"gpt", "claude", "gemini", "perplexity"}, answers)
			want, evidence, cited := refScoreMentions(bs, []string{"gpt", "claude", "gemini", "perplexity"}, answers)
			all := got.AllEvidence()
			for i := range answers {
				if !reflect.DeepEqual(all[i], evidence[i]) {
					t.Fatalf("answer %d's evidence differs from the reference:\n%+v\nwant\n%+v", i, all[i], evidence[i])
				}
				if !reflect.DeepEqual(got.Cited(i), cited[i]) {
					t.Fatalf("answer %d cites %q, the reference %q", i, got.Cited(i), cited[i])
				}
			}
			got.Facts, got.brands = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ScoreMentions differs from the reference:\n%s\nwant\n%s", show(got), show(want))
			}
			mentions += want.TotalMentions
		}
	}
	if mentions < 1000 {
		t.Fatalf("only %d mentions over the sets: the comparison says little", mentions)
	}
	t.Logf("%d answer sets compared, %d mentions", 3*len(sets), mentions)
}
