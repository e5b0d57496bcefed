package seo

import "strings"

// Outline is the structure of a text that edits should keep: what content
// improvement validates against the original.
type Outline struct {
	// Headings are the heading texts in order.
	Headings []string
	// Links are the link targets in order.
	Links []string
	// Words is the word count.
	Words int
	// Vocabulary holds every word of the text, lower-case.
	Vocabulary map[string]bool
	// Numbers are the numbers the text states ("2024", "3.5").
	Numbers []string
	// Names are capitalised words that do not start a sentence: names of
	// people, products and places, in order of appearance.
	Names []string
}

// IsHTML reports whether content is treated as HTML (else Markdown or
// plain text).
func IsHTML(content string) bool { return isHTML(content) }

// OutlineOf parses content and returns its outline.
func OutlineOf(content string) (Outline, error) {
	doc, err := parse(content)
	if err != nil {
		return Outline{}, err
	}
	o := Outline{Vocabulary: map[string]bool{}}
	for _, l := range doc.links {
		if l.href != "" {
			o.Links = append(o.Links, l.href)
		}
	}
	for _, b := range doc.blocks {
		if b.kind == kindHeading {
			o.Headings = append(o.Headings, b.text)
		}
		ws := words(b.text)
		o.Words += len(ws)
		for _, w := range ws {
			o.Vocabulary[w] = true
			if w[0] >= '0' && w[0] <= '9' {
				o.Numbers = append(o.Numbers, w)
			}
		}
		for _, s := range sentences(b.text) {
			o.Names = append(o.Names, names(s)...)
		}
	}
	return o, nil
}

// names returns the capitalised words of a sentence after its first word.
func names(s string) []string {
	var out []string
	fields := strings.Fields(s)
	for i, f := range fields {
		if i == 0 {
			continue
		}
		ws := words(f)
		if len(ws) == 0 {
			continue
		}
		f = strings.TrimLeft(f, "\"'“‘([")
		if f == "" || !(f[0] >= 'A' && f[0] <= 'Z') || stopwords[ws[0]] || ws[0] == "i" {
			continue
		}
		out = append(out, ws[0])
	}
	return out
}

// PlainText returns the text of content (plain text, Markdown or HTML)
// without markup: blocks (paragraphs, headings, list items) separated by a
// blank line, so that the text reads back as the same blocks.
func PlainText(content string) (string, error) {
	doc, err := parse(content)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, bl := range doc.blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(bl.text)
	}
	return b.String(), nil
}

// Sentences splits text into sentences the way the scorer does.
func Sentences(text string) []string { return sentences(text) }

// Words splits text into lower-case words the way the scorer does.
func Words(text string) []string { return words(text) }
