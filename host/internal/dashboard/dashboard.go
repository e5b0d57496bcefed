// Package dashboard is Herald's web face for people: a few static pages
// (HTML, CSS, plain ES modules and a vendored chart library) embedded in
// the binary and served by the host at / and /dashboard/. The pages sign
// in with an API key kept in the browser session and read the same REST
// API any client reads; this package serves files only and holds no rule.
package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// AssetPrefix is the path under which the dashboard's assets are served.
const AssetPrefix = "/dashboard/"

// CSP is the Content-Security-Policy of every dashboard response: scripts,
// styles and API calls from the host itself only, no inline code, no
// framing. Images may also be data: or blob: URLs, for the local preview
// of an image chosen for upload.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the dashboard page at "/" and its assets under
// AssetPrefix. Mount it on "GET /{$}" and "GET /dashboard/" so it never
// shadows an API route.
func Handler() http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	index, err := fs.ReadFile(static, "index.html")
	if err != nil {
		panic(err)
	}
	assets := http.StripPrefix(AssetPrefix, http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// Assets are small and change with the binary: revalidate rather
		// than run an old script against a newer API.
		h.Set("Cache-Control", "no-cache")
		if r.URL.Path == "/" {
			h.Set("Content-Type", "text/html; charset=utf-8")
			if r.Method != http.MethodHead {
				w.Write(index)
			}
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		assets.ServeHTTP(w, r)
	})
}
