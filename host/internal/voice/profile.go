package voice

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heraldhq/herald/host/internal/seo"
	"github.com/heraldhq/herald/sdk"
)

// MaxProfileSourceChars bounds the source text a model reads to write a
// profile; the rest of a long site adds little to its style.
const MaxProfileSourceChars = 24_000

const profileSystem = `You are a brand strategist. From the text of a brand's website or documents, write a writing-style profile that another writer can follow.
Use these sections, in this order, as short Markdown bullet lists:
## Tone
## Audience
## Vocabulary to use
## Vocabulary to avoid
## Sentence style
## Do
## Don't
## Examples (3 short sentences in the voice, new, not copied)
Describe the style only; do not repeat facts, prices or claims from the text.`

// profile turns source text into a voice's content: written by the
// profile model when the caller paid for it (a reserved charge; nil: no
// model configured), else a measured profile. A failed model call falls
// back on the measured profile and gives the credit back. It returns the
// content and whether a model wrote it.
func (s *Service) profile(ctx context.Context, paid charge, name, text string) (string, bool) {
	if paid != nil && s.modelConfigured() {
		src := text
		if r := []rune(src); len(r) > MaxProfileSourceChars {
			src = string(r[:MaxProfileSourceChars])
		}
		res, err := s.deps.Models.GenerateText(ctx, s.deps.Model, sdk.TextRequest{Model: s.deps.Model, System: profileSystem,
			Prompt: fmt.Sprintf("Brand: %s\n\nText:\n%s", name, src)})
		if err == nil && strings.TrimSpace(res.Text) != "" {
			return strings.TrimSpace(res.Text), true
		}
		s.deps.Logger.Warn("profile model failed; storing a measured profile", "model", s.deps.Model, "error", err)
	}
	paid.refund()
	return MeasuredProfile(name, text), false
}

// MeasuredProfile describes the style of text by measurement alone:
// reading ease, sentence length, grammatical person, formality markers, top
// terms and sample sentences.
func MeasuredProfile(name, text string) string {
	score, _ := seo.Score(seo.Input{Content: text, AutoExtract: true})
	var sents []string
	for _, line := range strings.Split(text, "\n") {
		sents = append(sents, seo.Sentences(line)...)
	}
	words := seo.Words(text)
	count := func(set ...string) int {
		n := 0
		for _, w := range words {
			if slices.Contains(set, w) {
				n++
			}
		}
		return n
	}
	we := count("we", "our", "ours", "us")
	you := count("you", "your", "yours")
	first := count("i", "my", "me", "mine")
	contractions, exclaims, questions := 0, 0, 0
	for _, w := range words {
		if strings.Contains(w, "'") {
			contractions++
		}
	}
	for _, s := range sents {
		switch {
		case strings.HasSuffix(s, "!"):
			exclaims++
		case strings.HasSuffix(s, "?"):
			questions++
		}
	}
	per1000 := func(n int) float64 {
		if len(words) == 0 {
			return 0
		}
		return float64(n) * 1000 / float64(len(words))
	}
	person := "third person (the brand by name)"
	switch {
	case we >= you && we >= first && we > 0:
		person = "first person plural (we, our)"
	case you > we && you >= first:
		person = "second person (you, your): talks to the reader"
	case first > 0:
		person = "first person singular (I, my)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Writing-style profile of %s (measured from %d words, %d sentences).\n\n", name, len(words), len(sents))
	if f := score.Readability.FleschReadingEase; f != nil {
		fmt.Fprintf(&b, "- Reading ease (Flesch): %.0f\n", *f)
	}
	fmt.Fprintf(&b, "- Average sentence length: %.1f words; %.0f%% of sentences over 20 words\n", score.Readability.AverageSentenceLength, score.Readability.LongSentencesPercent)
	fmt.Fprintf(&b, "- Person: %s (we %d, you %d, I %d)\n", person, we, you, first)
	fmt.Fprintf(&b, "- Formality markers per 1,000 words: contractions %.1f, exclamations %.1f, questions %.1f\n", per1000(contractions), per1000(exclaims), per1000(questions))
	if p := score.Readability.PassivePercent; p != nil {
		fmt.Fprintf(&b, "- Passive sentences: %.0f%%\n", *p)
	}
	if len(score.Keywords) > 0 {
		terms := make([]string, 0, len(score.Keywords))
		for _, k := range score.Keywords {
			terms = append(terms, k.Keyword)
		}
		fmt.Fprintf(&b, "- Top terms: %s\n", strings.Join(terms, ", "))
	}
	var samples []string
	for _, s := range sents {
		if n := len(seo.Words(s)); n >= 6 && n <= 25 && !slices.Contains(samples, s) {
			samples = append(samples, s)
		}
		if len(samples) == 5 {
			break
		}
	}
	if len(samples) > 0 {
		b.WriteString("\nSample sentences:\n")
		for _, s := range samples {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	return strings.TrimSpace(b.String())
}
