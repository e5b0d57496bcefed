// Package seo scores content for search and readability the way writers
// know from Yoast SEO: a list of assessments, each rated good, ok or bad
// with a sentence saying why, grouped into an SEO and a readability score.
// It needs no model: everything is measured on the text, so the same input
// always gives the same output. Content may be plain text, Markdown or HTML.
//
// Language: English, German, Spanish, French, Italian and Dutch have their
// own Flesch variant, transition and function words and passive rule
// (English, Spanish and French also word forms); the language is detected
// from the text or given.
// Other languages get the language-neutral assessments only; see
// Result.Readability.Language.
//
// The readability/SEO analyser (pure, deterministic, no model): Yoast-style
// assessments rated good/ok/bad, a Flesch variant and word lists per
// language, the outline and plain text of Markdown/HTML. Used by `content`
// (scores, validation) and `voice` (profiles, file text).
// `TestYoastDifferential` compares it with yoastseo from npm
// (`testdata/yoast`, installed with `npm ci`).
package seo
