package sdk

import (
	"context"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
)

// MaxImageBytes bounds the image [ExportRequest.Image] will download.
const MaxImageBytes = 20 << 20

// Image returns the schedule's image: ImageData when the host sent it,
// otherwise the body fetched from ImageURL with client (http.DefaultClient
// when nil). It returns nil data and no error when the schedule has no image.
// The MIME type comes from ImageMIMEType, the response's Content-Type or the
// URL's extension, in that order; fileName is ImageFileName, else the last
// path segment of the URL, else "image", with an extension added when it
// has none.
func (r ExportRequest) Image(ctx context.Context, client *http.Client) (data []byte, mimeType, fileName string, err error) {
	fileName = strings.TrimSpace(r.ImageFileName)
	if fileName == "" {
		fileName = imageFileName(r.ImageURL)
	}
	if len(r.ImageData) > 0 {
		mimeType = r.ImageMIMEType
		if mimeType == "" {
			mimeType = http.DetectContentType(r.ImageData)
		}
		return r.ImageData, mimeType, withExtension(fileName, mimeType), nil
	}
	if r.ImageURL == "" {
		return nil, "", "", nil
	}
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ImageURL, nil)
	if err != nil {
		return nil, "", "", Errorf(CodeInvalidArgument, "image url is not valid")
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", "", RequestError("image download", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, "", "", RemoteError("image download", resp.StatusCode, resp.Header, "")
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, MaxImageBytes+1))
	if err != nil {
		return nil, "", "", RequestError("image download", err)
	}
	if len(data) > MaxImageBytes {
		return nil, "", "", Errorf(CodeInvalidArgument, "image is larger than %d bytes", MaxImageBytes)
	}
	mimeType = r.ImageMIMEType
	if mimeType == "" {
		if ct, _, perr := mime.ParseMediaType(resp.Header.Get("Content-Type")); perr == nil && strings.HasPrefix(ct, "image/") {
			mimeType = ct
		}
	}
	if mimeType == "" {
		mimeType = mime.TypeByExtension(path.Ext(fileName))
	}
	if mimeType == "" {
		mimeType = http.DetectContentType(data)
	}
	return data, mimeType, withExtension(fileName, mimeType), nil
}

func imageFileName(rawURL string) string {
	if i := strings.IndexAny(rawURL, "?#"); i >= 0 {
		rawURL = rawURL[:i]
	}
	name := path.Base(rawURL)
	if name == "." || name == "/" || name == "" || strings.HasPrefix(rawURL, "data:") {
		return "image"
	}
	return name
}

func withExtension(name, mimeType string) string {
	if path.Ext(name) != "" {
		return name
	}
	switch mimeType {
	case "image/png":
		return name + ".png"
	case "image/jpeg":
		return name + ".jpg"
	case "image/webp":
		return name + ".webp"
	case "image/gif":
		return name + ".gif"
	}
	return name
}
