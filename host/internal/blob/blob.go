package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/blobstore"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
)

// MaxBytes is the largest object the store accepts.
const MaxBytes = 20 << 20

// ErrNotFound is returned for unknown keys.
var ErrNotFound = errors.New("blob not found")

// ErrTooLarge is returned for objects over MaxBytes.
var ErrTooLarge = fmt.Errorf("object is larger than %d bytes", MaxBytes)

// Object describes a stored object.
type Object struct {
	Key  string
	URL  string
	MIME string
	Size int64
}

// Store keeps objects and names their public URLs.
type Store interface {
	// Put stores data with its MIME type and returns the object.
	Put(ctx context.Context, data []byte, mime string) (Object, error)
	// Open returns the object's bytes.
	Open(ctx context.Context, key string) (io.ReadSeekCloser, Object, error)
}

// FS is a Store on a local directory. Objects are written to a temporary
// file, synced and renamed into place, so a crash never leaves a partial
// object under a key.
type FS struct {
	dir     string
	baseURL string
}

var _ Store = (*FS)(nil)

// NewFS returns a store in dir whose URLs start with baseURL (the host's
// public URL).
func NewFS(dir, baseURL string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create blob dir: %w", err)
	}
	return &FS{dir: dir, baseURL: strings.TrimRight(baseURL, "/")}, nil
}

var extensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
}

// mimeOf is the inverse of extensions.
func mimeOf(key string) string {
	for m, ext := range extensions {
		if strings.HasSuffix(key, ext) {
			return m
		}
	}
	return "application/octet-stream"
}

// newKey returns a random key with the extension of mime.
func newKey(mime string) string {
	var rnd [16]byte
	rand.Read(rnd[:])
	return hex.EncodeToString(rnd[:]) + extensions[mime]
}

// Put stores data under a new random key.
func (f *FS) Put(ctx context.Context, data []byte, mime string) (Object, error) {
	if len(data) > MaxBytes {
		return Object{}, ErrTooLarge
	}
	key := newKey(mime)
	tmp, err := os.CreateTemp(f.dir, ".put-*")
	if err != nil {
		return Object{}, fmt.Errorf("store blob: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return Object{}, fmt.Errorf("store blob: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return Object{}, fmt.Errorf("store blob: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return Object{}, fmt.Errorf("store blob: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(f.dir, key)); err != nil {
		return Object{}, fmt.Errorf("store blob: %w", err)
	}
	return Object{Key: key, URL: f.URL(key), MIME: mime, Size: int64(len(data))}, nil
}

// URL is the public URL of key.
func (f *FS) URL(key string) string { return f.baseURL + "/v1/blobs/" + key }

// validKey accepts only keys Put makes: hex and one known extension.
func validKey(key string) bool {
	name, ext, _ := strings.Cut(key, ".")
	if len(name) != 32 || strings.Trim(name, "0123456789abcdef") != "" {
		return false
	}
	if ext == "" {
		return true
	}
	for _, e := range extensions {
		if "."+ext == e {
			return true
		}
	}
	return false
}

// Open returns the object at key.
func (f *FS) Open(_ context.Context, key string) (io.ReadSeekCloser, Object, error) {
	if !validKey(key) {
		return nil, Object{}, ErrNotFound
	}
	file, err := os.Open(filepath.Join(f.dir, key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, Object{}, ErrNotFound
	}
	if err != nil {
		return nil, Object{}, err
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, Object{}, err
	}
	return file, Object{Key: key, URL: f.URL(key), MIME: mimeOf(key), Size: st.Size()}, nil
}

// DB is a Store in the SQL store, for distributed mode: any host serves
// any object. Objects are read whole into memory (they are at most
// MaxBytes).
type DB struct {
	st      *store.Store
	baseURL string
}

var _ Store = (*DB)(nil)

// NewDB returns a store in st whose URLs start with baseURL.
func NewDB(st *store.Store, baseURL string) *DB {
	return &DB{st: st, baseURL: strings.TrimRight(baseURL, "/")}
}

// Put stores data under a new random key.
func (d *DB) Put(ctx context.Context, data []byte, mime string) (Object, error) {
	if len(data) > MaxBytes {
		return Object{}, ErrTooLarge
	}
	key := newKey(mime)
	if err := blobstore.New(d.st).PutBlob(ctx, key, mime, data); err != nil {
		return Object{}, err
	}
	return Object{Key: key, URL: d.baseURL + "/v1/blobs/" + key, MIME: mime, Size: int64(len(data))}, nil
}

// Open returns the object at key.
func (d *DB) Open(ctx context.Context, key string) (io.ReadSeekCloser, Object, error) {
	if !validKey(key) {
		return nil, Object{}, ErrNotFound
	}
	mime, data, err := blobstore.New(d.st).GetBlob(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, Object{}, ErrNotFound
	}
	if err != nil {
		return nil, Object{}, err
	}
	return nopCloser{bytes.NewReader(data)}, Object{Key: key, URL: d.baseURL + "/v1/blobs/" + key, MIME: mime, Size: int64(len(data))}, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// Handler serves GET /v1/blobs/{key}: public, immutable, cacheable.
func Handler(s Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, obj, err := s.Open(r.Context(), r.PathValue("key"))
		if errors.Is(err, ErrNotFound) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"blob not found"}`)
			return
		}
		if err != nil {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"message":"internal error"}`)
			return
		}
		defer rc.Close()
		w.Header().Set("Content-Type", obj.MIME)
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, "", time.Time{}, rc)
	})
}

// SniffImage reports the image MIME type of data from its bytes (PNG, JPEG,
// GIF, WebP), or false when data is not one of those images, whatever its
// name claims.
func SniffImage(data []byte) (string, bool) {
	switch {
	case len(data) >= 8 && string(data[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png", true
	case len(data) >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF:
		return "image/jpeg", true
	case len(data) >= 6 && (string(data[:6]) == "GIF87a" || string(data[:6]) == "GIF89a"):
		return "image/gif", true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp", true
	}
	return "", false
}

// Delete removes the object at key; a missing object is not an error.
// Callers own the decision that nothing references it any more.
func (f *FS) Delete(_ context.Context, key string) error {
	if !validKey(key) {
		return nil
	}
	if err := os.Remove(filepath.Join(f.dir, key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// Delete removes the object at key; a missing object is not an error.
func (d *DB) Delete(ctx context.Context, key string) error {
	return blobstore.New(d.st).DeleteBlob(ctx, key)
}
