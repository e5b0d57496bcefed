package visibility

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// judgeSystem asks the judge model for a verdict as one JSON object.
const judgeSystem = `You grade what an AI answer engine said about a brand against facts taken from the brand's own website.
Reply with one JSON object and nothing else:
{"verdict": "correct" | "partly" | "wrong" | "unknown", "explanation": string, "entities": [{"name": string, "kind": "brand" | "category" | "product" | "location" | "audience" | "competitor"}]}
correct: consistent with the site fact and covers its substance. partly: some of it right, the rest missing or vague.
wrong: contradicts the site fact or describes another entity. unknown: the answer says it does not know or has no information.
explanation: one sentence naming what was right or wrong. entities: what the answer associates with the brand.`

// judgeSchema is the JSON schema of the verdict, passed as the
// response_format option to providers that support structured output.
var judgeSchema = map[string]any{
	"type": "json_schema",
	"json_schema": map[string]any{
		"name":   "probe_verdict",
		"strict": true,
		"schema": map[string]any{
			"type":                 "object",
			"additionalProperties": false,
			"required":             []string{"verdict", "explanation", "entities"},
			"properties": map[string]any{
				"verdict":     map[string]any{"type": "string", "enum": []string{VerdictCorrect, VerdictPartly, VerdictWrong, VerdictUnknown}},
				"explanation": map[string]any{"type": "string"},
				"entities": map[string]any{"type": "array", "items": map[string]any{
					"type": "object", "additionalProperties": false, "required": []string{"name", "kind"},
					"properties": map[string]any{"name": map[string]any{"type": "string"}, "kind": map[string]any{"type": "string"}},
				}},
			},
		},
	},
}

// judgement is what is stored beside a probe's verdict.
type judgement struct {
	Explanation string         `json:"explanation,omitempty"`
	Entities    []JudgedEntity `json:"entities,omitempty"`
}

// judgeAndSave grades a probe answer against its site fact with the judge
// model and stores the verdict, the fact and the judgement beside the
// answer. A missing answer is "missing", a probe without a site fact
// "unverifiable" (no judge call).
func (s *Service) judgeAndSave(ctx context.Context, self Brand, t task, a store.VisibilityAnswer) {
	fact := t.fact
	var verdict string
	var j judgement
	switch {
	case a.Error != nil:
		verdict = VerdictMissing
	case fact == "":
		verdict = VerdictUnverifiable
	default:
		verdict, j = s.judge(ctx, self, t, a.Text)
	}
	if ctx.Err() != nil {
		return // not judged: the next attempt judges it
	}
	jb, _ := json.Marshal(j)
	js := string(jb)
	a.Verdict, a.Fact, a.Judgement = &verdict, &fact, &js
	_ = s.save(ctx, &a)
}

func (s *Service) judge(ctx context.Context, self Brand, t task, answer string) (string, judgement) {
	model := s.cfg.JudgeModel
	if model == "" {
		model = t.engine
	}
	prompt := fmt.Sprintf("Brand: %s (%s)\nQuestion: %s\nSite fact: %s\nAnswer to grade:\n%s",
		self.Name, strings.Join(self.Domains, ", "), t.question, t.fact, excerpt(answer, 6000))
	zero := 0.0
	res, err := s.models.GenerateText(ctx, model, sdk.TextRequest{Model: model, System: judgeSystem, Prompt: prompt, Temperature: &zero,
		Options: map[string]any{"response_format": judgeSchema}})
	if err != nil {
		return VerdictMissing, judgement{Explanation: "the judge failed: " + engineError(err)}
	}
	var out struct {
		Verdict     string         `json:"verdict"`
		Explanation string         `json:"explanation"`
		Entities    []JudgedEntity `json:"entities"`
	}
	if err := json.Unmarshal([]byte(jsonObject(res.Text)), &out); err != nil {
		return VerdictMissing, judgement{Explanation: "the judge's answer was not JSON"}
	}
	switch v := strings.ToLower(strings.TrimSpace(out.Verdict)); v {
	case VerdictCorrect, VerdictPartly, VerdictWrong, VerdictUnknown:
		return v, judgement{Explanation: out.Explanation, Entities: out.Entities}
	default:
		return VerdictMissing, judgement{Explanation: "the judge gave no known verdict: " + strconv.Quote(out.Verdict)}
	}
}

// jsonObject cuts the outermost {...} out of a model's text, which may
// wrap it in a code fence or a sentence when structured output is not
// enforced by the provider.
func jsonObject(text string) string {
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return text
	}
	return text[i : j+1]
}
