package analysis

// The tokens, prose and sources as they were before the analysis was
// made faster, kept verbatim under ref names for the differential test.

import (
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/publicsuffix"

	"github.com/heraldhq/herald/host/internal/site"
)

// refToken is a run of letters and digits of the prose.
type refToken struct {
	start, end int32 // bytes of the text
	fs, fe     int32 // its folded runes in refTokens.folded
	sentence   int32 // where its sentence starts (bytes)
	// initial: the first word of a sentence, not marked up as a name
	// (bold, code, link text or a table cell).
	initial bool
}

type refTokens struct {
	text   string // the prose
	list   []refToken
	folded []rune
}

// refAbbreviations whose full stop does not end a sentence.
var refAbbreviations = map[string]bool{"vs": true, "e.g": true, "i.e": true, "eg": true, "ie": true, "cf": true, "incl": true, "approx": true, "esp": true, "etc": false}

// refTokenPool keeps refToken buffers between answers.
var refTokenPool = sync.Pool{New: func() any { return new(refTokens) }}

// reset splits the prose into refTokens in one pass, marking the first
// word of each sentence: at the start, after a line break, or after ., !
// or ? and a space (not after vs., e.g., i.e.).
func (t *refTokens) reset(prose string) {
	t.text, t.list, t.folded = prose, t.list[:0], t.folded[:0]
	atStart, marked := true, false
	sentence := 0
	for i := 0; i < len(prose); {
		r, size := rune(prose[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(prose[i:])
		}
		if refIsWordRune(r) {
			tok := refToken{start: int32(i), fs: int32(len(t.folded)), sentence: int32(sentence), initial: atStart && !marked}
			j := i
		word:
			for j < len(prose) {
				if c := prose[j]; c < utf8.RuneSelf {
					// ASCII: a letter or digit folds to itself in lower case.
					switch {
					case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
						t.folded = append(t.folded, rune(c))
					case c >= 'A' && c <= 'Z':
						t.folded = append(t.folded, rune(c+'a'-'A'))
					default:
						break word
					}
					j++
					continue
				}
				r2, s2 := utf8.DecodeRuneInString(prose[j:])
				if !refIsWordRune(r2) {
					break
				}
				t.folded = refFoldAppend(t.folded, r2)
				j += s2
			}
			tok.end, tok.fe = int32(j), int32(len(t.folded))
			t.list = append(t.list, tok)
			atStart, marked = false, false
			i = j
			continue
		}
		switch {
		case r == '\n':
			atStart, marked, sentence = true, false, i+1
		case r == '.' || r == '!' || r == '?':
			next, _ := utf8.DecodeRuneInString(prose[i+size:])
			if i+size >= len(prose) || unicode.IsSpace(next) || next == '*' || next == '"' || next == ')' {
				if r != '.' || !refAbbreviation(prose, i) {
					atStart, marked, sentence = true, false, i+size
				}
			}
		case atStart && (r == '`' || r == '[' || r == '|' || r == '_'):
			marked = true
		case atStart && r == '*':
			// "* item" is a bullet; "**Name**" is a name set in bold.
			next, _ := utf8.DecodeRuneInString(prose[i+size:])
			if next == '*' || refIsWordRune(next) {
				marked = true
			}
		case r == '|':
			marked = true // a table cell is not a sentence
		}
		i += size
	}
}

// refAbbreviation reports whether the full stop at i ends an refAbbreviation
// (vs., e.g., i.e.).
func refAbbreviation(prose string, i int) bool {
	j := i
	for j > 0 && i-j < 8 && (prose[j-1] == '.' || prose[j-1] < 0x80 && unicode.IsLetter(rune(prose[j-1]))) {
		j--
	}
	return refAbbreviations[strings.ToLower(prose[j:i])]
}

// gap is the text between refTokens k and k+1.
func (t *refTokens) gap(k int) string {
	return t.text[t.list[k].end:t.list[k+1].start]
}

const (
	refGapBreak = iota
	refGapSoft  // spaces or a hyphen inside a name: Hub Spot, Mail-Chimp
	refGapHard  // punctuation without spaces: monday.com, AT&T
)

func refGapKind(g string) int {
	switch {
	case g == " " || g == "-" || g == "\u00a0":
		return refGapSoft
	case len(g) <= 3 && !strings.ContainsAny(g, " \t\n\r") && g != "":
		return refGapHard
	}
	return refGapBreak
}

// label reports whether the refToken at k is a list item's or a heading's
// label: followed by a colon, a dash, a parenthesis or the end of the
// line ("Linear – issue tracking", "Close: a CRM for inside sales").
func (t *refTokens) label(k int) bool {
	rest := t.text[t.list[k].end:]
	rest = strings.TrimLeft(rest, " *_`")
	if rest == "" || rest[0] == '\n' || rest[0] == ':' || rest[0] == '(' || rest[0] == '\r' {
		return true
	}
	for _, d := range []string{"- ", "– ", "— ", "-\n", "–\n", "—\n"} {
		if strings.HasPrefix(rest, d) {
			return true
		}
	}
	return false
}

// sentenceOf is the sentence around refToken k (at most 300 bytes either
// side), spaces collapsed: what the judge reads.
func (t *refTokens) sentenceOf(k int) string {
	tok := t.list[k]
	start := max(int(tok.sentence), int(tok.start)-300)
	end := int(tok.end)
	for end < len(t.text) && end-int(tok.end) < 300 {
		c := t.text[end]
		if c == '\n' {
			break
		}
		end++
		if (c == '.' || c == '!' || c == '?') && (end == len(t.text) || t.text[end] == ' ' || t.text[end] == '\n') {
			break
		}
	}
	for start > 0 && !utf8.RuneStart(t.text[start]) {
		start++
	}
	for end < len(t.text) && !utf8.RuneStart(t.text[end]) {
		end++
	}
	return strings.Join(strings.Fields(t.text[start:end]), " ")
}

// refReadProse returns the answer's prose — its text with every URL and the
// trailing sources list blanked out (spaces of the same byte length, so
// offsets into the text still hold) — and the sources found in the text.
// One pass over the text: no regular expression, no quadratic scan.
//
// Defined as in docs/METRICS.md: a URL is a run starting with http:// or
// https://, or a host under a public suffix followed by a path
// (tasklane.io/pricing) or starting with www.; a bare domain in the prose
// (usefathom.com) stays in the prose: it is a mention and not a source
// (it names the brand; it does not say the engine used the site). In the
// sources list and on [n] source lines a bare domain is a source.
// The sources list is everything from a line that is only a "Sources",
// "References" or "Citations" label (any case, markdown heading or bold,
// optional colon, or the label and a colon followed by the list on the
// same line) to the end; a line that starts with [n] and holds a URL is a
// source line wherever it is.
func refReadProse(text string) (string, []Source) {
	var buf []byte // a copy, made at the first blank
	blank := func(start, end int) {
		if start >= end {
			return
		}
		if buf == nil {
			buf = []byte(text)
		}
		refBlankBytes(buf, start, end)
	}
	var sources []Source
	cut := len(text)
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		if cut == len(text) && refSourcesLabel(line) {
			cut = start
		}
		if cut == len(text) && refRefLine(line) {
			blank(start, end)
		}
		start = end + 1
	}
	blank(cut, len(text))
	refScanURLs(text, func(start, end int, host string, bare bool) {
		if bare && start < cut && (buf == nil || buf[start] == text[start]) {
			return // a domain written as a name, in the prose
		}
		sources = append(sources, Source{URL: text[start:end], Domain: refRegistrable(host)})
		if !bare {
			blank(start, end)
		}
	})
	if buf == nil {
		return text, sources
	}
	return string(buf), sources
}

func refBlankBytes(buf []byte, start, end int) {
	for i := start; i < end; i++ {
		if buf[i] != '\n' {
			buf[i] = ' '
		}
	}
}

var refSourceLabels = []string{"sources", "source", "references", "reference", "citations", "citation"}

// refSourcesLabel reports whether line is the label of a sources list:
// "Sources", "**References:**", "## Citations", "Sources: [1] …".
func refSourcesLabel(line string) bool {
	s := strings.TrimLeft(line, " \t#*_>")
	if len(s) < 6 || s[0]|0x20 != 's' && s[0]|0x20 != 'r' && s[0]|0x20 != 'c' {
		return false
	}
	for _, l := range refSourceLabels {
		if !refHasPrefixFold(s, l) {
			continue
		}
		rest := strings.TrimLeft(s[len(l):], "*_ \t\r")
		return rest == "" || rest[0] == ':'
	}
	return false
}

// refRefLine reports whether line is a source line: [n] (or [n]:) and a URL.
func refRefLine(line string) bool {
	s := strings.TrimLeft(strings.TrimSpace(line), "-*• ")
	if len(s) < 3 || s[0] != '[' {
		return false
	}
	i := 1
	for i < len(s) && i < 5 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != ']' {
		return false
	}
	found := false
	refScanURLs(s[i+1:], func(int, int, string, bool) { found = true })
	return found
}

func refIsHostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// refScanURLs calls fn for every URL (bare false) and bare domain (bare
// true) in text, in order.
func refScanURLs(text string, fn func(start, end int, host string, bare bool)) {
	for i := 0; i < len(text); {
		c := text[i]
		if !refIsHostByte(c) || c == '.' || c == '-' {
			i++
			continue
		}
		// Only at the start of a word: not inside an e-mail address, a
		// path or another run.
		if i > 0 {
			if p := text[i-1]; p == '@' || p == '/' || p == '_' || p == ':' || p == '.' || p == '-' || refIsHostByte(p) {
				j := i
				for j < len(text) && refIsHostByte(text[j]) {
					j++
				}
				i = j
				continue
			}
		}
		if refHasPrefixFold(text[i:], "https://") || refHasPrefixFold(text[i:], "http://") {
			end := refURLEnd(text, i)
			if u, err := url.Parse(text[i:end]); err == nil && strings.Contains(u.Hostname(), ".") {
				fn(i, end, strings.ToLower(u.Hostname()), false)
			}
			i = max(end, i+1)
			continue
		}
		j := i
		for j < len(text) && refIsHostByte(text[j]) {
			j++
		}
		k := j
		for k > i && (text[k-1] == '.' || text[k-1] == '-') {
			k--
		}
		host := text[i:k]
		if refHostLike(host) {
			h := strings.ToLower(host)
			switch {
			case i+len(host) < len(text) && text[i+len(host)] == '/':
				end := refURLEnd(text, i)
				fn(i, end, h, false)
				j = max(end, j)
			case strings.HasPrefix(h, "www."):
				fn(i, i+len(host), h, false)
			default:
				fn(i, i+len(host), h, true)
			}
		}
		i = j
	}
}

// refURLEnd is where the URL starting at i ends: at whitespace, quotes,
// angle brackets, a closing bracket it did not open, a table bar or
// emphasis; trailing punctuation is not part of it.
func refURLEnd(text string, i int) int {
	depth := 0
	j := i
loop:
	for ; j < len(text); j++ {
		switch text[j] {
		case ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`', '|', '*', ']', '[', '{', '}':
			break loop
		case '(':
			depth++
		case ')':
			if depth == 0 {
				break loop
			}
			depth--
		}
		if text[j] >= 0x80 {
			break // a non-ASCII character ends a URL written in prose
		}
	}
	for j > i && strings.IndexByte(".,;:!?", text[j-1]) >= 0 {
		j--
	}
	return j
}

// refHostLike reports whether s is a host name under a public suffix
// (acme.com, blog.acme.co.uk, notion.so; not Node.js, e.g or v2.0).
func refHostLike(s string) bool {
	if len(s) < 4 || len(s) > 253 || !strings.Contains(s, ".") || strings.Contains(s, "..") {
		return false
	}
	tld := s[strings.LastIndexByte(s, '.')+1:]
	if len(tld) < 2 {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if !(tld[i] >= 'a' && tld[i] <= 'z' || tld[i] >= 'A' && tld[i] <= 'Z') {
			return false
		}
	}
	suffix, icann := publicsuffix.PublicSuffix(strings.ToLower(s))
	if !icann && !strings.Contains(suffix, ".") {
		return false // an unlisted "suffix": not a domain
	}
	return len(suffix) < len(s)
}

func refHasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func refRegistrable(host string) string { return site.RegistrableDomain(host) }

// refAnswerSources lists an answer's sources: the engine's citations, then
// the URLs and domains in its text, in order.
func refAnswerSources(a Answer) []Source {
	var out []Source
	for _, c := range a.Citations {
		if u, err := url.Parse(strings.TrimSpace(c.URL)); err == nil && u.Hostname() != "" {
			out = append(out, Source{URL: c.URL, Domain: refRegistrable(u.Hostname())})
		}
	}
	_, inText := refReadProse(a.Text)
	return append(out, inText...)
}
