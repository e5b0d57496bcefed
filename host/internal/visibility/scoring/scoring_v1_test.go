package scoring

// The first scorer (scoring version 1), kept as the same-run
// baseline of BenchmarkScoringVersions and BenchmarkMatchingWorstAnswer:
// quadratic on repeated one-letter aliases, URLs matched as mentions.

import (
	"net/url"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// v1Matcher finds tracked brands in answers. Build it once per report.
type v1Matcher struct {
	brands     []analysis.Brand
	v1patterns []v1pattern
}

type v1pattern struct {
	brand  int
	text   string // lowercased
	domain bool
}

// newV1Matcher prepares the aliases and domains of brands.
func newV1Matcher(brands []analysis.Brand) *v1Matcher {
	m := &v1Matcher{brands: brands}
	for i, b := range brands {
		for _, a := range b.Aliases {
			m.v1patterns = append(m.v1patterns, v1pattern{brand: i, text: strings.ToLower(a)})
		}
		for _, d := range b.Domains {
			m.v1patterns = append(m.v1patterns, v1pattern{brand: i, text: strings.ToLower(d), domain: true})
		}
	}
	return m
}

type v1match struct{ brand, start, end int }

// Mentions returns the brands a mentions, ordered by position: a brand's
// position is the rank of its first occurrence among the brands
// mentioned. Aliases match case-insensitively on word boundaries; domains
// match anywhere, inside URLs and as subdomains, but not as part of a
// longer domain label (acme.com does not match notacme.com). Where aliases
// of two brands overlap ("Acme" inside "Acme Cloud"), the longer one wins.
func (m *v1Matcher) Mentions(a analysis.Answer) []analysis.Mention {
	if a.Missing() {
		return nil
	}
	text := strings.ToLower(a.Text)
	return m.mentions(text, v1citedHosts(a, text))
}

func (m *v1Matcher) mentions(text string, hosts []string) []analysis.Mention {
	var found []v1match
	for _, p := range m.v1patterns {
		for off := 0; off < len(text); {
			i := strings.Index(text[off:], p.text)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(p.text)
			if v1bounded(text, start, end, p.domain) {
				found = append(found, v1match{p.brand, start, end})
			}
			off = start + 1
		}
	}
	// Longest match first at a start; then drop matches inside accepted
	// ones, so an alias inside another brand's longer alias does not count.
	sort.Slice(found, func(i, j int) bool {
		if found[i].start != found[j].start {
			return found[i].start < found[j].start
		}
		return found[i].end > found[j].end
	})
	first := map[int]int{}
	var accepted []v1match
	for _, f := range found {
		inside := false
		for _, acc := range accepted {
			if f.start >= acc.start && f.end <= acc.end && f.brand != acc.brand {
				inside = true
				break
			}
		}
		if inside {
			continue
		}
		accepted = append(accepted, f)
		if s, ok := first[f.brand]; !ok || f.start < s {
			first[f.brand] = f.start
		}
	}
	order := make([]int, 0, len(first))
	for b := range first {
		order = append(order, b)
	}
	sort.Slice(order, func(i, j int) bool {
		if first[order[i]] != first[order[j]] {
			return first[order[i]] < first[order[j]]
		}
		return order[i] < order[j]
	})
	out := make([]analysis.Mention, len(order))
	for rank, bi := range order {
		b := m.brands[bi]
		out[rank] = analysis.Mention{Brand: b.Slug, Name: b.Name, Self: b.Self, Position: rank + 1, Weight: analysis.Weight(rank + 1), Cited: v1cites(hosts, b.Domains)}
	}
	return out
}

func v1bounded(text string, start, end int, domain bool) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	word := func(r rune) bool {
		return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || (domain && r == '-'))
	}
	if start > 0 && word(before) {
		return false
	}
	if end < len(text) && word(after) {
		return false
	}
	// "acme.com" followed by ".au" is another domain; a sentence's full
	// stop is not.
	if domain && end+1 < len(text) && text[end] == '.' {
		r, _ := utf8.DecodeRuneInString(text[end+1:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// citedHosts lists the hosts of the URLs in the answer text (lowered is
// the text lowercased) and in the engine's citations, lowercased. URLs
// are found by their scheme and end at whitespace, quotes or brackets
// (no regular expression: scoring 1,000 answers must stay fast).
func v1citedHosts(a analysis.Answer, lowered string) []string {
	var hosts []string
	add := func(raw string) {
		u, err := url.Parse(strings.TrimRight(raw, ".,;:!?"))
		if err == nil && u.Hostname() != "" {
			hosts = append(hosts, strings.ToLower(u.Hostname()))
		}
	}
	for _, c := range a.Citations {
		add(c.URL)
	}
	for off := 0; ; {
		i := strings.Index(lowered[off:], "http")
		if i < 0 {
			break
		}
		start := off + i
		rest := lowered[start:]
		if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") || (start > 0 && v1isWord(lowered[start-1])) {
			off = start + 4
			continue
		}
		end := strings.IndexAny(rest, " \t\n\r<>\"'()[]{}")
		if end < 0 {
			end = len(rest)
		}
		add(rest[:end])
		off = start + end
	}
	return hosts
}

func v1isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

func v1cites(hosts, domains []string) bool {
	for _, h := range hosts {
		for _, d := range domains {
			if h == d || strings.HasSuffix(h, "."+d) {
				return true
			}
		}
	}
	return false
}
