package visibility

import "testing"

// pageOf is how PageCitations keeps a source URL: its path when its host
// is domain or a subdomain.
func pageOf(raw, domain string) (string, bool) {
	host, path, ok := hostPath(raw)
	if !ok || !onDomain(host, domain) {
		return "", false
	}
	return path, true
}

func TestPageOfKeepsTheSitesPagesOnly(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.com/guide?utm_source=chatgpt.com": "/guide",
		"https://www.example.com/":                         "/",
		"example.com/pricing":                              "/pricing",
		"https://blog.example.com/post#x":                  "/post",
		"https://notexample.com/guide":                     "",
		"https://example.com.evil.test/guide":              "",
	} {
		got, ok := pageOf(raw, "example.com")
		if (want == "") == ok || got != want {
			t.Errorf("pageOf(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}
