package analysis

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestReadProseBlanksURLsAndSourcesListsAndListsTheSources pins
// docs/METRICS.md "Sources": which runs of an answer are URLs (blanked out
// of the prose, same byte length, and sources) and which are bare domains
// (kept in the prose, no source unless in the sources list), where a sources list starts, and which lines are [n] source
// lines.
func TestReadProseBlanksURLsAndSourcesListsAndListsTheSources(t *testing.T) {
	sp := func(n int) string { return strings.Repeat(" ", n) }
	cases := []struct {
		name    string
		text    string
		prose   string
		sources []Source
	}{
		{"a label line Sources cuts the rest",
			"Tasklane leads.\nSources\nAsana is fine.",
			"Tasklane leads.\n" + sp(7) + "\n" + sp(14), nil},
		{"the six-letter label Source",
			"Tasklane leads.\nSource\nAsana.",
			"Tasklane leads.\n" + sp(6) + "\n" + sp(6), nil},
		{"Citations with a colon",
			"Tasklane leads.\n## Citations:\nAsana.",
			"Tasklane leads.\n" + sp(13) + "\n" + sp(6), nil},
		{"References in bold",
			"Tasklane leads.\n**References**\nAsana.",
			"Tasklane leads.\n" + sp(14) + "\n" + sp(6), nil},
		{"a word that only starts like a label is prose",
			"Sourcery is a tool.",
			"Sourcery is a tool.", nil},
		{"an [n] line is blanked where it is, the prose after it stays",
			"Intro.\n\n[1] https://a.com/x\nTasklane is great.",
			"Intro.\n\n" + sp(19) + "\nTasklane is great.",
			[]Source{{"https://a.com/x", "a.com"}}},
		{"[0] and [9] are source numbers",
			"[0] https://a.com/x\n[9] https://b.com/y\nok",
			sp(19) + "\n" + sp(19) + "\nok",
			[]Source{{"https://a.com/x", "a.com"}, {"https://b.com/y", "b.com"}}},
		{"four digits are a source number, five are not",
			"[1234] https://a.com/x\n[12345] https://a.com/y\nok",
			sp(22) + "\n[12345] " + sp(15) + "\nok",
			[]Source{{"https://a.com/x", "a.com"}, {"https://a.com/y", "a.com"}}},
		{"[n] without a URL is prose",
			"[1] see above\n[12\n[123",
			"[1] see above\n[12\n[123", nil},
		{"a bare domain in the prose stays and is no source, any letters and digits",
			"Try AZaz09.com today.",
			"Try AZaz09.com today.", nil},
		{"a bare domain as a list item is a name, not a source",
			"- pipedrive.com — pipeline-first CRM\n- monday.com is a visual planner",
			"- pipedrive.com — pipeline-first CRM\n- monday.com is a visual planner", nil},
		{"a bare domain in the sources list is a source",
			"Tasklane leads.\nSources:\n- tasklane.io\n- asana.com",
			"Tasklane leads.\n" + sp(8) + "\n" + sp(13) + "\n" + sp(11),
			[]Source{{"tasklane.io", "tasklane.io"}, {"asana.com", "asana.com"}}},
		{"a bare domain on an [n] line is a source",
			"Intro.\n[1] asana.com\nok",
			"Intro.\n" + sp(13) + "\nok",
			[]Source{{"asana.com", "asana.com"}}},
		{"trailing punctuation is not part of a URL or domain",
			"See https://a.com/x. Or acme.com/y.",
			"See " + sp(15) + ". Or " + sp(10) + ".",
			[]Source{{"https://a.com/x", "a.com"}, {"acme.com/y", "acme.com"}}},
		{"a host with a path is a URL",
			"Pricing: tasklane.io/pricing, fine",
			"Pricing: " + sp(19) + ", fine",
			[]Source{{"tasklane.io/pricing", "tasklane.io"}}},
		{"a non-ASCII byte ends a URL",
			"https://a.com/x\x80y",
			sp(15) + "\x80y",
			[]Source{{"https://a.com/x", "a.com"}}},
		{"an e-mail address at the end is no source",
			"mail me@ab", "mail me@ab", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prose, sources := readProse(c.text)
			if prose != c.prose {
				t.Errorf("prose = %q, want %q", prose, c.prose)
			}
			if len(prose) != len(c.text) {
				t.Errorf("prose is %d bytes, text %d", len(prose), len(c.text))
			}
			if !reflect.DeepEqual(sources, c.sources) {
				t.Errorf("sources = %#v, want %#v", sources, c.sources)
			}
		})
	}
}

// TestHostLikeWantsAPublicSuffixAndALetterTLD: a host is a name under a
// listed public suffix whose last label is letters only, 4 to 253 bytes,
// and not the suffix itself.
func TestHostLikeWantsAPublicSuffixAndALetterTLD(t *testing.T) {
	long := strings.Repeat("a", 249) + ".com"
	cases := map[string]bool{
		"x.co":             true, // four bytes is enough
		"abc":              false,
		long:               true, // 253 bytes
		"a" + long:         false,
		"acme.app":         true,
		"acme.biz":         true,
		"acme.CA":          true,
		"acme.BIZ":         true,
		"co.uk":            false, // the suffix itself
		"example.xn--p1ai": false, // a TLD must be letters
		"Node.js":          false,
		"v2.0":             false,
		"a..com":           false,
	}
	for s, want := range cases {
		if got := hostLike(s); got != want {
			t.Errorf("hostLike(%.20q) = %v, want %v", s, got, want)
		}
	}
}

// A URL keeps the parentheses it opens (Wikipedia's "_(company)") and
// ends at a closing one it did not open; a bare www. host spans its own
// bytes.
func TestURLEndsAndBareWWWHosts(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"https://en.wikipedia.org/wiki/Acme_(company)) rest", "https://en.wikipedia.org/wiki/Acme_(company)"},
		{"https://x.com/a_(b)c) d", "https://x.com/a_(b)c"},
		{"https://x.com/a). d", "https://x.com/a"},
	} {
		if got := tc.text[:urlEnd(tc.text, 0)]; got != tc.want {
			t.Errorf("urlEnd(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	var got []string
	scanURLs("see www.acme.com today", nil, func(start, end int, host, _ string, bare bool) {
		got = append(got, "see www.acme.com today"[start:end]+"|"+host)
	})
	if len(got) != 1 || got[0] != "www.acme.com|www.acme.com" {
		t.Errorf("www host: %q", got)
	}
}

// urlHostname reads the common URL itself: it must give what url.Parse
// gives for every URL, common or not.
func TestURLHostnameIsURLParsesHostname(t *testing.T) {
	cases := []string{
		"https://acme.com", "http://acme.com/", "https://Acme.COM/x?y=1#z", "https://acme.com?q", "https://acme.com#f",
		"https://acme.com:8080/x", "https://user@acme.com/x", "https://user:pw@acme.com", "https://[::1]:80/x",
		"https://acme.com/%zz", "https://acme.com/%41", "https://acme.com/x#%zz", "https://acme.com/x?%zz",
		"https://ac%41me.com/", "https://acme.com/\x01", "https://acme.com/\x7f", "https://", "http://.", "https://a..b/",
		"https://acme.com./x", "https://-acme.com", "https://acme.com\\x", "https://acme_x.com/", "https://acme.com/a b",
		"HTTPS://ACME.COM/X", "https://acme.com/(x)", "https://acme.com/x;y", "http://1.2.3.4/x",
	}
	for _, u := range cases {
		want := ""
		if p, err := url.Parse(u); err == nil {
			want = p.Hostname()
		}
		if got := urlHostname(u); got != want {
			t.Errorf("urlHostname(%q) = %q, url.Parse's Hostname %q", u, got, want)
		}
	}
}
