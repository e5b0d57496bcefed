package analysis

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// The URL and bare-domain scan of an answer's text: scanURLs finds every
// URL and host name under a public suffix, in order, for the prose pass
// and the inferred-domain pass.

func isHostByte(c byte) bool { return hostByte[c] }

// hostByte: letters, digits, '-' and '.'.
var hostByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
	}
	return t
}()

// scanURLs calls fn for every URL (bare false) and bare domain (bare
// true) in text, in order.
//
// It reads the text as runs of host bytes (letters, digits, '-', '.'):
// only a run with a dot, or one followed by "://" (a scheme), can give
// anything, so it jumps from one '.' or ':' to the next (strings.IndexByte)
// and looks back to where the run holding it starts; every run it jumps
// over has neither, and gives nothing when read byte by byte either.
func scanURLs(text string, hc *hostCache, fn func(start, end int, host, suffix string, bare bool)) {
	nextDot, nextColon := -2, -2 // the next '.' and ':' at or after i; -1 none, -2 not looked up
	for i := 0; i < len(text); {
		nextDot = nextByte(text, '.', i, nextDot)
		nextColon = nextByte(text, ':', i, nextColon)
		p := nextDot
		if nextColon >= 0 && (p < 0 || nextColon < p) {
			p = nextColon
		}
		if p < 0 {
			return
		}
		if text[p] == '.' && (p+1 == len(text) || !hostByte[text[p+1]]) {
			// A full stop before no host byte, the first '.' at or after
			// i, is the only dot of the run it ends: no host ends with its
			// dot, and no scheme's ':' is in a run. The end of a sentence,
			// mostly: nothing to read back.
			i = p + 1
			continue
		}
		if text[p] == ':' && (p+1 == len(text) || text[p+1] != '/') {
			// A colon before no '/' starts no scheme's "://", and the run
			// before it has no dot (p is the first at or after i): "Pros:".
			i = p + 1
			continue
		}
		// The run holding p (a '.') or ending before it (a ':') starts at
		// a; i may be inside it, after a URL.
		a := p
		for a > i && hostByte[text[a-1]] {
			a--
		}
		c := text[a]
		if !isHostByte(c) {
			i = a + 1 // the ':' with no run before it
			continue
		}
		// Only at the start of a word: not inside an e-mail address, a
		// path or another run (a run starting with '.' or '-' is read from
		// its next byte, whose previous byte is a host byte).
		if c == '.' || c == '-' || a > 0 && scanSkipAfter[text[a-1]] {
			j := a
			for j < len(text) && isHostByte(text[j]) {
				j++
			}
			i = max(j, a+1)
			continue
		}
		i = scanAt(text, a, hc, fn)
	}
}

// scanSkipAfter: a run right after one of these is inside another name.
var scanSkipAfter = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '@' || c == '/' || c == '_' || c == ':' || hostByte[c]
	}
	return t
}()

// scanAt reads the run starting at i (a letter or digit at the start of a
// word) and says where the scan goes on.
func scanAt(text string, i int, hc *hostCache, fn func(start, end int, host, suffix string, bare bool)) int {
	c := text[i]
	if c|0x20 == 'h' && (hasPrefixFold(text[i:], "https://") || hasPrefixFold(text[i:], "http://")) {
		end := urlEnd(text, i)
		if h := urlHostname(text[i:end]); strings.Contains(h, ".") {
			fn(i, end, strings.ToLower(h), "", false)
		}
		return max(end, i+1)
	}
	j, dot := i, false
	for j < len(text) && hostByte[text[j]] {
		dot = dot || text[j] == '.'
		j++
	}
	if !dot {
		return j // a word, not a host
	}
	k := j
	for k > i && (text[k-1] == '.' || text[k-1] == '-') {
		k--
	}
	host := text[i:k]
	if suffix, ok := hc.hostSuffix(host); ok {
		h := strings.ToLower(host)
		switch {
		case i+len(host) < len(text) && text[i+len(host)] == '/':
			end := urlEnd(text, i)
			fn(i, end, h, suffix, false)
			j = max(end, j)
		case strings.HasPrefix(h, "www."):
			fn(i, i+len(host), h, suffix, false)
		default:
			fn(i, i+len(host), h, suffix, true)
		}
	}
	return j
}

// urlHostname is url.Parse(u).Hostname() for an http(s) URL u, "" when
// it does not parse. The common URL (a host of letters, digits, dots and
// hyphens; no percent sign or control byte anywhere) is read directly;
// any other goes through url.Parse.
func urlHostname(u string) string {
	rest := u[strings.IndexByte(u, ':')+3:] // after "://"
	n := 0
	for n < len(rest) && hostByte[rest[n]] {
		n++
	}
	plain := n == len(rest) || rest[n] == '/' || rest[n] == '?' || rest[n] == '#'
	for i := n; plain && i < len(rest); i++ {
		plain = rest[i] != '%' && rest[i] >= 0x20 && rest[i] != 0x7f
	}
	if plain {
		return rest[:n]
	}
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Hostname()
}

// urlByte is what urlEnd does at each byte: goes on (0), ends the URL
// (urlStop: whitespace, quotes, angle brackets, a table bar, emphasis,
// the other brackets, and every byte outside ASCII, a character written
// in prose), or counts a parenthesis.
var urlByte = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r\"'<>`|*][{}") {
		t[c] = urlStop
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = urlStop
	}
	t['('], t[')'] = urlOpen, urlClose
	return t
}()

const (
	urlStop = 1 + iota
	urlOpen
	urlClose
)

// urlEnd is where the URL starting at i ends: at whitespace, quotes,
// angle brackets, a closing bracket it did not open, a table bar or
// emphasis; trailing punctuation is not part of it.
func urlEnd(text string, i int) int {
	depth := 0
	j := i
loop:
	for ; j < len(text); j++ {
		k := urlByte[text[j]]
		if k == 0 {
			continue // a byte a URL goes on over: one table test
		}
		switch k {
		case urlStop:
			break loop
		case urlOpen:
			depth++
		case urlClose:
			if depth == 0 {
				break loop
			}
			depth--
		}
	}
	for j > i && strings.IndexByte(".,;:!?", text[j-1]) >= 0 {
		j--
	}
	return j
}
