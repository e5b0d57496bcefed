package content

import (
	"strings"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/seo"
)

// ScoreInput is a calculate-seo-score request.
type ScoreInput struct {
	Content  string
	Title    string
	Keywords []string
	// AutoExtract defaults to true when nil.
	AutoExtract *bool
	// Language is a supported language code; empty detects it.
	Language string
	// WordForms defaults to true when nil; false matches the keyphrase
	// only in the forms typed (seo.Input.TypedForms).
	WordForms *bool
}

func checkLanguage(lang string) error {
	if lang != "" && !seo.LanguageSupported(strings.ToLower(lang)) {
		return apierr.Invalid("language %q is not supported; use one of %s, or leave it out to detect it", lang, strings.Join(seo.Languages(), ", "))
	}
	return nil
}

func (in ScoreInput) validate() error {
	if err := checkContent(in.Content); err != nil {
		return err
	}
	if utf8.RuneCountInString(in.Title) > MaxTitleChars {
		return apierr.Invalid("title is longer than %d characters", MaxTitleChars)
	}
	if len(in.Keywords) > MaxKeywords {
		return apierr.Invalid("keywords has %d entries; the limit is %d", len(in.Keywords), MaxKeywords)
	}
	for i, k := range in.Keywords {
		if utf8.RuneCountInString(k) > 200 {
			return apierr.Invalid("keywords[%d] is longer than 200 characters", i)
		}
		if strings.TrimSpace(k) == "" {
			return apierr.Invalid("keywords[%d] is empty", i)
		}
	}
	return checkLanguage(in.Language)
}

// Score scores content; it needs no model and costs no credit.
func (s *Service) Score(in ScoreInput) (seo.Result, error) {
	if err := in.validate(); err != nil {
		return seo.Result{}, err
	}
	auto := in.AutoExtract == nil || *in.AutoExtract
	typed := in.WordForms != nil && !*in.WordForms
	res, err := seo.Score(seo.Input{Content: in.Content, Title: in.Title, Keywords: in.Keywords, AutoExtract: auto, Language: in.Language, TypedForms: typed})
	if err != nil {
		return seo.Result{}, apierr.Invalid("content cannot be parsed: %v", err)
	}
	return res, nil
}
