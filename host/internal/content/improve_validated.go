package content

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/seo"
)

// DefaultMaxLengthChange is how far (percent of words) an improvement may
// move the length unless the request says otherwise.
const DefaultMaxLengthChange = 30

// defaultImprovePrompt is used when improve-content-with-validation gets no
// instructions.
const defaultImprovePrompt = "Improve this content for search and readability: clear structure, short sentences and paragraphs, active voice, natural use of the keywords."

// ValidatedInput is an improve-content-with-validation request.
type ValidatedInput struct {
	Content         string   `json:"content"`
	ImprovePrompt   string   `json:"improvePrompt,omitempty"`
	Keywords        []string `json:"keywords,omitempty"`
	Title           string   `json:"title,omitempty"`
	Model           string   `json:"model"`
	BrandVoiceID    string   `json:"brandVoiceId,omitempty"`
	MinScore        *int     `json:"minScore,omitempty"`
	MaxLengthChange *int     `json:"maxLengthChange,omitempty"`
	// Language scores before and after in one language; empty detects it.
	Language string `json:"language,omitempty"`
	// WordForms false scores before and after with the keyphrase's forms
	// typed only (seo.Input.TypedForms); nil is true.
	WordForms *bool `json:"wordForms,omitempty"`
}

func (in *ValidatedInput) validate() error {
	if err := checkContent(in.Content); err != nil {
		return err
	}
	if err := checkPrompt(in.ImprovePrompt, false); err != nil {
		return err
	}
	if utf8.RuneCountInString(in.Title) > MaxTitleChars {
		return apierr.Invalid("title is longer than %d characters", MaxTitleChars)
	}
	if len(in.Keywords) > MaxKeywords {
		return apierr.Invalid("keywords has %d entries; the limit is %d", len(in.Keywords), MaxKeywords)
	}
	if in.MinScore != nil && (*in.MinScore < 0 || *in.MinScore > 100) {
		return apierr.Invalid("minScore must be from 0 to 100")
	}
	if in.MaxLengthChange != nil && (*in.MaxLengthChange < 1 || *in.MaxLengthChange > 1000) {
		return apierr.Invalid("maxLengthChange must be a percentage from 1 to 1000")
	}
	return checkLanguage(in.Language)
}

// Check is one validation check of an improvement.
type Check struct {
	ID     string `json:"id"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// Validation is the outcome of all checks.
type Validation struct {
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks"`
}

// Validated is the result of an improvement with validation.
type Validated struct {
	Content    string               `json:"content"`
	Before     seo.Result           `json:"before"`
	After      seo.Result           `json:"after"`
	Validation Validation           `json:"validation"`
	Attempts   int                  `json:"attempts"`
	Model      string               `json:"model"`
	Usage      generate.UsageResult `json:"usage"`
	BrandVoice *generate.VoiceRef   `json:"brandVoice"`
}

// ImproveValidated improves content, validates and re-scores it, retrying
// once with the failures fed back; one AI credit for the whole request.
func (s *Service) ImproveValidated(ctx context.Context, p auth.Principal, in ValidatedInput) (Validated, error) {
	if err := s.prepare(in.validate, &in.Model); err != nil {
		return Validated{}, err
	}
	return paid(ctx, s, p, in, s.runValidated)
}

// QueueImproveValidated queues the same work on contentQueue.
func (s *Service) QueueImproveValidated(ctx context.Context, p auth.Principal, in ValidatedInput) (string, error) {
	if err := s.prepare(in.validate, &in.Model); err != nil {
		return "", err
	}
	return s.enqueue(ctx, p, JobImproveValidated, in.BrandVoiceID, in)
}

// RunImproveValidated runs a JobImproveValidated job.
func (s *Service) RunImproveValidated(ctx context.Context, job *jobs.Job) (any, error) {
	return runPaid(ctx, s, job, s.runValidated)
}

func (s *Service) runValidated(ctx context.Context, p auth.Principal, in ValidatedInput) (Validated, error) {
	typed := in.WordForms != nil && !*in.WordForms
	before, err := seo.Score(seo.Input{Content: in.Content, Title: in.Title, Keywords: in.Keywords, AutoExtract: true, Language: in.Language, TypedForms: typed})
	if err != nil {
		return Validated{}, apierr.Invalid("content cannot be parsed: %v", err)
	}
	orig, err := seo.OutlineOf(in.Content)
	if err != nil {
		return Validated{}, apierr.Invalid("content cannot be parsed: %v", err)
	}
	// The keywords the result must keep, and that both scores use, so the
	// before and after scores measure the same keyphrase.
	keywords := make([]string, 0, len(before.Keywords))
	for _, k := range before.Keywords {
		if k.Count > 0 || k.Source == seo.SourceGiven {
			keywords = append(keywords, k.Keyword)
		}
	}
	if len(in.Keywords) == 0 && len(keywords) > 3 {
		keywords = keywords[:3]
	}
	// After is scored in the language before was, so both use one set
	// of rules even if the rewrite would read otherwise.
	lang := in.Language
	if lang == "" && seo.LanguageSupported(before.Readability.Language) {
		lang = before.Readability.Language
	}
	maxChange := DefaultMaxLengthChange
	if in.MaxLengthChange != nil {
		maxChange = *in.MaxLengthChange
	}
	out := Validated{Model: in.Model}
	prompt := validatedPrompt(in, keywords, orig.Words, maxChange, nil, "")
	for attempt := 1; attempt <= 2; attempt++ {
		text, res, voice, err := s.improve(ctx, p, in.Model, in.BrandVoiceID, prompt)
		if err != nil {
			return Validated{}, err
		}
		out.Usage.InputTokens += res.Usage.InputTokens
		out.Usage.OutputTokens += res.Usage.OutputTokens
		out.Usage.TotalTokens += res.Usage.TotalTokens
		out.Model, out.BrandVoice, out.Attempts, out.Content = res.Model, voice, attempt, text
		after, err := seo.Score(seo.Input{Content: text, Title: in.Title, Keywords: keywords, Language: lang, TypedForms: typed})
		if err != nil {
			return Validated{}, apierr.Unavailable("the model's answer cannot be parsed: %v", err)
		}
		now, err := seo.OutlineOf(text)
		if err != nil {
			return Validated{}, apierr.Unavailable("the model's answer cannot be parsed: %v", err)
		}
		// Scored with the same keywords as before (not re-extracted).
		before.Keywords = keywordsOnly(before.Keywords, keywords)
		out.Before, out.After = before, after
		out.Validation = validate(in, orig, now, before, after, keywords, maxChange)
		if out.Validation.Passed {
			break
		}
		prompt = validatedPrompt(in, keywords, orig.Words, maxChange, out.Validation.failures(), text)
	}
	return out, nil
}

func keywordsOnly(ks []seo.Keyword, keep []string) []seo.Keyword {
	out := ks[:0:0]
	for _, k := range ks {
		if slices.Contains(keep, k.Keyword) {
			out = append(out, k)
		}
	}
	return out
}

func (v Validation) failures() []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Passed {
			out = append(out, c.ID+": "+c.Detail)
		}
	}
	return out
}

func validatedPrompt(in ValidatedInput, keywords []string, words, maxChange int, failures []string, previous string) string {
	var b strings.Builder
	b.WriteString("Instructions:\n")
	if strings.TrimSpace(in.ImprovePrompt) != "" {
		b.WriteString(in.ImprovePrompt)
	} else {
		b.WriteString(defaultImprovePrompt)
	}
	if len(keywords) > 0 {
		fmt.Fprintf(&b, "\nKeep these keywords in the text: %s.", strings.Join(keywords, ", "))
	}
	fmt.Fprintf(&b, "\nThe original has %d words; stay within %d%% of that.", words, maxChange)
	if in.Title != "" {
		fmt.Fprintf(&b, "\nThe title is: %s", in.Title)
	}
	if len(failures) > 0 {
		b.WriteString("\n\nYour previous version failed these checks; fix them and start again from the original:\n- ")
		b.WriteString(strings.Join(failures, "\n- "))
		b.WriteString("\n\nPrevious version:\n")
		b.WriteString(previous)
	}
	b.WriteString("\n\nContent:\n")
	b.WriteString(in.Content)
	return b.String()
}

// validate runs the checks of an improvement against the original.
func validate(in ValidatedInput, orig, now seo.Outline, before, after seo.Result, keywords []string, maxChange int) Validation {
	var checks []Check
	add := func(id string, ok bool, format string, args ...any) {
		checks = append(checks, Check{ID: id, Passed: ok, Detail: fmt.Sprintf(format, args...)})
	}

	var lost []string
	for _, k := range before.Keywords {
		if k.Count == 0 {
			continue // not in the original either
		}
		found := false
		for _, a := range after.Keywords {
			if a.Keyword == k.Keyword && a.Count > 0 {
				found = true
			}
		}
		if !found {
			lost = append(lost, k.Keyword)
		}
	}
	if len(lost) == 0 {
		add("keywords-kept", true, "all %d keywords are still in the text", len(keywords))
	} else {
		add("keywords-kept", false, "keywords dropped: %s", strings.Join(lost, ", "))
	}

	change := 0.0
	if orig.Words > 0 {
		change = float64(now.Words-orig.Words) * 100 / float64(orig.Words)
	}
	add("length", math.Abs(change) <= float64(maxChange), "%d words, was %d (%+.0f%%; allowed ±%d%%)", now.Words, orig.Words, change, maxChange)

	var missing []string
	for _, l := range orig.Links {
		if !slices.Contains(now.Links, l) {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		add("links-preserved", true, "all %d links kept", len(orig.Links))
	} else {
		add("links-preserved", false, "links removed: %s", strings.Join(missing, ", "))
	}

	add("headings-preserved", len(now.Headings) >= len(orig.Headings), "%d headings, was %d", len(now.Headings), len(orig.Headings))

	// New facts: numbers and names the original does not have (nor the
	// instructions, which may ask for them).
	allowed := map[string]bool{}
	for w := range orig.Vocabulary {
		allowed[w] = true
	}
	if po, err := seo.OutlineOf(in.ImprovePrompt + "\n\n" + in.Title); err == nil {
		for w := range po.Vocabulary {
			allowed[w] = true
		}
	}
	var added []string
	for _, w := range append(slices.Clone(now.Numbers), now.Names...) {
		if !allowed[w] && !slices.Contains(added, w) {
			added = append(added, w)
		}
	}
	if len(added) == 0 {
		add("no-new-facts", true, "no numbers or names absent from the original")
	} else {
		if len(added) > 8 {
			added = append(added[:8], "…")
		}
		add("no-new-facts", false, "numbers or names not in the original: %s", strings.Join(added, ", "))
	}

	add("score-not-lower", after.Score >= before.Score, "score %d, was %d", after.Score, before.Score)
	if in.MinScore != nil {
		add("min-score", after.Score >= *in.MinScore, "score %d, minimum %d", after.Score, *in.MinScore)
	}

	v := Validation{Passed: true, Checks: checks}
	for _, c := range checks {
		v.Passed = v.Passed && c.Passed
	}
	return v
}
