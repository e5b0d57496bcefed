package visibility

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
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
				"verdict":     map[string]any{"type": "string", "enum": []string{scoring.VerdictCorrect, scoring.VerdictPartly, scoring.VerdictWrong, scoring.VerdictUnknown}},
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
	Explanation string                 `json:"explanation,omitempty"`
	Entities    []scoring.JudgedEntity `json:"entities,omitempty"`
}

// judgeAndSave grades a probe answer against its site fact with the judge
// model and stores the verdict, the fact and the judgement beside the
// answer. A missing answer is "missing", a probe without a site fact
// "unverifiable" (no judge call).
func (s *Service) judgeAndSave(ctx context.Context, self analysis.Brand, t task, a store.VisibilityAnswer) {
	fact := t.fact
	var verdict string
	var j judgement
	switch {
	case a.Error != nil, a.Outcome == store.AnswerNoAnswer:
		verdict = scoring.VerdictMissing
	case fact == "":
		verdict = scoring.VerdictUnverifiable
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

func (s *Service) judge(ctx context.Context, self analysis.Brand, t task, answer string) (string, judgement) {
	model := s.cfg.JudgeModel
	if model == "" {
		model = t.engine
		if !s.canJudge(model) {
			model = s.judgeModel(s.Engines())
		}
	}
	if model == "" {
		return scoring.VerdictMissing, judgement{Explanation: "no engine of this report can judge a probe answer: set visibility.judge_model"}
	}
	prompt := fmt.Sprintf("Brand: %s (%s)\nQuestion: %s\nSite fact: %s\nAnswer to grade:\n%s",
		self.Name, strings.Join(self.Domains, ", "), t.question, t.fact, analysis.Excerpt(answer, 6000))
	zero := 0.0
	res, err := s.models.GenerateText(ctx, model, sdk.TextRequest{Model: model, System: judgeSystem, Prompt: prompt, Temperature: &zero,
		Options: map[string]any{"response_format": judgeSchema}})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("probe judge failed", "probe", t.item, "model", model, "error", err)
		}
		return scoring.VerdictMissing, judgement{Explanation: "the judge failed: " + engineError(err)}
	}
	var out struct {
		Verdict     string                 `json:"verdict"`
		Explanation string                 `json:"explanation"`
		Entities    []scoring.JudgedEntity `json:"entities"`
	}
	if err := json.Unmarshal([]byte(jsonObject(res.Text)), &out); err != nil {
		return scoring.VerdictMissing, judgement{Explanation: "the judge's answer was not JSON"}
	}
	switch v := strings.ToLower(strings.TrimSpace(out.Verdict)); v {
	case scoring.VerdictCorrect, scoring.VerdictPartly, scoring.VerdictWrong, scoring.VerdictUnknown:
		return v, judgement{Explanation: out.Explanation, Entities: out.Entities}
	default:
		return scoring.VerdictMissing, judgement{Explanation: "the judge gave no known verdict: " + strconv.Quote(out.Verdict)}
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

// MaxAnswerBytes caps an answer's text when stored: longer texts are cut
// to the last whole character within the cap and marked truncated (no
// buyer reads 100 kB of one answer; the cap bounds storage and the
// evidence read).
const MaxAnswerBytes = 100_000

// capAnswer cuts text to MaxAnswerBytes on a character boundary.
func capAnswer(text string) (string, bool) {
	if len(text) <= MaxAnswerBytes {
		return text, false
	}
	cut := MaxAnswerBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut], true
}

// mentionSystem asks the judge whether a capitalised ordinary word at the
// start of a sentence names the brand.
const mentionSystem = `You decide whether a word at the start of a sentence names a brand (a company or product) or is used as an ordinary word.
Reply with one JSON object and nothing else: {"namesBrand": true | false}`

var mentionSchema = map[string]any{
	"type": "json_schema",
	"json_schema": map[string]any{
		"name":   "mention_verdict",
		"strict": true,
		"schema": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"namesBrand"},
			"properties": map[string]any{"namesBrand": map[string]any{"type": "boolean"}},
		},
	},
}

// judgeMentions asks the judge model about every occurrence the mention
// rules leave to it and stores the verdicts with their answers (st's
// answers get them too). With no judge model, or when it fails, nothing
// is stored: those occurrences do not count and the report says so. The
// occurrences are asked concurrently, each holding one of the workspace's
// engine-call slots as the answers do; the verdicts are kept in the order
// of the occurrences, as if asked one after another.
func (s *Service) judgeMentions(ctx context.Context, r store.VisibilityReport, st stored) {
	model := s.judgeModel(st.engines)
	if model == "" {
		return
	}
	ms := scoring.ScoreMentions(st.brands, st.engines, st.answers)
	type verdict struct {
		v  analysis.MentionVerdict
		ok bool
	}
	verdicts := make([][]verdict, len(ms.Pending))
	slots, release := s.workspaceSlots(r.WorkspaceID)
	defer release()
	var wg sync.WaitGroup
	for i, pending := range ms.Pending {
		verdicts[i] = make([]verdict, len(pending.Requests))
		for j, req := range pending.Requests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.withSlot(ctx, r.WorkspaceID, slots, func() {
					v, err := s.judgeMention(ctx, model, req)
					if err != nil {
						s.log.Warn("mention judge failed", "report", r.ID, "model", model, "error", err)
						return
					}
					verdicts[i][j] = verdict{v: v, ok: true}
				})
			}()
		}
	}
	wg.Wait()
	for p, vs := range verdicts {
		i := ms.Pending[p].Answer
		added := false
		for _, v := range vs {
			if v.ok {
				st.answers[i].Verdicts = append(st.answers[i].Verdicts, v.v)
				added = true
			}
		}
		if !added {
			continue
		}
		engine, item, _ := strings.Cut(st.keys[i], "/")
		if err := s.store.SaveAnswerVerdicts(ctx, r.WorkspaceID, r.ID, engine, item, MustJSON(st.answers[i].Verdicts)); err != nil {
			s.log.Error("store mention verdicts", "report", r.ID, "error", err)
		}
	}
}

func (s *Service) judgeMention(ctx context.Context, model string, req analysis.JudgeRequest) (analysis.MentionVerdict, error) {
	category := req.Category
	if category == "" {
		category = "unknown"
	}
	prompt := fmt.Sprintf("Brand: %s\nWhat the brand sells: %s\nSentence: %s\nDoes %q at the start of this sentence name the brand?",
		req.Name, category, req.Sentence, req.Name)
	zero := 0.0
	jctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	res, err := s.models.GenerateText(jctx, model, sdk.TextRequest{Model: model, System: mentionSystem, Prompt: prompt, Temperature: &zero,
		Options: map[string]any{"response_format": mentionSchema}})
	if err != nil {
		return analysis.MentionVerdict{}, err
	}
	var out struct {
		NamesBrand *bool `json:"namesBrand"`
	}
	if err := json.Unmarshal([]byte(jsonObject(res.Text)), &out); err != nil || out.NamesBrand == nil {
		return analysis.MentionVerdict{}, fmt.Errorf("the judge's answer is not {\"namesBrand\": bool}: %q", analysis.Excerpt(res.Text, 200))
	}
	return analysis.MentionVerdict{Brand: req.Brand, Sentence: req.Sentence, Names: *out.NamesBrand, Model: model}, nil
}
