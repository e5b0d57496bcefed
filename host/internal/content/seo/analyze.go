package seo

import (
	"math"
	"net/url"
	"strings"
)

// analysis is a document measured once; the assessments read it.
type analysis struct {
	doc       *document
	title     string
	blockWds  [][]string // words of each block
	sents     []sentence // sentences of non-heading blocks, in order
	paraWords []int      // words of each paragraph
	sections  []int      // words between headings (first: before any)
	subheads  [][]string // words of each h2/h3
	intro     [][]string // sentences of the first paragraph, as words
	totalWds  int
	internal  int
	outbound  int
}

type sentence struct {
	words []string
}

func analyze(doc *document, title string) *analysis {
	a := &analysis{doc: doc, title: strings.TrimSpace(title)}
	if a.title == "" {
		a.title = doc.htmlTitle
	}
	if a.title == "" {
		for _, b := range doc.blocks {
			if b.kind == kindHeading && b.level == 1 {
				a.title = b.text
				break
			}
		}
	}
	section := 0
	introDone := false
	for _, b := range doc.blocks {
		ws := words(b.text)
		a.blockWds = append(a.blockWds, ws)
		a.totalWds += len(ws)
		if b.kind == kindHeading {
			if b.level == 2 || b.level == 3 {
				a.subheads = append(a.subheads, ws)
			}
			if b.level > 1 {
				a.sections = append(a.sections, section)
				section = 0
			}
			continue
		}
		section += len(ws)
		for _, s := range sentences(b.text) {
			if sw := words(s); len(sw) > 0 {
				a.sents = append(a.sents, sentence{words: sw})
				if b.kind == kindParagraph && !introDone {
					a.intro = append(a.intro, sw)
				}
			}
		}
		if b.kind == kindParagraph {
			a.paraWords = append(a.paraWords, len(ws))
			introDone = true
		}
	}
	a.sections = append(a.sections, section)
	for _, l := range doc.links {
		switch linkKind(l.href) {
		case "internal":
			a.internal++
		case "outbound":
			a.outbound++
		}
	}
	return a
}

// linkKind sorts a link: absolute http(s) links are outbound (the scorer
// does not know the site's own host), relative paths are internal, and
// fragments, mailto: and tel: links are neither.
func linkKind(href string) string {
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		return "outbound"
	case u.Scheme == "" && u.Host == "":
		return "internal"
	}
	return ""
}

func (a *analysis) stats() Stats {
	st := Stats{Words: a.totalWds, Sentences: len(a.sents), Paragraphs: len(a.paraWords), Links: len(a.doc.links), Images: len(a.doc.images)}
	for _, b := range a.doc.blocks {
		if b.kind == kindHeading {
			st.Headings++
		}
	}
	return st
}

// sameWord matches a word and its simple plural ("tool", "tools").
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.HasPrefix(b, a) && (b[len(a):] == "s" || b[len(a):] == "es")
}

// phraseAt counts exact (plural-tolerant) occurrences of kp in ws.
func phraseCount(ws, kp []string) int {
	if len(kp) == 0 || len(ws) < len(kp) {
		return 0
	}
	n := 0
outer:
	for i := 0; i+len(kp) <= len(ws); i++ {
		for j, k := range kp {
			if !sameWord(ws[i+j], k) {
				continue outer
			}
		}
		n++
		i += len(kp) - 1
	}
	return n
}

// contentWords drops stop words from a keyphrase; a keyphrase of only stop
// words keeps them all.
func contentWords(kp []string) []string {
	var out []string
	for _, w := range kp {
		if !stopwords[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return kp
	}
	return out
}

// containsAll reports whether every word of need appears in ws, in any
// order (how Yoast matches a keyphrase in the introduction and headings).
func containsAll(ws, need []string) bool {
	if len(need) == 0 {
		return false
	}
	for _, n := range need {
		found := false
		for _, w := range ws {
			if sameWord(w, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (a *analysis) countPhrase(kp []string) int {
	n := 0
	for _, ws := range a.blockWds {
		n += phraseCount(ws, kp)
	}
	return n
}

func (a *analysis) density(count int) float64 {
	if a.totalWds == 0 {
		return 0
	}
	return math.Round(float64(count)*10000/float64(a.totalWds)) / 100
}
