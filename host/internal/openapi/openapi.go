package openapi

import (
	_ "embed"
	"net/http"
	"strconv"
)

//go:embed openapi.json
var document []byte

//go:embed redoc.standalone.js
var redocJS []byte

//go:embed docs.html
var docsHTML []byte

// Document returns the OpenAPI document (JSON).
func Document() []byte { return document }

// DocumentHandler serves the document at GET /v1/openapi.json. It is public
// and readable from any origin, so that client generators and hosted
// viewers can fetch it.
func DocumentHandler() http.Handler {
	return static("application/json; charset=utf-8", document, func(h http.Header) {
		h.Set("Access-Control-Allow-Origin", "*")
	})
}

// DocsHandler serves the browsable page at GET /docs.
func DocsHandler() http.Handler {
	return static("text/html; charset=utf-8", docsHTML, func(h http.Header) {
		// Redoc shows a logo from its CDN; the page loads nothing but
		// its own two files.
		h.Set("Content-Security-Policy", "img-src 'self' data:; connect-src 'self'")
	})
}

// ScriptHandler serves the vendored Redoc bundle the page loads.
func ScriptHandler() http.Handler {
	return static("text/javascript; charset=utf-8", redocJS, func(h http.Header) {
		h.Set("Cache-Control", "public, max-age=86400")
	})
}

func static(contentType string, body []byte, headers func(http.Header)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		headers(h)
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	})
}
