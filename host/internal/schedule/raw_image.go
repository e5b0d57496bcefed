package schedule

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
)

// minRawImage is the shortest string checked for base64 image bytes: 24
// characters are 18 bytes, enough for every image format's signature
// (a 1×1 GIF is longer); shorter values (an id, a slug, a word) stay
// unexamined.
const minRawImage = 24

// refuseRawImages refuses a post whose contentToExport still holds an
// image's bytes after the image fields were re-hosted: a data: URL or a
// base64 image in any value, at any depth, inside HTML too
// (<img src="data:image/png;base64,...">). Raw image bytes never reach a
// schedule row: the image fields (image, imageBase64, imageUrl and
// contentToExport.imageUrl) are re-hosted, anything else is a 400 that
// names the field.
func refuseRawImages(content map[string]any) error {
	if path, what := findRawImage("contentToExport", content); path != "" {
		return apierr.Invalid("%s holds %s: raw image bytes are not stored in a post; pass the image as image, imageBase64 or imageUrl (Herald hosts it), or link an https URL", path, what)
	}
	return nil
}

// findRawImage returns the path of the first value under v (keys in
// order) that holds image bytes, and what it holds.
func findRawImage(path string, v any) (string, string) {
	switch x := v.(type) {
	case string:
		if what := rawImage(x); what != "" {
			return path, what
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, what := findRawImage(path+"."+k, x[k]); p != "" {
				return p, what
			}
		}
	case []any:
		for i, e := range x {
			if p, what := findRawImage(fmt.Sprintf("%s[%d]", path, i), e); p != "" {
				return p, what
			}
		}
	}
	return "", ""
}

// rawImage says what image data s holds: a data: URL of an image (the
// whole value or inside it), or the whole value as base64 of an image's
// bytes; "" when none.
func rawImage(s string) string {
	lower := strings.ToLower(s)
	for off := 0; ; {
		i := strings.Index(lower[off:], "data:")
		if i < 0 {
			break
		}
		off += i + len("data:")
		meta, _, ok := strings.Cut(lower[off:], ",")
		if !ok || len(meta) > 100 || strings.ContainsAny(meta, " \t\n\"'<>()") {
			continue // prose that says "data:", not a data: URL
		}
		if strings.HasPrefix(meta, "image/") {
			return "an image data: URL"
		}
		if strings.HasSuffix(meta, ";base64") {
			return "a base64 data: URL"
		}
	}
	t := strings.TrimSpace(s)
	if len(t) < minRawImage || strings.ContainsAny(t, " \n\t") {
		return ""
	}
	// The first 64 characters (a multiple of 4: no padding needed) hold
	// the signature of every image format.
	head := t[:min(len(t), 64)&^3]
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		b, err := enc.DecodeString(head)
		if err == nil && strings.HasPrefix(http.DetectContentType(b), "image/") {
			return "base64 image bytes"
		}
	}
	return ""
}
