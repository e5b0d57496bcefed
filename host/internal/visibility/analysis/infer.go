package analysis

import (
	"net/url"
	"slices"
	"strings"

	"github.com/heraldhq/herald/host/internal/site"
)

// InferDomains gives each competitor given by name only (no domain) the
// registrable domain among the answers' sources whose first label equals
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
func InferDomains(brands []Brand, answers []Answer) []Brand {
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
			owned[registrable(d)] = true
		}
	}
	type cand struct {
		domain, label string
		answers       int
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	hc := &sc.hosts
	var cands []cand
	at := map[string]int{}
	seen := map[string]int{} // domain → the last answer it was counted for, plus one
	for ai, a := range answers {
		if a.Missing() {
			continue
		}
		add := func(host, suffix string) {
			d := hc.registrableFrom(strings.ToLower(host), suffix)
			if d == "" || owned[d] || seen[d] == ai+1 {
				return
			}
			seen[d] = ai + 1
			i, ok := at[d]
			if !ok {
				i = len(cands)
				at[d] = i
				cands = append(cands, cand{domain: d, label: foldKey(site.FirstLabel(d))})
			}
			cands[i].answers++
		}
		for _, c := range a.Citations {
			if u, err := url.Parse(strings.TrimSpace(c.URL)); err == nil && u.Hostname() != "" {
				add(u.Hostname(), "")
			}
		}
		scanURLs(a.Text, hc, func(_, _ int, host, suffix string, _ bool) { add(host, suffix) })
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
			if !slices.ContainsFunc(b.Aliases, func(a string) bool { return foldKey(a) == c.label }) {
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

// foldKey is s folded (case, diacritics) with everything but letters and
// digits dropped: "Hub Spot", "hub-spot" and "HubSpot" are one key, as a
// domain label writes a name.
func foldKey(s string) string {
	var out []rune
	for _, r := range s {
		if isWordRune(r) {
			out = foldAppend(out, r)
		}
	}
	return string(out)
}
