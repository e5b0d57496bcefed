package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/sdk"
)

// Prefilled is the prefill route's answer.
type Prefilled struct {
	PromptLimit int
	Input       Input
	// Suggested and Prefill hold competitors and prompts.
	Suggested, Prefill Input
}

// suggestSystem asks a model for competitors (with their domains) and
// buyer prompts as JSON.
const suggestSystem = `You help a marketer measure how AI answer engines present their brand.
From the brand's website facts, suggest its main competitors (company or product names, each with the domain of its website)
and the questions its buyers ask answer engines when looking for what it sells (without naming the brand in most of them).
Reply with one JSON object and nothing else: {"competitors": [{"name": string, "domain": string}], "prompts": [string]}`

// Prefill suggests competitors and prompts for a site: from a model with
// structured JSON output when one is configured, else from templates over
// the site's facts. It spends no credits.
func (s *Service) Prefill(ctx context.Context, p auth.Principal, in Input) (Prefilled, error) {
	plan := s.plan(p)
	in = in.clean()
	url, err := ValidateURL(in.WebsiteURL)
	if err != nil {
		return Prefilled{}, err
	}
	in.WebsiteURL = url
	if err := in.Validate(plan.PromptsPerReport, p.Plan, false); err != nil {
		return Prefilled{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	crawled, err := s.site.Crawl(cctx, in.WebsiteURL)
	cancel()
	if err != nil {
		var se *site.Error
		if errors.As(err, &se) {
			return Prefilled{}, apierr.Invalid("websiteurl: %s", se.Error())
		}
		return Prefilled{}, err
	}
	f := crawled.Facts
	var sug Input
	if model := s.judgeModel(s.Engines()); model != "" {
		sug, err = s.suggestWithModel(ctx, model, f, in)
		if err != nil {
			s.log.Warn("prefill suggestions from the model failed; using templates", "model", model, "error", err)
		}
	}
	if len(sug.Prompts) == 0 {
		sug = templateSuggestions(f, in)
	}
	sug = sug.clean()
	out := Prefilled{PromptLimit: plan.PromptsPerReport, Input: in, Suggested: sug}
	out.Prefill = Input{
		Competitors: analysis.DedupeCompetitors(append(append([]analysis.CompetitorInput{}, in.Competitors...), sug.Competitors...)),
		Prompts:     analysis.Dedupe(append(append([]string{}, in.Prompts...), sug.Prompts...)),
		SelfAliases: in.SelfAliases,
	}
	out.Prefill.Competitors = out.Prefill.Competitors[:min(len(out.Prefill.Competitors), MaxCompetitors)]
	out.Prefill.Prompts = out.Prefill.Prompts[:min(len(out.Prefill.Prompts), plan.PromptsPerReport)]
	return out, nil
}

func (s *Service) suggestWithModel(ctx context.Context, model string, f site.Facts, in Input) (Input, error) {
	facts := fmt.Sprintf("Brand: %s\nDomain: %s\nTitle: %s\nDescription: %s\nHeadings: %s\nProducts: %s\nKnown competitors: %s\nAbout: %s",
		f.BrandName(), f.Domain, f.Title, f.Description, strings.Join(f.H1s, "; "), productNames(f), competitorList(in.Competitors), analysis.Excerpt(f.AboutText, 1500))
	schema := map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "prefill", "strict": true, "schema": map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"competitors", "prompts"},
		"properties": map[string]any{
			"competitors": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "additionalProperties": false, "required": []string{"name", "domain"},
				"properties": map[string]any{"name": map[string]any{"type": "string"}, "domain": map[string]any{"type": "string"}},
			}},
			"prompts": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		},
	}}}
	mctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	res, err := s.models.GenerateText(mctx, model, sdk.TextRequest{Model: model, System: suggestSystem, Prompt: facts,
		Options: map[string]any{"response_format": schema}})
	if err != nil {
		return Input{}, err
	}
	var raw struct {
		Competitors []json.RawMessage `json:"competitors"`
		Prompts     []string          `json:"prompts"`
	}
	if err := json.Unmarshal([]byte(jsonObject(res.Text)), &raw); err != nil {
		return Input{}, fmt.Errorf("the model's suggestions are not JSON: %w", err)
	}
	return Input{Competitors: suggestedCompetitors(raw.Competitors), Prompts: raw.Prompts}, nil
}

// suggestedCompetitors reads the model's competitors ({name, domain}
// objects, or strings from a model that ignored the schema) as
// "Name (domain)" strings; a domain that is not one is dropped, the name
// kept.
func suggestedCompetitors(list []json.RawMessage) []analysis.CompetitorInput {
	out := []analysis.CompetitorInput{}
	for _, r := range list {
		var c analysis.CompetitorInput
		if json.Unmarshal(r, &c) != nil {
			continue
		}
		c = c.Clean()
		if c.Text != "" {
			out = append(out, c)
			continue
		}
		name := strings.TrimSpace(c.Name)
		if d, ok := analysis.CompetitorDomain(c.Domain); ok {
			if name == "" || len(name) > analysis.MaxNameChars {
				out = append(out, analysis.ParseCompetitor(d))
			} else {
				out = append(out, analysis.ParseCompetitor(name+" ("+d+")"))
			}
		} else if name != "" && len(name) <= analysis.MaxNameChars {
			out = append(out, analysis.ParseCompetitor(name))
		}
	}
	return out
}

func competitorList(list []analysis.CompetitorInput) string {
	parts := make([]string, 0, len(list))
	for _, c := range list {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, ", ")
}

func productNames(f site.Facts) string {
	var names []string
	for _, p := range f.Products {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// templateSuggestions are prompts built from the site's facts: the
// category (the H1, else the title after its brand part), the products,
// the location and the given competitors.
func templateSuggestions(f site.Facts, in Input) Input {
	brand := f.BrandName()
	category := ""
	if len(f.H1s) > 0 {
		category = f.H1s[0]
	} else if head := titleTail(f.Title); head != "" {
		category = head
	}
	category = strings.TrimRight(strings.ToLower(category), ".!")
	var prompts []string
	if category != "" {
		prompts = append(prompts, "What are the best options for "+category+"?")
		if f.Organization != nil && f.Organization.Address != "" {
			prompts = append(prompts, fmt.Sprintf("Best %s in %s", category, f.Organization.Address))
		}
	}
	prompts = append(prompts, brand+" alternatives", "Is "+brand+" any good?")
	for _, p := range f.Products {
		prompts = append(prompts, "What are the best alternatives to "+p.Name+"?")
	}
	for _, c := range in.Competitors {
		prompts = append(prompts, brand+" vs "+c.DisplayName())
	}
	return Input{Competitors: []analysis.CompetitorInput{}, Prompts: prompts}
}

// titleTail is what follows the title's first separator ("Acme | Widgets
// for factories" → "Widgets for factories").
func titleTail(title string) string {
	for _, sep := range []string{" | ", " - ", " – ", " — ", ": "} {
		if _, tail, ok := strings.Cut(title, sep); ok {
			return strings.TrimSpace(tail)
		}
	}
	return ""
}
