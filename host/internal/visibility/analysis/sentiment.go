package analysis

import (
	"encoding/json"
	"unicode"
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
	for _, sp := range sentenceSpans(text, nil) {
		out = append(out, text[sp[0]:sp[1]])
	}
	return out
}

// sentenceSpans appends to spans the bounds of each sentence of text, as
// sentences splits it, trimmed of spaces.
func sentenceSpans(text string, spans [][2]int32) [][2]int32 {
	emit := func(start, end int) { spans = appendSpan(text, spans, start, end) }
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' || ((c == '.' || c == '!' || c == '?') && (i+1 == len(text) || unicode.IsSpace(rune(text[i+1])))) {
			emit(start, i+1)
			start = i + 1
		}
	}
	emit(start, len(text))
	return spans
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
