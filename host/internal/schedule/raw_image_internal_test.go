package schedule

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestRawImageFindsImageBytesAndNothingElse: data: URLs and base64 image
// bytes are found wherever they are; prose that says "data:", ids, URLs
// and base64 of text are not.
func TestRawImageFindsImageBytesAndNothingElse(t *testing.T) {
	t.Parallel()
	gif := base64.StdEncoding.EncodeToString([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 60)...))
	for s, want := range map[string]string{
		"data:image/png;base64," + png:                         "an image data: URL",
		"DATA:IMAGE/SVG+XML,%3Csvg%3E":                         "an image data: URL",
		"see <img src='data:image/gif;base64," + gif + "'> ok": "an image data: URL",
		"data:application/pdf;base64,JVBERi0=":                 "a base64 data: URL",
		gif:                                                    "base64 image bytes",
		strings.ReplaceAll(strings.ReplaceAll(png, "+", "-"), "/", "_"): "base64 image bytes",
		"Our data: three posts, all fine.":                              "",
		"metadata:x,y":                                                  "",
		"https://cdn.example.com/a.png":                                 "",
		"0195f0b2-7c1e-7abc-9def-0123456789ab":                          "",
		base64.StdEncoding.EncodeToString([]byte("just some words of plain text, long enough")): "",
	} {
		if got := rawImage(s); got != want {
			t.Errorf("rawImage(%.40q) = %q, want %q", s, got, want)
		}
	}
}
