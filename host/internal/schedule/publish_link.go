package schedule

import (
	"github.com/heraldhq/herald/host/internal/weburl"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// MaxExternalURLChars bounds the link a destination answers with.
const MaxExternalURLChars = 2048

// safeExternalURL is the destination's answered link when it is an
// absolute http or https URL with a host, and "" otherwise: a receiver's or
// a WordPress site's answer is a stranger's text, and a javascript:, data:
// or relative "link" must not become the published post's link that the
// dashboard and API clients show. A dropped link is logged (scheme only,
// never the text itself, which may carry anything).
func safeExternalURL(log hclog.Logger, scheduleID, destination, raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	u, ok := weburl.Parse(raw)
	ok = ok && len(raw) <= MaxExternalURLChars && u.User == nil
	if ok {
		return u.String()
	}
	scheme := ""
	if u != nil {
		scheme = u.Scheme
	}
	log.Warn("dropped the destination's link: not an http(s) URL", "schedule", scheduleID, "destination", destination, "scheme", scheme, "length", len(raw))
	return ""
}
