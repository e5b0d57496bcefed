package webflow

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const siteID = "42e63e98c9a982ac9b8b741b"

var png = []byte("\x89PNG\r\n\x1a\nnot-really-a-png")

// fakeAssets answers the asset calls like Webflow (create the asset, then
// a presigned form upload to the storage URL it returned) and the item
// calls like fakeWebflow, recording the item's fieldData.
type fakeAssets struct {
	t   *testing.T
	url string

	mu     sync.Mutex
	calls  []string
	fields map[string]any
}

func (f *fakeAssets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/storage" { // the presigned upload: no Bearer token
		f.checkUpload(r, body)
		w.WriteHeader(http.StatusCreated)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var in map[string]any
	_ = json.Unmarshal(body, &in)
	switch r.Method + " " + r.URL.Path {
	case "GET /v2/token/introspect":
		_, _ = io.WriteString(w, `{"authorization":{"id":"55818d58616600637b9a5786","authorizedTo":{"siteIds":["`+siteID+`"],"workspaceIds":[],"userIds":[]}},"application":{"id":"55131cd036c09f7d07883dfc"}}`)
	case "POST /v2/sites/" + siteID + "/assets":
		sum := md5.Sum(png)
		if in["fileName"] != "launch-day.png" || in["fileHash"] != hex.EncodeToString(sum[:]) {
			f.t.Errorf("create asset body = %v, want the file name and the MD5 of the bytes", in)
		}
		_, _ = io.WriteString(w, `{"id":"63e5889e7fe4eafa7384cea4","uploadUrl":"`+f.url+`/storage","uploadDetails":{"key":"sites/`+siteID+`/launch-day.png","policy":"cG9saWN5","X-Amz-Signature":"sig"},"hostedUrl":"https://cdn.webflow.example/launch-day.png"}`)
	case "POST /v2/collections/" + collection + "/items":
		f.fields, _ = in["fieldData"].(map[string]any)
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"id":"`+itemID+`"}`)
	case "POST /v2/collections/" + collection + "/items/publish":
		_, _ = io.WriteString(w, `{"publishedItemIds":["`+itemID+`"]}`)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// checkUpload checks the presigned form: the uploadDetails fields, then
// the file with its name, type and bytes.
func (f *fakeAssets) checkUpload(r *http.Request, body []byte) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		f.t.Errorf("upload Content-Type: %v", err)
		return
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		f.t.Errorf("upload form: %v", err)
		return
	}
	if got := form.Value["key"]; len(got) != 1 || got[0] != "sites/"+siteID+"/launch-day.png" {
		f.t.Errorf("upload key = %v, want the uploadDetails key", got)
	}
	if got := form.Value["X-Amz-Signature"]; len(got) != 1 || got[0] != "sig" {
		f.t.Errorf("upload signature = %v", got)
	}
	files := form.File["file"]
	if len(files) != 1 || files[0].Filename != "launch-day.png" || files[0].Header.Get("Content-Type") != "image/png" {
		f.t.Errorf("upload file parts = %+v, want launch-day.png (image/png)", files)
		return
	}
	fr, _ := files[0].Open()
	data, _ := io.ReadAll(fr)
	if !bytes.Equal(data, png) {
		f.t.Errorf("uploaded %q, want the image bytes", data)
	}
}

func TestAnImageFromTheHostIsUploadedAsAnAssetWithItsNameAndAltText(t *testing.T) {
	t.Parallel()
	f := &fakeAssets{t: t}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	req := exportReq(srv.URL, token, blogPost())
	// What the host sends: the bytes, with a URL nobody can fetch.
	req.ImageURL = "http://10.255.255.1:8080/v1/blobs/k1"
	req.ImageData, req.ImageMIMEType = png, "image/png"
	req.ImageFileName, req.ImageAlt = "launch-day.png", "The team on launch day"

	client := plugintest.InProcessDestination(t, newDestination(loopback))
	if _, err := client.Export(t.Context(), req); err != nil {
		t.Fatalf("Export: %v", err)
	}
	want := []string{
		"GET /v2/token/introspect", "POST /v2/sites/" + siteID + "/assets", "POST /storage",
		"POST /v2/collections/" + collection + "/items", "POST /v2/collections/" + collection + "/items/publish",
	}
	if !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls = %v, want %v", f.calls, want)
	}
	wantImage := map[string]any{"fileId": "63e5889e7fe4eafa7384cea4", "url": "https://cdn.webflow.example/launch-day.png", "alt": "The team on launch day"}
	if got := f.fields["main-image"]; !reflect.DeepEqual(got, wantImage) {
		t.Errorf("main-image = %v, want %v", got, wantImage)
	}
}

func TestAnImageUploadNamesTheSiteIDWhenTheTokenHasSeveralSites(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"authorization":{"authorizedTo":{"siteIds":["`+siteID+`","52e63e98c9a982ac9b8b741b"]}}}`)
	}))
	t.Cleanup(srv.Close)
	req := exportReq(srv.URL, token, blogPost())
	req.ImageData, req.ImageMIMEType = png, "image/png"
	_, err := plugintest.InProcessDestination(t, newDestination(loopback)).Export(t.Context(), req)
	if e := sdk.AsError(err); e.Code != sdk.CodeInvalidArgument || !bytes.Contains([]byte(e.Message), []byte("siteId")) {
		t.Errorf("error = %v, want invalid_argument naming siteId", err)
	}
}
