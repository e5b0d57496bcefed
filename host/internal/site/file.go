package site

import (
	"context"
	"fmt"
	"mime"
)

// File is a fetched text file (a brand voice's source document).
type File struct {
	// URL is the file's URL after redirects.
	URL string
	// MediaType is the Content-Type without parameters ("" when absent).
	MediaType string
	Body      []byte
}

// FetchFile fetches one resource at raw (https only) with the page size
// cap, whatever its type: the caller checks the type. Like Fetch it does
// not consult robots.txt, since the user named this URL.
func (f *Fetcher) FetchFile(ctx context.Context, raw string) (File, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return File{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.deadline)
	defer cancel()
	res, err := f.get(ctx, u, "text/markdown,text/plain,text/html,application/json;q=0.9,*/*;q=0.1", f.maxBytes)
	if err != nil {
		return File{}, err
	}
	if res.status/100 != 2 {
		return File{}, &Error{Reason: ReasonStatus, Status: res.status, msg: fmt.Sprintf("%s answered HTTP %d", u.Host, res.status)}
	}
	mt := ""
	if res.contentType != "" {
		if m, _, err := mime.ParseMediaType(res.contentType); err == nil {
			mt = m
		}
	}
	return File{URL: res.url.String(), MediaType: mt, Body: res.body}, nil
}
