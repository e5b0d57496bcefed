package visibility

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/sdk"
)

// sentimentSystem asks the judge for the sentiment of each brand.
const sentimentSystem = `You rate the sentiment of an AI answer engine's answer toward each named brand, from the sentences that name it.
Reply with one JSON object and nothing else: {"brands": [{"brand": string, "label": "negative" | "neutral" | "positive", "score": integer}]}
score: negative 0-39, neutral 40-69, positive 70-100. A recommendation to avoid the brand, or reports of outages, breaches,
lawsuits, poor support or unreliability, are negative. A plain listing without judgement is neutral. Praise or a recommendation is positive.`

// sentimentSchema is the judge's JSON schema, passed as response_format to
// providers that support structured output.
var sentimentSchema = map[string]any{
	"type": "json_schema",
	"json_schema": map[string]any{
		"name":   "brand_sentiment",
		"strict": true,
		"schema": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"brands"},
			"properties": map[string]any{"brands": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []string{"brand", "label", "score"},
				"properties": map[string]any{
					"brand": map[string]any{"type": "string"},
					"label": map[string]any{"type": "string", "enum": []string{analysis.SentimentNegative, analysis.SentimentNeutral, analysis.SentimentPositive}},
					"score": map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
				},
			}}},
		},
	},
}

// judgeSentiment asks the judge model for the sentiment of each brand the
// answer mentions, from the sentences that name it, and applies the
// negative cues. A brand the judge did not rate (the judge failed) is
// negative when a cue says so and left out otherwise.
//
// A brand whose only occurrences wait for the mention judge (a
// sentence-initial ordinary word: sentiment is judged as each answer
// arrives, the mention judge at completion) is rated too: the figures
// count its sentiment only if the mention judge says it is named.
//
// cues is the index of brands (NewCueIndex), built once for a run's
// answers.
func (s *Service) judgeSentiment(ctx context.Context, model string, brands []analysis.Brand, cues *analysis.CueIndex, a analysis.Answer) map[string]analysis.Sentiment {
	an := analysis.NewMatcher(analysis.InferDomains(brands, []analysis.Answer{a})).Analyze(a)
	ms := an.Mentions
	for _, p := range an.Pending {
		if !slices.ContainsFunc(ms, func(m analysis.Mention) bool { return m.Brand == p.Brand }) {
			ms = append(ms, analysis.Mention{Brand: p.Brand, Name: p.Name})
		}
	}
	if len(ms) == 0 {
		return map[string]analysis.Sentiment{}
	}
	text := cues.Text(a.Text)
	judged := map[string]analysis.Sentiment{}
	if model != "" {
		// The judge reads the sentences that name each brand; without
		// one, only the negative cues are read (NegativeAt), and an
		// answer holding no negative phrase is not split at all.
		var prompt strings.Builder
		fmt.Fprintf(&prompt, "Question: %s\n", a.Prompt)
		for _, m := range ms {
			bi := analysis.BrandIndex(brands, m.Brand)
			fmt.Fprintf(&prompt, "\nBrand %q (%s):\n", m.Brand, brands[bi].Name)
			for _, line := range text.BrandAt(bi).Sentences {
				fmt.Fprintf(&prompt, "- %s\n", analysis.Excerpt(line, 1000))
			}
		}
		zero := 0.0
		res, err := s.models.GenerateText(ctx, model, sdk.TextRequest{Model: model, System: sentimentSystem, Prompt: prompt.String(),
			Temperature: &zero, Options: map[string]any{"response_format": sentimentSchema}})
		if err == nil {
			var out struct {
				Brands []struct {
					Brand string `json:"brand"`
					Label string `json:"label"`
					Score int    `json:"score"`
				} `json:"brands"`
			}
			if json.Unmarshal([]byte(jsonObject(res.Text)), &out) == nil {
				for _, r := range out.Brands {
					judged[r.Brand] = analysis.Band(strings.ToLower(strings.TrimSpace(r.Label)), r.Score)
				}
			}
		} else if ctx.Err() == nil {
			s.log.Warn("sentiment judge failed", "engine", a.Engine, "error", err)
		}
	}
	out := map[string]analysis.Sentiment{}
	for _, m := range ms {
		j, ok := judged[m.Brand]
		if cue := text.NegativeAt(analysis.BrandIndex(brands, m.Brand)); cue != "" {
			score := 20
			if ok && j.Label == analysis.SentimentNegative {
				score = j.Score
			}
			out[m.Brand] = analysis.Sentiment{Label: analysis.SentimentNegative, Score: score, Cue: cue}
			continue
		}
		if ok {
			out[m.Brand] = j
		}
	}
	return out
}
