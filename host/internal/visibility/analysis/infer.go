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
	out, _ := inferDomains(brands, answers, false)
	return out
}

// InferDomainsScanned is InferDomains that also keeps what it read of
// each answer (its sources' hosts and the URLs and domains in its text),
// so that AnalyzeScannedIn reads each answer once and not twice. The
// Scanned is nil when no brand needed a domain (nothing was read).
func InferDomainsScanned(brands []Brand, answers []Answer) ([]Brand, *Scanned) {
	return inferDomains(brands, answers, true)
}

// Scanned is what InferDomainsScanned read of each answer, in the
// answers' order.
type Scanned struct {
	hits   []urlHit
	hitsAt []int32 // answer i's are hits[hitsAt[i]:hitsAt[i+1]]
	cites  []string
	citeAt []int32 // answer i's citation hosts ("" none) are cites[citeAt[i]:citeAt[i+1]]
}

// urlHit is one URL or bare domain scanURLs found, with its registrable
// domain.
type urlHit struct {
	start, end int32
	bare       bool
	domain     string
}

// of is answer i's hits and citation hosts (none for a missing answer,
// which is not read).
func (s *Scanned) of(i int) (hits []urlHit, cites []string) {
	return s.hits[s.hitsAt[i]:s.hitsAt[i+1]], s.cites[s.citeAt[i]:s.citeAt[i+1]]
}

func inferDomains(brands []Brand, answers []Answer, keep bool) ([]Brand, *Scanned) {
	need := false
	for _, b := range brands {
		if len(b.Domains) == 0 && !b.Self {
			need = true
		}
	}
	if !need {
		return brands, nil
	}
	var scanned *Scanned
	if keep {
		// About one URL or domain and one citation an answer: room for
		// that, so the lists do not grow by copying.
		scanned = &Scanned{hitsAt: make([]int32, 1, len(answers)+1), citeAt: make([]int32, 1, len(answers)+1),
			hits: make([]urlHit, 0, len(answers)), cites: make([]string, 0, len(answers))}
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
			if scanned != nil {
				scanned.hitsAt = append(scanned.hitsAt, int32(len(scanned.hits)))
				scanned.citeAt = append(scanned.citeAt, int32(len(scanned.cites)))
			}
			continue
		}
		add := func(d string) {
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
			h := ""
			if u, err := url.Parse(strings.TrimSpace(c.URL)); err == nil && u.Hostname() != "" {
				h = u.Hostname()
				add(hc.registrableFrom(strings.ToLower(h), ""))
			}
			if scanned != nil {
				scanned.cites = append(scanned.cites, h)
			}
		}
		scanURLs(a.Text, hc, func(start, end int, host, suffix string, bare bool) {
			// host is in lower case already: the domain is readProse's too.
			d := hc.registrableFrom(host, suffix)
			add(d)
			if scanned != nil {
				scanned.hits = append(scanned.hits, urlHit{start: int32(start), end: int32(end), bare: bare, domain: d})
			}
		})
		if scanned != nil {
			scanned.hitsAt = append(scanned.hitsAt, int32(len(scanned.hits)))
			scanned.citeAt = append(scanned.citeAt, int32(len(scanned.cites)))
		}
	}
	if len(cands) == 0 {
		return brands, scanned
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
	return out, scanned
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
