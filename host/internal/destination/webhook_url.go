package destination

import (
	"net/url"
	"strings"
)

// MaskWebhookURL is how a saved webhook's URL is shown, and the only form
// of it stored in clear (display_url): scheme, host (and port), and the
// path masked but for its last four characters when it is long enough to
// keep them. Chat webhooks carry their token in the path
// (…/services/T0/B0/SECRET); the full URL lives only in the webhook's
// sealed credentials. (Store migration 10 masked older rows with this
// rule as it was then.)
func MaskWebhookURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(hidden)"
	}
	out := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	switch {
	case path == "":
		return out
	case strings.HasPrefix(path, "/****"):
		return out + path // already masked
	case len(path) >= 16:
		return out + "/****" + path[len(path)-4:]
	default:
		return out + "/****"
	}
}
