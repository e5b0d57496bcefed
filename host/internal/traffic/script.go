package traffic

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// Script is the tracking script served at /v1/ai-traffic/t.js.
//
//go:embed t.js
var Script []byte

var scriptETag = func() string {
	sum := sha256.Sum256(Script)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// ScriptHandler serves the tracking script: public, cacheable for an hour
// by browsers and CDNs and revalidated by ETag, so a new release reaches
// sites within the hour without costing each pageview a download.
func ScriptHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=3600, stale-while-revalidate=86400")
		h.Set("ETag", scriptETag)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cross-Origin-Resource-Policy", "cross-origin")
		if noneMatch(r.Header.Values("If-None-Match"), scriptETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(Script)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(Script)
		}
	})
}

// noneMatch reports whether an If-None-Match header (any number of lines,
// each a comma-separated list) names etag. The comparison is weak, as RFC
// 9110 13.1.2 requires for If-None-Match: CDNs often send W/"…" back.
func noneMatch(values []string, etag string) bool {
	for _, v := range values {
		for _, tag := range strings.Split(v, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}
