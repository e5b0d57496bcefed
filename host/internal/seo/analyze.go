package seo

import (
	"net/url"
	"strings"
)

// analysis is a document measured once; the assessments read it.
type analysis struct {
	doc        *document
	lang       *language // nil when the language is not one of the supported ones
	title      string
	titleWidth int
	blockWds   [][]string // words of each block
	// sents are the sentences of every block, headings included (a
	// heading is a sentence of its own, as Yoast counts it).
	sents     []sentence
	paraWords []int      // words of each paragraph
	sections  []section  // text between subheadings; the first is before any
	subheads  [][]string // words of each h2/h3
	intro     [][]string // sentences of the first paragraph, as words
	h1s       int
	totalWds  int
	// densityWds are the words the keyphrase density divides by: a
	// hyphenated word counts as its parts ("u-lock" is two), as Yoast's
	// density counts them (its text-length check counts "u-lock" once).
	densityWds int
	textChars  int
	internal   int
	outbound   int
	// nofollow counts of internal and outbound links.
	internalNofollow, outboundNofollow int
	stems                              map[string]string
	// typedForms matches the keyphrase only in the forms typed (no
	// plurals, no inflections), as free Yoast does; see Input.TypedForms.
	typedForms bool
}

type sentence struct {
	words   []string
	heading bool
}

type section struct {
	words      int
	subheading bool // starts with a subheading (false only for the first)
}

func analyze(doc *document, title, lang string) *analysis {
	a := &analysis{doc: doc, title: strings.TrimSpace(title), stems: map[string]string{}}
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
	a.titleWidth = titleWidth(a.title)
	sec := section{}
	introDone := false
	for _, b := range doc.blocks {
		if b.quoted {
			continue
		}
		ws := words(b.text)
		a.blockWds = append(a.blockWds, ws)
		a.totalWds += len(ws)
		a.densityWds += hyphenParts(ws)
		a.textChars += len(b.text)
		if b.kind == kindHeading {
			if b.level == 1 {
				a.h1s++
			}
			if sw := ws; len(sw) > 0 {
				a.sents = append(a.sents, sentence{words: sw, heading: true})
			}
			if b.level == 2 || b.level == 3 {
				a.subheads = append(a.subheads, ws)
				a.sections = append(a.sections, sec)
				sec = section{subheading: true}
			}
			continue
		}
		sec.words += len(ws)
		var ss [][]string
		for _, s := range sentences(b.text) {
			if sw := words(s); len(sw) > 0 {
				a.sents = append(a.sents, sentence{words: sw})
				ss = append(ss, sw)
			}
		}
		if b.kind == kindParagraph && len(ws) > 0 {
			a.paraWords = append(a.paraWords, len(ws))
			if !introDone {
				a.intro = ss
				introDone = true
			}
		}
	}
	a.sections = append(a.sections, sec)
	for _, l := range doc.links {
		switch linkKind(l.href) {
		case "internal":
			a.internal++
			if l.nofollow {
				a.internalNofollow++
			}
		case "outbound":
			a.outbound++
			if l.nofollow {
				a.outboundNofollow++
			}
		}
	}
	if lang != "" {
		a.lang = languages[lang]
	} else {
		a.lang = detectLanguage(a.blockWds)
	}
	return a
}

// hyphenParts counts words with a hyphenated word as its parts.
func hyphenParts(ws []string) int {
	n := 0
	for _, w := range ws {
		n += strings.Count(w, "-") + 1
	}
	return n
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

func (a *analysis) languageCode() string {
	if a.lang == nil {
		return "unknown"
	}
	return a.lang.code
}

func (a *analysis) functionWords() map[string]bool {
	if a.lang == nil {
		return stopwords
	}
	return a.lang.function
}
