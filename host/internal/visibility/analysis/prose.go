package analysis

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/publicsuffix"

	"github.com/heraldhq/herald/host/internal/site"
)

// Source is one source of an answer: a URL the engine returned as a
// citation, or a URL in the text (with a scheme, or a host with a path),
// or a domain in the answer's sources list, with its registrable domain.
// A bare domain written in the prose (monday.com is a visual planner) is
// a name, not a source.
type Source struct {
	URL    string `json:"url"`
	Domain string `json:"domain"`
}

// readProse returns the answer's prose — its text with every URL and the
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
func readProse(text string) (string, []Source) { return readProseTo(text, nil, nil) }

// readProseTo is readProse appending the sources to sources, looking
// hosts up through hc (nil: no cache).
func readProseTo(text string, sources []Source, hc *hostCache) (string, []Source) {
	return readProseHits(text, sources, hc, nil, false)
}

// readProseHits is readProseTo with the text's URLs and domains already
// found (hits, when scanned), in scanURLs's order.
func readProseHits(text string, sources []Source, hc *hostCache, hits []urlHit, scanned bool) (string, []Source) {
	var buf []byte // a copy, made at the first blank
	blank := func(start, end int) {
		if start >= end {
			return
		}
		if buf == nil {
			buf = []byte(text)
		}
		blankBytes(buf, start, end)
	}
	cut := len(text)
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		if cut == len(text) && sourcesLabel(line) {
			cut = start
		}
		if cut == len(text) && refLine(line, hc) {
			blank(start, end)
		}
		start = end + 1
	}
	blank(cut, len(text))
	hit := func(start, end int, domain string, bare bool) {
		if bare && start < cut && (buf == nil || buf[start] == text[start]) {
			return // a domain written as a name, in the prose
		}
		sources = append(sources, Source{URL: text[start:end], Domain: domain})
		if !bare {
			blank(start, end)
		}
	}
	if scanned {
		for _, h := range hits {
			hit(int(h.start), int(h.end), h.domain, h.bare)
		}
	} else {
		scanURLs(text, hc, func(start, end int, host, suffix string, bare bool) {
			hit(start, end, hc.registrableFrom(host, suffix), bare)
		})
	}
	if buf == nil {
		return text, sources
	}
	// buf is this call's own copy and is not written again: the prose
	// is a view of it, not a second copy.
	return unsafe.String(&buf[0], len(buf)), sources
}

// blankBytes writes a space over every byte of buf[start:end] but its
// line breaks, a line at a time and 64 bytes a copy.
func blankBytes(buf []byte, start, end int) {
	for start < end {
		stop := end
		if nl := bytes.IndexByte(buf[start:end], '\n'); nl >= 0 {
			stop = start + nl
		}
		for b := buf[start:stop]; len(b) > 0; {
			b = b[copy(b, spaces64):]
		}
		start = stop + 1
	}
}

const spaces64 = "                                                                "

var sourceLabels = []string{"sources", "source", "references", "reference", "citations", "citation"}

// sourcesLabel reports whether line is the label of a sources list:
// "Sources", "**References:**", "## Citations", "Sources: [1] …".
func sourcesLabel(line string) bool {
	s := trimLeftASCII(line, &labelLead)
	if len(s) < 6 || s[0]|0x20 != 's' && s[0]|0x20 != 'r' && s[0]|0x20 != 'c' {
		return false
	}
	for _, l := range sourceLabels {
		if !hasPrefixFold(s, l) {
			continue
		}
		rest := strings.TrimLeft(s[len(l):], "*_ \t\r")
		return rest == "" || rest[0] == ':'
	}
	return false
}

// labelLead is what sourcesLabel trims from the start of a line.
var labelLead = asciiSet(" \t#*_>")

// asciiSet is the bytes of an ASCII cut set, for trimLeftASCII.
func asciiSet(cut string) (t [256]bool) {
	for i := 0; i < len(cut); i++ {
		t[cut[i]] = true
	}
	return t
}

// trimLeftASCII is strings.TrimLeft(s, cut) for the ASCII cut set of
// asciiSet(cut), without building the set on every call.
func trimLeftASCII(s string, set *[256]bool) string {
	i := 0
	for i < len(s) && set[s[i]] {
		i++
	}
	return s[i:]
}

// refLine reports whether line is a source line: [n] (or [n]:) and a URL.
func refLine(line string, hc *hostCache) bool {
	// The common line starts, after ASCII spaces, with an ASCII byte that
	// starts no source line: told without trimming.
	j := 0
	for j < len(line) && line[j] < utf8.RuneSelf && asciiSpace[line[j]] {
		j++
	}
	if j == len(line) || line[j] < utf8.RuneSelf && line[j] != '[' && line[j] != '-' && line[j] != '*' {
		return false
	}
	s := strings.TrimSpace(line)
	if s == "" || s[0] != '[' && s[0] != '-' && s[0] != '*' && s[0] != 0xe2 { // 0xe2: "•"
		return false
	}
	s = strings.TrimLeft(s, "-*• ")
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
	scanURLs(s[i+1:], hc, func(int, int, string, string, bool) { found = true })
	return found
}

// hostLike reports whether s is a host name under a public suffix
// (acme.com, blog.acme.co.uk, notion.so; not Node.js, e.g or v2.0).
func hostLike(s string) bool {
	_, ok := hostSuffix(s)
	return ok
}

// hostSuffix is hostLike, with the public suffix of s in lower case that
// it looked up (registrableFrom uses it).
func hostSuffix(s string) (string, bool) {
	if !hostShape(s) {
		return "", false
	}
	return listedSuffix(s)
}

// hostShape is hostSuffix's test before the list: a dot, no empty label,
// a last label of two letters or more.
func hostShape(s string) bool {
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
	return true
}

// listedSuffix is hostSuffix's look-up in the public suffix list.
func listedSuffix(s string) (string, bool) {
	suffix, icann := publicsuffix.PublicSuffix(strings.ToLower(s))
	if !icann && !strings.Contains(suffix, ".") {
		return "", false // an unlisted "suffix": not a domain
	}
	return suffix, len(suffix) < len(s)
}

// registrableFrom is registrable(host) for a host in lower case whose
// public suffix is known (hostSuffix; "" when not): the registrable domain
// is the suffix and the label before it, as the public suffix list's
// EffectiveTLDPlusOne derives it, without looking the suffix up again.
func registrableFrom(host, suffix string) string {
	if suffix == "" || !plainHost(host) {
		return registrable(host)
	}
	i := len(host) - len(suffix) - 1
	if strings.HasPrefix(host, ".") || strings.Contains(host, "..") || i < 0 || host[i] != '.' {
		return strings.TrimPrefix(host, "www.") // no registrable domain
	}
	return host[1+strings.LastIndexByte(host[:i], '.'):]
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// registrable is site.RegistrableDomain(host), which for a host in lower
// case with a letter, no port and no final dot (every host the scans
// find, mostly) is the public suffix list's registrable domain.
func registrable(host string) string {
	if !plainHost(host) {
		return site.RegistrableDomain(host)
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return strings.TrimPrefix(host, "www.")
}

// plainHost: lower-case letters, digits, dots and hyphens, at least one
// letter (not an IP address), not ending in a dot.
func plainHost(host string) bool {
	letter := false
	for i := 0; i < len(host); i++ {
		switch c := host[i]; {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9' || c == '.' || c == '-':
		default:
			return false
		}
	}
	return letter && !strings.HasSuffix(host, ".")
}

// AnswerSources lists an answer's sources: the engine's citations, then
// the URLs and domains in its text, in order.
func AnswerSources(a Answer) []Source {
	var out []Source
	for _, c := range a.Citations {
		if u, err := url.Parse(strings.TrimSpace(c.URL)); err == nil && u.Hostname() != "" {
			out = append(out, Source{URL: c.URL, Domain: registrable(u.Hostname())})
		}
	}
	_, inText := readProse(a.Text)
	return append(out, inText...)
}

func Excerpt(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// hostCache remembers hostSuffix's list look-up and registrable per host:
// both are pure functions of the host, and the public suffix list's
// look-up allocates an error in its IP address check for every host that
// is not one. A report's answers name the same few hosts again and again.
// A nil cache looks every host up. Keys are copies, so a cache kept
// between answers holds no answer's text; it starts again when full.
type hostCache struct {
	suffixes map[string]cachedSuffix
	domains  map[string]string
}

type cachedSuffix struct {
	suffix string
	ok     bool
}

// hostCacheSize is how many hosts of each kind a cache holds.
const hostCacheSize = 1024

func (hc *hostCache) hostSuffix(s string) (string, bool) {
	if hc == nil {
		return hostSuffix(s)
	}
	if !hostShape(s) {
		return "", false
	}
	if r, ok := hc.suffixes[s]; ok {
		return r.suffix, r.ok
	}
	if hc.suffixes == nil || len(hc.suffixes) >= hostCacheSize {
		hc.suffixes = make(map[string]cachedSuffix, 64)
	}
	k := strings.Clone(s)
	suffix, ok := listedSuffix(k)
	hc.suffixes[k] = cachedSuffix{suffix, ok}
	return suffix, ok
}

func (hc *hostCache) registrable(host string) string {
	if hc == nil {
		return registrable(host)
	}
	if d, ok := hc.domains[host]; ok {
		return d
	}
	if hc.domains == nil || len(hc.domains) >= hostCacheSize {
		hc.domains = make(map[string]string, 64)
	}
	k := strings.Clone(host)
	d := registrable(k)
	hc.domains[k] = d
	return d
}

// registrableFrom is registrableFrom(host, suffix) through the cache.
func (hc *hostCache) registrableFrom(host, suffix string) string {
	if suffix == "" || !plainHost(host) {
		return hc.registrable(host)
	}
	return registrableFrom(host, suffix)
}
