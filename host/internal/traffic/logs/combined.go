package logs

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ParseCombined reads one Combined Log Format line, as nginx's default
// "combined" and Apache's "combined" LogFormat write it:
//
//	%h %l %u [%t] "%r" %>s %b "%{Referer}i" "%{User-Agent}i"
//
// Quoted fields may hold escapes (Apache writes \", nginx \x22). Fields
// after the user agent are ignored, except a quoted host name right after
// it (nginx's "$host"), which becomes Host. The request's query is
// dropped.
func ParseCombined(s string) (Line, error) {
	var l Line
	sp := strings.IndexByte(s, ' ')
	if sp <= 0 {
		return l, errors.New("not a Combined Log Format line: no client address")
	}
	l.IP = s[:sp]
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return l, errors.New("not a Combined Log Format line: no [time]")
	}
	end := strings.IndexByte(s[open:], ']')
	if end < 0 {
		return l, errors.New("not a Combined Log Format line: [time] is not closed")
	}
	t, err := parseCLFTime(s[open+1 : open+end])
	if err != nil {
		return l, err
	}
	l.Time = t
	rest := s[open+end+1:]

	req, rest, err := quoted(rest)
	if err != nil {
		return l, fmt.Errorf("not a Combined Log Format line: request: %v", err)
	}
	method, target, ok := strings.Cut(req, " ")
	if !ok || method == "" || !isToken(method) {
		return l, fmt.Errorf("request %q is not METHOD PATH PROTOCOL", cut(req, 60))
	}
	if i := strings.IndexByte(target, ' '); i >= 0 {
		target = target[:i]
	}
	l.Method = method
	if l.Path, l.Host, err = cleanPath(target); err != nil {
		return l, err
	}

	rest = strings.TrimLeft(rest, " ")
	i := strings.IndexByte(rest, ' ')
	if i != 3 {
		return l, errors.New("not a Combined Log Format line: no status after the request")
	}
	l.Status = atoi3(rest[:3])
	if l.Status < 100 {
		return l, fmt.Errorf("status %q is not an HTTP status", rest[:3])
	}
	rest = strings.TrimLeft(rest[i:], " ")
	// %b: bytes or "-".
	if j := strings.IndexByte(rest, ' '); j >= 0 {
		rest = rest[j:]
	} else {
		rest = ""
	}
	ref, rest, err := quoted(rest)
	if err != nil {
		return l, errors.New("no referrer and user agent: a Common Log Format line; log in the combined format")
	}
	ua, rest, err := quoted(rest)
	if err != nil {
		return l, errors.New("no user agent after the referrer: log in the combined format")
	}
	if ref != "-" {
		l.Referrer = ref
	}
	if ua != "-" {
		l.UserAgent = ua
	}
	if host, _, err := quoted(rest); err == nil && isHostName(host) {
		l.Host = hostOnly(host)
	}
	return l, nil
}

// quoted reads a quoted field after optional spaces and returns it
// unescaped with the text after it.
func quoted(s string) (field, rest string, err error) {
	s = strings.TrimLeft(s, " ")
	if s == "" || s[0] != '"' {
		return "", s, errors.New("no quoted field")
	}
	escaped := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			escaped = true
			i++
		case c == '"':
			f := s[1:i]
			if escaped {
				f = unescape(f)
			}
			return f, s[i+1:], nil
		}
	}
	return "", s, errors.New("quoted field is not closed")
}

// unescape undoes the escapes nginx (\xHH) and Apache (\", \\, \xHH)
// write in quoted fields.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'x':
			if i+2 < len(s) {
				if h, ok := hexByte(s[i+1], s[i+2]); ok {
					b.WriteByte(h)
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func hexByte(a, b byte) (byte, bool) {
	h, ok1 := hexDigit(a)
	l, ok2 := hexDigit(b)
	return h<<4 | l, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

var months = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
	"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

// parseCLFTime reads "01/Dec/2026:10:00:00 +0000" by position (the layout
// is fixed), several times faster than time.Parse.
func parseCLFTime(s string) (time.Time, error) {
	bad := func() (time.Time, error) {
		return time.Time{}, fmt.Errorf("time %q is not dd/Mon/yyyy:hh:mm:ss +zzzz", cut(s, 40))
	}
	if len(s) != 26 || s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':' || s[20] != ' ' {
		return bad()
	}
	mon, ok := months[s[3:6]]
	day, y, h, m, sec := atoiN(s[0:2]), atoiN(s[7:11]), atoiN(s[12:14]), atoiN(s[15:17]), atoiN(s[18:20])
	zh, zm := atoiN(s[22:24]), atoiN(s[24:26])
	if !ok || day < 1 || day > 31 || y < 0 || h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60 || zh < 0 || zm < 0 ||
		(s[21] != '+' && s[21] != '-') {
		return bad()
	}
	off := (zh*60 + zm) * 60
	if s[21] == '-' {
		off = -off
	}
	t := time.Date(y, mon, day, h, m, sec, 0, time.UTC).Add(-time.Duration(off) * time.Second)
	return t, nil
}

// atoiN parses a run of digits, -1 when it is not one.
func atoiN(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func atoi3(s string) int { return atoiN(s) }

// isToken reports whether s is an HTTP method token (letters, digits, -).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return len(s) <= 16
}

// isHostName reports whether s looks like a host name (with an optional
// port): labels of letters, digits and hyphens, at least one letter, so
// that an IP list from X-Forwarded-For is not taken for a host.
func isHostName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':':
		default:
			return false
		}
	}
	return letter
}
