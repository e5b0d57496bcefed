// Package analysis reads an answer engine's answer against the brands of a
// report: pure functions of text and brands, with no store, queue or
// plugin host.
//
//   - `brands.go` and `inputs.go`: competitor forms, `CompetitorInput`,
//     `BuildBrands`.
//   - `prose.go`: sources lists, the prose without URLs, `AnswerSources`;
//     `urls.go`: the URL and bare-domain scan.
//   - `tokens.go` and `fold.go`: the prose's words, read where the matcher
//     needs them (a word's sentence start and first-word mark from the bytes
//     around it), case and diacritics folded.
//   - `mentions.go`: the `Matcher`, one trie of every alias; ambiguity from
//     `visibility/commonwords`.
//   - `analysis.go`: per answer the facts of the brands it mentions, cites
//     or leaves to the judge, and from them every brand's evidence
//     (mentioned, position, cited, the occurrences a judge must decide).
//   - `infer.go`: a name-only competitor's domain from the answers' sources;
//     `InferDomainsScanned` keeps what it read of each answer for
//     `Matcher.AnalyzeScannedIn`, so a report reads each answer's URLs once.
//   - `sentiment.go`: sentiment bands; `negative.go`: the negative cues that
//     overrule a judge; `negativescan.go`: where in an answer a negative
//     phrase may start, read once before any brand's sentences (most
//     answers hold none); `cuetext.go` and `cuefold.go`: an answer's sentences
//     and the ones naming each brand, for the cue pass; `cueindex.go`:
//     `CueIndex`, every brand's cue needles in one pass per answer, under the
//     cue pass's own rule.
package analysis
