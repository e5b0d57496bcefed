package notion

import (
	"bytes"
	"context"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"

	"github.com/heraldhq/herald/sdk"
)

// imageBlock returns the page's image block: a file upload made from the
// bytes the host sent, or an external block for an image URL without bytes
// (an https image hosted elsewhere, which Notion links), or nil. The
// caption is the alt text (Notion blocks have no alt attribute; the
// caption is what readers and screen readers get).
func (a api) imageBlock(ctx context.Context, req sdk.ExportRequest) (block, error) {
	alt := req.ImageAlt
	if alt == "" {
		alt = req.Content.String("title")
	}
	image := map[string]any{"caption": richText(alt)}
	switch {
	case len(req.ImageData) > 0:
		data, mimeType, fileName, err := req.Image(ctx, nil)
		if err != nil {
			return nil, err
		}
		id, err := a.uploadFile(ctx, data, mimeType, fileName)
		if err != nil {
			return nil, err
		}
		image["type"] = "file_upload"
		image["file_upload"] = map[string]any{"id": id}
	case req.ImageURL != "":
		image["type"] = "external"
		image["external"] = map[string]any{"url": req.ImageURL}
	default:
		return nil, nil
	}
	return block{"object": "block", "type": "image", "image": image}, nil
}

// uploadFile creates a single-part file upload with the file's name and
// type, sends the bytes as multipart/form-data and returns the upload's id.
func (a api) uploadFile(ctx context.Context, data []byte, mimeType, fileName string) (string, error) {
	var created struct {
		ID string `json:"id"`
	}
	if err := a.do(ctx, http.MethodPost, "/v1/file_uploads", map[string]any{"filename": fileName, "content_type": mimeType}, &created); err != nil {
		return "", err
	}
	if created.ID == "" {
		return "", sdk.Errorf(sdk.CodeRemote, "notion created a file upload without an id")
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreatePart(textproto.MIMEHeader{
		"Content-Disposition": {mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": fileName})},
		"Content-Type":        {mimeType},
	})
	if err != nil {
		return "", sdk.Errorf(sdk.CodeInternal, "build notion file upload: %v", err)
	}
	part.Write(data)
	if err := w.Close(); err != nil {
		return "", sdk.Errorf(sdk.CodeInternal, "build notion file upload: %v", err)
	}
	var sent struct {
		Status string `json:"status"`
	}
	if err := a.send(ctx, http.MethodPost, "/v1/file_uploads/"+created.ID+"/send", w.FormDataContentType(), body.Bytes(), &sent); err != nil {
		return "", err
	}
	if sent.Status != "uploaded" {
		return "", sdk.Errorf(sdk.CodeRemote, "notion file upload %s is %q after sending, not uploaded", created.ID, sent.Status)
	}
	return created.ID, nil
}
