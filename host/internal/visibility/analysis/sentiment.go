package analysis

import (
	"encoding/json"
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

// BrandSentences are the sentences of text that name b (an alias on word
// boundaries, case-folded).
func BrandSentences(text string, b Brand) []string {
	var out []string
	for _, s := range sentences(text) {
		if _, ok := aliasAt(strings.ToLower(s), b); ok {
			out = append(out, s)
		}
	}
	return out
}

// aliasAt returns where an alias of b starts and ends in lowered.
func aliasAt(lowered string, b Brand) ([2]int, bool) {
	for _, a := range append(append([]string{}, b.Aliases...), b.Domains...) {
		a = strings.ToLower(a)
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

// NegativeCue finds a negative phrase adjacent to a name of b in one of
// its sentences: a phrase of negativeBefore ending right before the name
// (up to one word between, "avoid using X"), or one of negativeAfter
// starting right after it.
func NegativeCue(sents []string, b Brand) string {
	for _, s := range sents {
		l := strings.ToLower(s)
		for off := 0; off < len(l); {
			pos, ok := aliasAt(l[off:], b)
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
			for _, p := range negativeBefore {
				pw := strings.Fields(p)
				for skip := 0; skip <= 1; skip++ {
					if n := len(before) - skip; n >= len(pw) && strings.Join(before[n-len(pw):n], " ") == p {
						return p + " " + b.Name
					}
				}
			}
			for _, p := range negativeAfter {
				if strings.HasPrefix(after, p) {
					return b.Name + " " + p
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
