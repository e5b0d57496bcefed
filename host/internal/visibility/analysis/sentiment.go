package analysis

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentiment labels and their score bands (docs/METRICS.md).
const (
	SentimentNegative = "negative" // 0–39
	SentimentNeutral  = "neutral"  // 40–69
	SentimentPositive = "positive" // 70–100
)

// Sentiment is the judged sentiment of one answer toward one brand, stored
// with the answer so the report reproduces.
type Sentiment struct {
	Label string `json:"label"`
	Score int    `json:"score"`
	// Cue is the negative phrase that made the sentiment negative whatever
	// the judge said ("avoid X", "X has had outages"), when there was one.
	Cue string `json:"cue,omitempty"`
}

// Band clamps a judged score into its label's Band; an unknown label is
// taken from the score.
func Band(label string, score int) Sentiment {
	score = max(0, min(100, score))
	switch label {
	case SentimentNegative:
		return Sentiment{Label: label, Score: min(score, 39)}
	case SentimentNeutral:
		return Sentiment{Label: label, Score: max(40, min(score, 69))}
	case SentimentPositive:
		return Sentiment{Label: label, Score: max(70, score)}
	}
	switch {
	case score < 40:
		return Sentiment{Label: SentimentNegative, Score: score}
	case score < 70:
		return Sentiment{Label: SentimentNeutral, Score: score}
	}
	return Sentiment{Label: SentimentPositive, Score: score}
}

// negativeBefore and negativeAfter are phrases that, right before or right
// after a brand's name in the same sentence, make the mention negative
// whatever the judge says: "avoid X", "X has had outages".
var (
	negativeBefore = []string{"avoid", "avoid using", "stay away from", "steer clear of", "do not use", "don't use",
		"do not recommend", "don't recommend", "would not recommend", "wouldn't recommend", "beware of", "problems with", "issues with", "complaints about"}
	negativeAfter = []string{"has had outages", "had outages", "has outages", "outage", "outages", "is unreliable", "has been unreliable",
		"was breached", "had a breach", "has had a breach", "had a data breach", "is down", "went down", "is a scam", "is overpriced",
		"has poor support", "has been criticized", "has been criticised", "is not recommended", "should be avoided"}
)

// sentences splits text into sentences at . ! ? and newlines.
func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if r == '\n' || ((r == '.' || r == '!' || r == '?') && (i+1 == len(text) || unicode.IsSpace(rune(text[i+1])))) {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// CueText is an answer's text split into sentences once, each also in
// lower case, so the cue pass over every brand the answer names neither
// splits nor folds the text again.
type CueText struct {
	sents, lowered []string
}

// NewCueText splits text for the cue pass.
func NewCueText(text string) *CueText {
	c := &CueText{sents: sentences(text)}
	c.lowered = make([]string, len(c.sents))
	for i, s := range c.sents {
		c.lowered[i] = strings.ToLower(s)
	}
	return c
}

// BrandCue is one brand in one answer for the cue pass: the sentences
// that name it, as written (Sentences) and in lower case.
type BrandCue struct {
	Sentences []string
	lowered   []string
	needles   []string
	name      string
}

// Brand returns the sentences of the text that name b (an alias on word
// boundaries, case-folded).
func (c *CueText) Brand(b Brand) BrandCue {
	bc := BrandCue{needles: needles(b), name: b.Name}
	for i, l := range c.lowered {
		if _, ok := aliasIn(l, bc.needles); ok {
			bc.Sentences = append(bc.Sentences, c.sents[i])
			bc.lowered = append(bc.lowered, l)
		}
	}
	return bc
}

// Negative is NegativeCue over the brand's sentences.
func (bc BrandCue) Negative() string { return negativeCue(bc.lowered, bc.needles, bc.name) }

// BrandSentences are the sentences of text that name b (an alias on word
// boundaries, case-folded).
func BrandSentences(text string, b Brand) []string { return NewCueText(text).Brand(b).Sentences }

// needles are b's aliases and then its domains, in lower case: what
// aliasIn looks for, in that order.
func needles(b Brand) []string {
	out := make([]string, 0, len(b.Aliases)+len(b.Domains))
	for _, a := range b.Aliases {
		out = append(out, strings.ToLower(a))
	}
	for _, d := range b.Domains {
		out = append(out, strings.ToLower(d))
	}
	return out
}

// aliasIn returns where the first of needles found on word boundaries
// starts and ends in lowered.
func aliasIn(lowered string, needles []string) ([2]int, bool) {
	for _, a := range needles {
		for off := 0; off < len(lowered); {
			i := strings.Index(lowered[off:], a)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(a)
			if wordBounded(lowered, start, end) {
				return [2]int{start, end}, true
			}
			off = start + 1
		}
	}
	return [2]int{}, false
}

// wordBounded: no letter or digit right before start or right after end.
func wordBounded(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	word := func(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
	return !(start > 0 && word(before)) && !(end < len(text) && word(after))
}

// beforeWindow is how many bytes before a name negativeCue reads: more
// than the longest phrase of negativeBefore plus one skipped word.
const beforeWindow = 160

// negativeBeforeWords are the words of each phrase of negativeBefore.
var negativeBeforeWords = func() [][]string {
	out := make([][]string, len(negativeBefore))
	for i, p := range negativeBefore {
		out[i] = strings.Fields(p)
	}
	return out
}()

// NegativeCue finds a negative phrase adjacent to a name of b in one of
// its sentences: a phrase of negativeBefore ending right before the name
// (up to one word between, "avoid using X"), or one of negativeAfter
// starting right after it.
func NegativeCue(sents []string, b Brand) string {
	lowered := make([]string, len(sents))
	for i, s := range sents {
		lowered[i] = strings.ToLower(s)
	}
	return negativeCue(lowered, needles(b), b.Name)
}

// negativeCue is NegativeCue over sentences already in lower case.
func negativeCue(lowered, needles []string, name string) string {
	for _, l := range lowered {
		for off := 0; off < len(l); {
			pos, ok := aliasIn(l[off:], needles)
			if !ok {
				break
			}
			start, end := off+pos[0], off+pos[1]
			// Only the last few words before the name matter: a bounded
			// window keeps this linear in the sentence's length (an
			// answer of 150,000 one-letter names must not go quadratic).
			from := max(0, start-beforeWindow)
			before := strings.Fields(l[from:start])
			if from > 0 && len(before) > 0 {
				before = before[1:] // the window may cut its first word
			}
			after := strings.TrimSpace(strings.TrimLeft(l[end:], "'’s,:"))
			for i, pw := range negativeBeforeWords {
				for skip := 0; skip <= 1; skip++ {
					if n := len(before) - skip; n >= len(pw) && slices.Equal(before[n-len(pw):n], pw) {
						return negativeBefore[i] + " " + name
					}
				}
			}
			for _, p := range negativeAfter {
				if strings.HasPrefix(after, p) {
					return name + " " + p
				}
			}
			off = end
		}
	}
	return ""
}

// DecodeSentiment reads a stored answer's sentiment; nil when not judged.
func DecodeSentiment(raw *string) map[string]Sentiment {
	if raw == nil {
		return nil
	}
	var m map[string]Sentiment
	if json.Unmarshal([]byte(*raw), &m) != nil {
		return nil
	}
	return m
}
