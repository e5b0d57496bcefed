package site

import (
	"testing"
	"time"
)

// The defaults a zero Deps gets, and explicit settings kept as given.
func TestNewDefaultsAndKeepsExplicitSettings(t *testing.T) {
	t.Parallel()
	f := New(Deps{})
	if f.client.Timeout != DefaultTimeout || f.deadline != DefaultCrawlDeadline || f.maxBytes != DefaultMaxPageBytes || f.maxPages != DefaultMaxPages {
		t.Errorf("defaults: timeout %v, deadline %v, bytes %d, pages %d", f.client.Timeout, f.deadline, f.maxBytes, f.maxPages)
	}
	f = New(Deps{Timeout: 3 * time.Second, CrawlDeadline: 7 * time.Second, MaxPageBytes: 1000, MaxPages: 2})
	if f.client.Timeout != 3*time.Second || f.deadline != 7*time.Second || f.maxBytes != 1000 || f.maxPages != 2 {
		t.Errorf("explicit: timeout %v, deadline %v, bytes %d, pages %d", f.client.Timeout, f.deadline, f.maxBytes, f.maxPages)
	}
}

func TestUserAgentNamesTheVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ version, want string }{
		{"", "HeraldBot/dev (+https://herald.example)"},
		{"1.2.0", "HeraldBot/1.2.0 (+https://herald.example)"},
	} {
		if got := UserAgent(tc.version, "https://herald.example/"); got != tc.want {
			t.Errorf("UserAgent(%q) = %q, want %q", tc.version, got, tc.want)
		}
	}
}
