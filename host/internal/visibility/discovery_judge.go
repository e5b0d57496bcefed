package visibility

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/heraldhq/herald/host/internal/untrusted"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/sdk"
)

// discoverySystem asks the judge for every brand and product an answer
// names; the answer arrives enclosed as untrusted data.
const discoverySystem = `You list every brand, company and product that an AI answer engine's answer names, in the order they first appear.
Reply with one JSON object and nothing else: {"brands": [{"name": string, "domain": string}]}
name: as the answer writes it. domain: the brand's website domain if the answer writes it, else "".
Do not list categories, generic products, people or places. An answer naming no brand gives {"brands": []}.
`

// discoverySchema is the judge's JSON schema, passed as response_format
// to providers that support structured output.
var discoverySchema = map[string]any{
	"type": "json_schema",
	"json_schema": map[string]any{
		"name":   "named_brands",
		"strict": true,
		"schema": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"brands"},
			"properties": map[string]any{"brands": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []string{"name", "domain"},
				"properties": map[string]any{
					"name":   map[string]any{"type": "string"},
					"domain": map[string]any{"type": "string"},
				},
			}}},
		},
	},
}

// discoverySource names the enclosed answer for the judge.
const discoverySource = "an AI answer engine's answer"

// judgeDiscovery asks the judge model which brands and products answer a
// names. ok is false when there is no judge model or it failed: the
// answer's brands are then unknown (not none), and the report says so.
func (s *Service) judgeDiscovery(ctx context.Context, model string, a analysis.Answer) (named []analysis.NamedBrand, ok bool) {
	if model == "" || a.Missing() {
		return nil, false
	}
	nonce := untrusted.Nonce()
	prompt := fmt.Sprintf("Question asked: %s\nThe answer:\n%s", analysis.Excerpt(a.Prompt, 500),
		untrusted.Enclose(nonce, discoverySource, analysis.Excerpt(a.Text, 12000)))
	zero := 0.0
	jctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	res, err := s.models.GenerateText(jctx, model, sdk.TextRequest{Model: model, System: discoverySystem + untrusted.Rule(nonce), Prompt: prompt,
		Temperature: &zero, Options: map[string]any{"response_format": discoverySchema}})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("discovery judge failed", "engine", a.Engine, "model", model, "error", err)
		}
		return nil, false
	}
	var out struct {
		Brands *[]analysis.NamedBrand `json:"brands"`
	}
	if err := json.Unmarshal([]byte(jsonObject(res.Text)), &out); err != nil || out.Brands == nil {
		// As the sentiment and probe judges: a model that answers without
		// the schema leaves the answer unjudged (counted in
		// discovery.unjudged), said at info level; a failed call warns.
		s.log.Info("the discovery judge gave no brand list", "engine", a.Engine, "model", model, "reply", analysis.Excerpt(res.Text, 200))
		return nil, false
	}
	return analysis.CleanNamed(*out.Brands), true
}
