package dashboard

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
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
	gz, err := compressAll(static)
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
		h.Add("Vary", "Accept-Encoding")
		if r.URL.Path == "/" {
			h.Set("Content-Type", "text/html; charset=utf-8")
			if acceptsGzip(r) {
				writeGzip(w, r, gz["index.html"])
				return
			}
			if r.Method != http.MethodHead {
				w.Write(index)
			}
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		name := strings.TrimPrefix(r.URL.Path, AssetPrefix)
		if z, ok := gz[name]; ok && acceptsGzip(r) && r.Header.Get("Range") == "" {
			h.Set("Content-Type", contentType(name))
			writeGzip(w, r, z)
			return
		}
		assets.ServeHTTP(w, r)
	})
}

// compressAll gzips every embedded file once, at start: the page weight a
// browser downloads is the compressed one (docs/BENCHMARKS.md).
func compressAll(static fs.FS) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(static, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(static, p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(raw); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if buf.Len() < len(raw) {
			out[p] = buf.Bytes()
		}
		return nil
	})
	return out, err
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func writeGzip(w http.ResponseWriter, r *http.Request, z []byte) {
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(z)))
	if r.Method != http.MethodHead {
		w.Write(z)
	}
}

func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
