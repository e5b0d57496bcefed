package content

import (
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/host/internal/seo"
)

// placed is an image to insert at a byte offset of the content.
type placed struct {
	at      int
	order   int
	snippet string
}

var (
	atxHeading   = regexp.MustCompile(`^ {0,3}#{1,6}(\s|$)`)
	setextUnder  = regexp.MustCompile(`^ {0,3}(=+|-+)\s*$`)
	fence        = regexp.MustCompile("^ {0,3}(```|~~~)")
	htmlHeadEnd  = regexp.MustCompile(`(?i)</h([1-6])\s*>`)
	markdownHero = regexp.MustCompile(`^ {0,3}#(\s|$)`)
)

// heading is where a heading ends in the source and whether it is an H1.
type heading struct {
	end int // byte offset just after the heading (its line, or its closing tag)
	h1  bool
}

// headings finds the headings of Markdown (ATX and setext, outside fenced
// code) or HTML content, in order.
func headings(content string) []heading {
	if seo.IsHTML(content) {
		var out []heading
		for _, m := range htmlHeadEnd.FindAllStringSubmatchIndex(content, -1) {
			out = append(out, heading{end: m[1], h1: content[m[2]:m[3]] == "1"})
		}
		return out
	}
	var out []heading
	inFence := false
	prevText := false // previous line is paragraph text (a setext candidate)
	off := 0
	for off < len(content) {
		nl := strings.IndexByte(content[off:], '\n')
		end := len(content)
		if nl >= 0 {
			end = off + nl + 1
		}
		line := strings.TrimRight(content[off:end], "\r\n")
		switch {
		case fence.MatchString(line):
			inFence = !inFence
			prevText = false
		case inFence:
		case atxHeading.MatchString(line):
			out = append(out, heading{end: end, h1: markdownHero.MatchString(line)})
			prevText = false
		case prevText && setextUnder.MatchString(line):
			out = append(out, heading{end: end, h1: strings.Contains(line, "=")})
			prevText = false
		default:
			prevText = strings.TrimSpace(line) != ""
		}
		off = end
	}
	return out
}

// heroOffset is where a hero image goes: after a leading H1, else first.
func heroOffset(content string, hs []heading) int {
	if len(hs) > 0 && hs[0].h1 {
		before := content[:hs[0].end]
		if seo.IsHTML(content) {
			if i := strings.Index(strings.ToLower(before), "<h1"); i >= 0 && strings.TrimSpace(stripTags(before[:i])) == "" {
				return hs[0].end
			}
			return 0
		}
		// Only a heading on the first non-blank line counts as the title.
		if strings.Count(strings.TrimLeft(before, " \t\r\n"), "\n") <= 2 {
			return hs[0].end
		}
	}
	if seo.IsHTML(content) {
		if loc := regexp.MustCompile(`(?i)<body[^>]*>`).FindStringIndex(content); loc != nil {
			return loc[1]
		}
	}
	return 0
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

func stripTags(s string) string { return tagRe.ReplaceAllString(s, "") }

// parsePosition reads "hero" or "after-heading:<n>"; n is 1-based.
func parsePosition(pos string) (n int, ok bool) {
	if pos == "hero" {
		return 0, true
	}
	rest, found := strings.CutPrefix(pos, "after-heading:")
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 1
}

// insertImages places each image at its position. Positions must have
// been checked against the content's headings.
func insertImages(content string, imgs []PlacedImage) string {
	hs := headings(content)
	isHTML := seo.IsHTML(content)
	var ps []placed
	for i, im := range imgs {
		n, _ := parsePosition(im.Position)
		at := heroOffset(content, hs)
		if n > 0 {
			at = hs[n-1].end
		}
		ps = append(ps, placed{at: at, order: i, snippet: snippet(im, isHTML)})
	}
	sort.SliceStable(ps, func(a, b int) bool {
		if ps[a].at != ps[b].at {
			return ps[a].at > ps[b].at
		}
		return ps[a].order > ps[b].order
	})
	out := content
	for _, p := range ps {
		s := p.snippet
		if !isHTML {
			// A blank line either side keeps the image its own paragraph.
			if p.at > 0 {
				if !strings.HasSuffix(out[:p.at], "\n") {
					s = "\n" + s
				}
				s = "\n" + s
			}
			if rest := out[p.at:]; rest != "" && !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n") {
				s += "\n"
			}
		}
		out = out[:p.at] + s + out[p.at:]
	}
	return out
}

func snippet(im PlacedImage, isHTML bool) string {
	if isHTML {
		return `<figure><img src="` + html.EscapeString(im.URL) + `" alt="` + html.EscapeString(im.Alt) + `"></figure>`
	}
	alt := strings.NewReplacer("[", "(", "]", ")", "\n", " ", "\r", " ").Replace(im.Alt)
	return "![" + alt + "](" + strings.ReplaceAll(im.URL, " ", "%20") + ")\n"
}

// headingTexts returns the text of each heading, for prompts and alt text.
func headingTexts(content string) []string {
	o, err := seo.OutlineOf(content)
	if err != nil {
		return nil
	}
	return o.Headings
}
