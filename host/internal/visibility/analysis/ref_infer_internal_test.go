package analysis

// Inferred domains and folding as they were before the analysis was made
// faster, kept verbatim under ref names for the differential test.

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/heraldhq/herald/host/internal/site"
)

// refInferDomains gives each competitor given by name only (no domain) the
// refRegistrable domain among the answers' sources whose first label equals
// one of its aliases after folding (Bose → bose.com, Sony → sony.com from
// electronics.sony.com), so that its citations count and its domain
// written in prose is a mention. The sources are the engines' citations
// and the URLs and domains in the texts: a bare domain written as a name
// (pipedrive.com) does not make the brand cited, but it does tell whose
// domain it is. When several domains fit, the one in the most answers
// wins (then the first in order). A domain a brand was given, or that
// another brand already owns, is never taken: the user's own domain
// always wins. brands is not modified; the result says what was inferred
// in InferredDomain.
func refInferDomains(brands []Brand, answers []Answer) []Brand {
	need := false
	for _, b := range brands {
		if len(b.Domains) == 0 && !b.Self {
			need = true
		}
	}
	if !need {
		return brands
	}
	owned := map[string]bool{}
	for _, b := range brands {
		for _, d := range b.Domains {
			owned[refRegistrable(d)] = true
		}
	}
	type cand struct {
		domain, label string
		answers       int
	}
	var cands []cand
	at := map[string]int{}
	for _, a := range answers {
		if a.Missing() {
			continue
		}
		seen := map[string]bool{}
		add := func(host string) {
			d := refRegistrable(strings.ToLower(host))
			if d == "" || owned[d] || seen[d] {
				return
			}
			seen[d] = true
			i, ok := at[d]
			if !ok {
				i = len(cands)
				at[d] = i
				cands = append(cands, cand{domain: d, label: refFoldKey(site.FirstLabel(d))})
			}
			cands[i].answers++
		}
		for _, c := range a.Citations {
			if u, err := url.Parse(strings.TrimSpace(c.URL)); err == nil && u.Hostname() != "" {
				add(u.Hostname())
			}
		}
		refScanURLs(a.Text, func(_, _ int, host string, _ bool) { add(host) })
	}
	if len(cands) == 0 {
		return brands
	}
	out := slices.Clone(brands)
	for i, b := range out {
		if len(b.Domains) > 0 || b.Self {
			continue
		}
		best := -1
		for k, c := range cands {
			if c.label == "" || owned[c.domain] {
				continue
			}
			if !slices.ContainsFunc(b.Aliases, func(a string) bool { return refFoldKey(a) == c.label }) {
				continue
			}
			if best < 0 || c.answers > cands[best].answers {
				best = k
			}
		}
		if best < 0 {
			continue
		}
		d := cands[best].domain
		owned[d] = true
		out[i].Domains = []string{d}
		out[i].InferredDomain = d
	}
	return out
}

// refFoldKey is s folded (case, diacritics) with everything but letters and
// digits dropped: "Hub Spot", "hub-spot" and "HubSpot" are one key, as a
// domain label writes a name.
func refFoldKey(s string) string {
	var out []rune
	for _, r := range s {
		if refIsWordRune(r) {
			out = refFoldAppend(out, r)
		}
	}
	return string(out)
}

// refFoldCache maps a non-ASCII rune to its folded runes: lowercase, without
// diacritics (NFD, combining marks dropped: ë → e, é → e), plus the
// letters NFD leaves whole (ø → o, ß → ss, æ → ae).
var refFoldCache sync.Map

var refFoldSpecial = map[rune]string{'ø': "o", 'ł': "l", 'đ': "d", 'ß': "ss", 'æ': "ae", 'œ': "oe", 'ı': "i", 'þ': "th", 'ð': "d"}

// refFoldAppend appends r folded (case and diacritics) to dst.
func refFoldAppend(dst []rune, r rune) []rune {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, r)
	}
	if v, ok := refFoldCache.Load(r); ok {
		return append(dst, v.([]rune)...)
	}
	var out []rune
	lr := unicode.ToLower(r)
	if s, ok := refFoldSpecial[lr]; ok {
		out = []rune(s)
	} else {
		for _, d := range norm.NFD.String(string(lr)) {
			if !unicode.Is(unicode.Mn, d) {
				out = append(out, unicode.ToLower(d))
			}
		}
		if len(out) == 0 {
			out = []rune{lr}
		}
	}
	refFoldCache.Store(r, out)
	return append(dst, out...)
}

func refIsWordRune(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
