package weburl_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/weburl"
)

func TestOnlyHTTPAndHTTPSURLsWithAHostAreWebURLs(t *testing.T) {
	for raw, want := range map[string]bool{
		"https://example.com/x": true,
		"HTTP://example.com":    true,
		"ftp://example.com":     false,
		"javascript:alert(1)":   false,
		"data:text/plain,x":     false,
		"/relative":             false,
		"https://":              false,
		"example.com":           false,
	} {
		if _, ok := weburl.Parse(raw); ok != want {
			t.Errorf("Parse(%q) = %v, want %v", raw, ok, want)
		}
	}
	u, _ := weburl.Parse("http://example.com")
	if weburl.HTTPS(u) {
		t.Error("http is not https")
	}
}
