package schedule

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/weburl"
	"io"
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/sdk"
)

// ImageInput is every way a create request can carry an image. At most one
// is used, in this order: Upload, Base64, URL, then contentToExport.imageUrl.
type ImageInput struct {
	// URL is imageUrl: an https URL kept as is, or a data: URL re-hosted.
	URL string
	// Base64 is imageBase64: raw base64 or a data: URL.
	Base64 string
	// FileName is imageFileName; with Alt (imageAlt) it is kept in
	// contentToExport for the upload to the destination.
	FileName string
	MIMEType string
	Alt      string
	// Upload is image: a temporary download_url fetched at once.
	Upload *Upload
}

// Upload is a file uploaded to an agent host.
type Upload struct {
	DownloadURL, FileID, MIMEType, FileName string
}

// hostedImage is where a schedule's image lives.
type hostedImage struct {
	URL string
	// Key is the blob key when Herald re-hosted the image.
	Key *string
}

// maxImageAlt bounds imageAlt (WordPress and LinkedIn take far less in
// practice; this only refuses nonsense).
const maxImageAlt = 1000

// imageMeta writes imageFileName and imageAlt of the request into content
// (they replace the same keys), so that the publisher names the upload and
// describes it. The file name is reduced to its last path segment.
func imageMeta(in ImageInput, content map[string]any) error {
	name := strings.TrimSpace(in.FileName)
	if name == "" && in.Upload != nil {
		name = strings.TrimSpace(in.Upload.FileName)
	}
	if name != "" {
		name = path.Base(strings.ReplaceAll(name, "\\", "/"))
		if name == "." || name == "/" || len(name) > 255 || strings.ContainsFunc(name, unicode.IsControl) {
			return apierr.Invalid("imageFileName must be a file name of at most 255 characters, got %q", in.FileName)
		}
		content["imageFileName"] = name
	}
	if alt := strings.TrimSpace(in.Alt); alt != "" {
		if utf8.RuneCountInString(alt) > maxImageAlt {
			return apierr.Invalid("imageAlt is longer than %d characters", maxImageAlt)
		}
		content["imageAlt"] = alt
	}
	return nil
}

// hostImage obtains and stores the image of a create request, if any, and
// returns the durable URL to write to contentToExport.imageUrl. Raw bytes
// never reach the schedule row.
func (s *Service) hostImage(ctx context.Context, workspaceID string, in ImageInput, content map[string]any) (hostedImage, error) {
	switch {
	case in.Upload != nil && strings.TrimSpace(in.Upload.DownloadURL) != "":
		data, err := s.download(ctx, in.Upload.DownloadURL)
		if err != nil {
			return hostedImage{}, err
		}
		return s.storeImage(ctx, workspaceID, "image", data, firstNonEmpty(in.Upload.MIMEType, in.MIMEType))
	case in.Upload != nil:
		return hostedImage{}, apierr.Invalid("image.download_url is required when image is passed")
	case strings.TrimSpace(in.Base64) != "":
		data, hint, err := decodeImage("imageBase64", in.Base64)
		if err != nil {
			return hostedImage{}, err
		}
		return s.storeImage(ctx, workspaceID, "imageBase64", data, firstNonEmpty(hint, in.MIMEType))
	case strings.TrimSpace(in.URL) != "":
		return s.imageURL(ctx, workspaceID, "imageUrl", in.URL)
	}
	if v, ok := content["imageUrl"].(string); ok && strings.TrimSpace(v) != "" {
		return s.imageURL(ctx, workspaceID, "contentToExport.imageUrl", v)
	}
	return hostedImage{}, nil
}

// imageURL keeps an https URL and re-hosts a data: URL.
func (s *Service) imageURL(ctx context.Context, workspaceID, field, raw string) (hostedImage, error) {
	raw = strings.TrimSpace(raw)
	if hasPrefixFold(raw, "data:") {
		data, hint, err := decodeImage(field, raw)
		if err != nil {
			return hostedImage{}, err
		}
		return s.storeImage(ctx, workspaceID, field, data, hint)
	}
	if u, ok := weburl.Parse(raw); !ok || !weburl.HTTPS(u) {
		return hostedImage{}, apierr.Invalid("%s must be an https URL or a data: URL", field)
	}
	return hostedImage{URL: raw}, nil
}

// decodeImage decodes raw base64 or a base64 data: URL and returns the
// bytes and the MIME type the data URL declares.
func decodeImage(field, v string) ([]byte, string, error) {
	v = strings.TrimSpace(v)
	hint := ""
	if hasPrefixFold(v, "data:") {
		meta, payload, ok := strings.Cut(v[len("data:"):], ",")
		if !ok || !strings.HasSuffix(strings.ToLower(meta), ";base64") {
			return nil, "", apierr.Invalid("%s must be a base64 data: URL (data:image/png;base64,...)", field)
		}
		hint = strings.TrimSpace(strings.TrimSuffix(strings.ToLower(meta), ";base64"))
		v = payload
	}
	v = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, v)
	if len(v)/4*3 > blob.MaxBytes+3 {
		return nil, "", apierr.Invalid("%s is larger than the %d MiB image limit", field, blob.MaxBytes>>20)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if data, err := enc.DecodeString(v); err == nil && len(data) > 0 {
			return data, hint, nil
		}
	}
	return nil, "", apierr.Invalid("%s is not valid base64", field)
}

// download fetches a temporary upload URL through the guarded client.
func (s *Service) download(ctx context.Context, raw string) ([]byte, error) {
	u, ok := weburl.Parse(strings.TrimSpace(raw))
	if !ok {
		return nil, apierr.Invalid("image.download_url must be an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, apierr.Invalid("image.download_url must be an http(s) URL")
	}
	res, err := s.fetch.Do(req)
	if err != nil {
		// RequestError reduces the URL to its host: download URLs often
		// carry a token.
		return nil, apierr.Invalid("image.download_url could not be fetched: %s", sdk.RequestError("image download", err).Message)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return nil, apierr.Invalid("image.download_url could not be fetched: %s answered %d", u.Host, res.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, blob.MaxBytes+1))
	if err != nil {
		return nil, apierr.Invalid("image.download_url could not be fetched: reading the body from %s failed", u.Host)
	}
	if len(data) > blob.MaxBytes {
		return nil, apierr.Invalid("image.download_url is larger than the %d MiB image limit", blob.MaxBytes>>20)
	}
	if len(data) == 0 {
		return nil, apierr.Invalid("image.download_url returned no bytes")
	}
	return data, nil
}

// storeImage checks that data is an image by its bytes and stores it.
func (s *Service) storeImage(ctx context.Context, workspaceID, field string, data []byte, hint string) (hostedImage, error) {
	if hint != "" && !strings.HasPrefix(strings.ToLower(hint), "image/") {
		return hostedImage{}, apierr.Invalid("%s has type %q, which is not an image", field, hint)
	}
	mime, ok := blob.SniffImage(data)
	if !ok {
		return hostedImage{}, apierr.Invalid("%s is not a PNG, JPEG, GIF or WebP image", field)
	}
	if len(data) > blob.MaxBytes {
		return hostedImage{}, apierr.Invalid("%s is larger than the %d MiB image limit", field, blob.MaxBytes>>20)
	}
	if s.blobs == nil {
		return hostedImage{}, apierr.Unavailable("no blob store is configured to host images")
	}
	obj, err := s.blobs.Put(ctx, data, mime)
	if errors.Is(err, blob.ErrTooLarge) {
		return hostedImage{}, apierr.Invalid("%s is larger than the %d MiB image limit", field, blob.MaxBytes>>20)
	}
	if err != nil {
		return hostedImage{}, fmt.Errorf("store schedule image: %w", err)
	}
	// Tracked so that the sweeper finds it if no schedule ends up needing it.
	if err := s.store.TrackScheduleImage(ctx, workspaceID, obj.Key); err != nil {
		return hostedImage{}, err
	}
	return hostedImage{URL: obj.URL, Key: &obj.Key}, nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// marshalContent stores contentToExport as JSON text.
func marshalContent(content map[string]any) (string, error) {
	b, err := json.Marshal(content)
	if err != nil {
		return "", apierr.Invalid("contentToExport cannot be stored: %v", err)
	}
	return string(b), nil
}
