package webflow

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"sort"

	"github.com/heraldhq/herald/sdk"
)

// image returns the value of the item's image field: the hosted asset made
// from the bytes the host sent, or the schedule's image URL (an external
// https image, which Webflow fetches itself), or nil without an image. The
// alt text is the host's ImageAlt, else the title.
func (a api) image(ctx context.Context, req sdk.ExportRequest) (map[string]any, error) {
	alt := req.ImageAlt
	if alt == "" {
		alt = req.Content.String("title")
	}
	if len(req.ImageData) == 0 {
		if req.ImageURL == "" {
			return nil, nil
		}
		return map[string]any{"url": req.ImageURL, "alt": alt}, nil
	}
	data, mimeType, fileName, err := req.Image(ctx, nil)
	if err != nil {
		return nil, err
	}
	site, err := a.siteID(ctx, req.Content)
	if err != nil {
		return nil, err
	}
	sum := md5.Sum(data) // Webflow's asset API asks for the MD5 of the file
	var asset struct {
		ID            string            `json:"id"`
		UploadURL     string            `json:"uploadUrl"`
		UploadDetails map[string]string `json:"uploadDetails"`
		HostedURL     string            `json:"hostedUrl"`
	}
	in := map[string]any{"fileName": fileName, "fileHash": hex.EncodeToString(sum[:])}
	if err := a.do(ctx, http.MethodPost, "/v2/sites/"+site+"/assets", in, &asset); err != nil {
		return nil, err
	}
	if asset.UploadURL == "" || asset.HostedURL == "" {
		return nil, sdk.Errorf(sdk.CodeRemote, "webflow created asset %s without uploadUrl and hostedUrl", asset.ID)
	}
	if err := a.upload(ctx, asset.UploadURL, asset.UploadDetails, fileName, mimeType, data); err != nil {
		return nil, err
	}
	return map[string]any{"fileId": asset.ID, "url": asset.HostedURL, "alt": alt}, nil
}

// siteID is contentToExport.siteId, else the only site the token is
// authorized for (GET /v2/token/introspect).
func (a api) siteID(ctx context.Context, content sdk.Content) (string, error) {
	if id := content.String("siteId"); id != "" {
		if !objectID.MatchString(id) {
			return "", sdk.Errorf(sdk.CodeInvalidArgument, "siteId must be a Webflow site id (24 hex digits)")
		}
		return id, nil
	}
	var intro struct {
		Authorization struct {
			AuthorizedTo struct {
				SiteIDs []string `json:"siteIds"`
			} `json:"authorizedTo"`
		} `json:"authorization"`
	}
	if err := a.do(ctx, http.MethodGet, "/v2/token/introspect", nil, &intro); err != nil {
		return "", err
	}
	if ids := intro.Authorization.AuthorizedTo.SiteIDs; len(ids) == 1 && objectID.MatchString(ids[0]) {
		return ids[0], nil
	}
	return "", sdk.Errorf(sdk.CodeInvalidArgument, "contentToExport.siteId is required to upload the image: the token is authorized for %d sites", len(intro.Authorization.AuthorizedTo.SiteIDs))
}

// upload POSTs the file to the upload URL Webflow returned (a presigned
// form): every uploadDetails field, then the file last, as the form asks.
func (a api) upload(ctx context.Context, uploadURL string, details map[string]string, fileName, mimeType string, data []byte) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	keys := make([]string, 0, len(details))
	for k := range details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.WriteField(k, details[k])
	}
	part, err := w.CreatePart(textproto.MIMEHeader{
		"Content-Disposition": {mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": fileName})},
		"Content-Type":        {mimeType},
	})
	if err != nil {
		return sdk.Errorf(sdk.CodeInternal, "build webflow asset upload: %v", err)
	}
	part.Write(data)
	if err := w.Close(); err != nil {
		return sdk.Errorf(sdk.CodeInternal, "build webflow asset upload: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, uploadURL, &body)
	if err != nil {
		return sdk.Errorf(sdk.CodeRemote, "webflow returned an upload URL that is not valid")
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	_, _, err = sdk.Exchange(a.http, req, "webflow asset upload")
	return err
}
