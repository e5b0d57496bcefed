package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

var png = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 100)...)

func TestStoredObjectsAreServedAtTheirURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	fs, err := blob.NewFS(dir, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("GET /v1/blobs/{key}", blob.Handler(fs))

	obj, err := fs.Put(context.Background(), png, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if obj.URL != srv.URL+"/v1/blobs/"+obj.Key || obj.Size != int64(len(png)) {
		t.Fatalf("object: %+v", obj)
	}
	res, err := http.Get(obj.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(body, png) || res.Header.Get("Content-Type") != "image/png" || res.Header.Get("Cache-Control") == "" {
		t.Fatalf("GET: %d %q %v", res.StatusCode, res.Header.Get("Content-Type"), res.Header)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	for _, key := range []string{"../../etc/passwd", "nothex", obj.Key[:31], "00000000000000000000000000000000.png"} {
		res, err := http.Get(srv.URL + "/v1/blobs/" + key)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 404 {
			t.Errorf("%q: %d", key, res.StatusCode)
		}
	}
	if _, err := fs.Put(context.Background(), make([]byte, blob.MaxBytes+1), "image/png"); !errors.Is(err, blob.ErrTooLarge) {
		t.Fatalf("oversized: %v", err)
	}
}

func TestSniffImageLooksAtBytesNotNames(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		data []byte
		mime string
		ok   bool
	}{
		"png":          {png, "image/png", true},
		"jpeg":         {[]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0}, "image/jpeg", true},
		"gif":          {[]byte("GIF89a...."), "image/gif", true},
		"webp":         {[]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp", true},
		"html":         {[]byte("<html><script>"), "", false},
		"svg":          {[]byte("<svg xmlns="), "", false},
		"empty":        {nil, "", false},
		"pdf":          {[]byte("%PDF-1.7"), "", false},
		"short riff":   {[]byte("RIFF"), "", false},
		"wave as riff": {[]byte("RIFF\x00\x00\x00\x00WAVEfmt "), "", false},
	}
	for name, c := range cases {
		mime, ok := blob.SniffImage(c.data)
		if mime != c.mime || ok != c.ok {
			t.Errorf("%s: %q %v", name, mime, ok)
		}
	}
}

func TestDatabaseStoreServesObjectsFromAnyHost(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		defer srv.Close()
		hostA := blob.NewDB(s, srv.URL)
		// A second host on the same database serves what the first stored.
		mux.Handle("GET /v1/blobs/{key}", blob.Handler(blob.NewDB(s, srv.URL)))
		obj, err := hostA.Put(context.Background(), png, "image/png")
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.Get(obj.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Equal(body, png) || res.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("GET: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		res, _ = http.Get(srv.URL + "/v1/blobs/00000000000000000000000000000000.png")
		res.Body.Close()
		if res.StatusCode != 404 {
			t.Fatalf("unknown key: %d", res.StatusCode)
		}
		if _, err := hostA.Put(context.Background(), make([]byte, blob.MaxBytes+1), "image/png"); !errors.Is(err, blob.ErrTooLarge) {
			t.Fatalf("oversized: %v", err)
		}
	})
}
