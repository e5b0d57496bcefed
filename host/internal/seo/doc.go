package seo

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Block kinds of a parsed document.
const (
	kindParagraph = iota
	kindHeading
	kindItem // list item, table cell, quote: counted in sentences, not as a paragraph
)

type block struct {
	kind  int
	level int // heading level
	text  string
	// quoted is text the author did not write or that is not prose:
	// blockquotes, code, preformatted text. The outline keeps it; the
	// assessments skip it, as Yoast does.
	quoted bool
}

type link struct {
	href, text string
	nofollow   bool
}

type image struct {
	src, alt string
	hasAlt   bool
}

// document is content reduced to what the assessments read: text blocks
// in order, links, images and the HTML <title> when there is one.
type document struct {
	blocks    []block
	links     []link
	images    []image
	htmlTitle string
}

// htmlTag recognises content that is already HTML: a known block or inline
// tag near the start. Markdown may embed the odd tag, but a document that
// opens with one is HTML.
var htmlTag = regexp.MustCompile(`(?i)<(html|body|head|article|section|div|p|h[1-6]|ul|ol|li|a|img|br|table|blockquote|strong|em|span)[\s>/]`)

// md renders Markdown with CommonMark rules and no raw-HTML passthrough
// restrictions, so inline HTML inside Markdown still yields its links and
// images.
var md = goldmark.New()

// parse turns plain text, Markdown or HTML into a document. Plain text is
// Markdown without markup: blank lines separate paragraphs.
func parse(content string) (*document, error) {
	src := content
	if !isHTML(content) {
		var buf bytes.Buffer
		buf.Grow(len(content) + len(content)/4)
		if err := md.Convert([]byte(content), &buf); err != nil {
			return nil, err
		}
		src = buf.String()
	}
	root, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return nil, err
	}
	d := &document{}
	w := walker{doc: d}
	w.walk(root)
	w.flush(kindParagraph, 0)
	return d, nil
}

func isHTML(s string) bool {
	head := s
	if len(head) > 4096 {
		head = head[:4096]
	}
	loc := htmlTag.FindStringIndex(head)
	if loc == nil {
		return false
	}
	// A tag as the first non-space thing, or many tags, means HTML; a
	// lone tag deep in Markdown does not.
	return strings.TrimSpace(head[:loc[0]]) == "" || strings.Count(head, "</") >= 3
}

type walker struct {
	doc    *document
	buf    strings.Builder
	quoted int // depth inside blockquote, code, pre and the like
}

func (w *walker) flush(kind, level int) {
	text := strings.Join(strings.Fields(w.buf.String()), " ")
	w.buf.Reset()
	if text == "" {
		return
	}
	w.doc.blocks = append(w.doc.blocks, block{kind: kind, level: level, text: text, quoted: w.quoted > 0})
}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func (w *walker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.buf.WriteString(n.Data)
		return
	case html.ElementNode:
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe:
			return
		case atom.Title:
			if n.FirstChild != nil {
				w.doc.htmlTitle = strings.TrimSpace(n.FirstChild.Data)
			}
			return
		case atom.Br:
			w.buf.WriteByte(' ')
			return
		case atom.Img:
			src, _ := attr(n, "src")
			alt, has := attr(n, "alt")
			w.doc.images = append(w.doc.images, image{src: src, alt: strings.TrimSpace(alt), hasAlt: has && strings.TrimSpace(alt) != ""})
			return
		case atom.A:
			href, _ := attr(n, "href")
			rel, _ := attr(n, "rel")
			start := w.buf.Len()
			w.children(n)
			text := ""
			if w.buf.Len() >= start {
				text = strings.TrimSpace(w.buf.String()[start:])
			}
			w.doc.links = append(w.doc.links, link{href: strings.TrimSpace(href), text: text, nofollow: hasToken(rel, "nofollow")})
			return
		case atom.Code, atom.Kbd, atom.Samp, atom.Math, atom.Textarea, atom.Select, atom.Button:
			// Inline code and form controls are not prose: left out.
			if w.quoted > 0 {
				w.children(n)
			} else {
				w.buf.WriteByte(' ')
			}
			return
		case atom.Blockquote, atom.Pre, atom.Canvas, atom.Object:
			// Flushed as blocks of their own, marked quoted.
			w.flush(kindParagraph, 0)
			w.quoted++
			w.children(n)
			w.flush(kindItem, 0)
			w.quoted--
			return
		}
		if lvl := headingLevel(n.DataAtom); lvl > 0 {
			w.flush(kindParagraph, 0)
			w.children(n)
			w.flush(kindHeading, lvl)
			return
		}
		switch n.DataAtom {
		case atom.P:
			w.flush(kindParagraph, 0)
			w.children(n)
			w.flush(kindParagraph, 0)
			return
		case atom.Li, atom.Td, atom.Th, atom.Dd, atom.Dt, atom.Figcaption, atom.Caption:
			w.flush(kindParagraph, 0)
			w.children(n)
			w.flush(kindItem, 0)
			return
		case atom.Div, atom.Section, atom.Article, atom.Main, atom.Body, atom.Ul, atom.Ol, atom.Table,
			atom.Tr, atom.Header, atom.Footer, atom.Aside, atom.Nav, atom.Figure, atom.Hr, atom.Dl:
			w.flush(kindParagraph, 0)
			w.children(n)
			w.flush(kindParagraph, 0)
			return
		}
	}
	w.children(n)
}

func (w *walker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(strings.ToLower(list)) {
		if f == tok {
			return true
		}
	}
	return false
}

// toHTML is the HTML the scorer reads content as: HTML as given, Markdown
// and plain text rendered (the differential test hands this to Yoast).
func toHTML(content string) (string, error) {
	if isHTML(content) {
		return content, nil
	}
	var buf bytes.Buffer
	if err := md.Convert([]byte(content), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}
