package notion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const (
	token    = "secret_notion_token"
	parentID = "b55c9c91-384d-452b-81db-d1ef79372b75"
	pageID   = "59833787-2cf9-4fdf-8782-e53db20768a5"
)

// fakeNotion answers like the Notion API and enforces its request limits.
type fakeNotion struct {
	t            *testing.T
	createStatus int
	createBody   string
	retryAfter   string
	appendStatus int

	mu       sync.Mutex
	calls    []string
	children []int // number of children per request
	page     map[string]any
}

func (f *fakeNotion) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"object":"error","status":401,"code":"unauthorized","message":"API token is invalid."}`)
		return
	}
	if v := r.Header.Get("Notion-Version"); v != "2022-06-28" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"object":"error","status":400,"code":"missing_version","message":"Notion-Version header failed validation."}`)
		return
	}
	switch r.Method + " " + r.URL.Path {
	case "GET /v1/users/me":
		_, _ = io.WriteString(w, `{"object":"user","id":"16d84278-ab0e-484c-9bdd-b35da3bd8905","name":"Herald","type":"bot","bot":{"owner":{"type":"workspace","workspace":true},"workspace_name":"Acme"}}`)
		return
	case "POST /v1/file_uploads/" + uploadID + "/send":
		f.checkSend(r, raw)
		_, _ = io.WriteString(w, `{"object":"file_upload","id":"`+uploadID+`","status":"uploaded","filename":"launch-day.png","content_type":"image/png"}`)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("Content-Type = %q", ct)
	}
	children, _ := body["children"].([]any)
	if len(children) > MaxChildren {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"object":"error","status":400,"code":"validation_error","message":"body.children.length should be ≤ 100, instead was %d."}`, len(children))
		return
	}
	for _, c := range children {
		b := c.(map[string]any)
		typ := b["type"].(string)
		rts, _ := b[typ].(map[string]any)["rich_text"].([]any)
		for _, rt := range rts {
			if n := utf8.RuneCountInString(rt.(map[string]any)["text"].(map[string]any)["content"].(string)); n > MaxRichText {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = fmt.Fprintf(w, `{"object":"error","status":400,"code":"validation_error","message":"text.content.length should be ≤ 2000, instead was %d."}`, n)
				return
			}
		}
	}
	f.children = append(f.children, len(children))
	switch r.Method + " " + r.URL.Path {
	case "POST /v1/file_uploads":
		if body["filename"] != "launch-day.png" || body["content_type"] != "image/png" {
			f.t.Errorf("file upload = %v, want the file name and type", body)
		}
		_, _ = io.WriteString(w, `{"object":"file_upload","id":"`+uploadID+`","status":"pending","upload_url":"https://api.notion.com/v1/file_uploads/`+uploadID+`/send"}`)
	case "POST /v1/pages":
		f.page = body
		if f.createStatus != 0 {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			w.WriteHeader(f.createStatus)
			_, _ = io.WriteString(w, f.createBody)
			return
		}
		_, _ = io.WriteString(w, `{"object":"page","id":"`+pageID+`","url":"https://www.notion.so/Launch-598337872cf94fdf8782e53db20768a5"}`)
	case "PATCH /v1/blocks/" + pageID + "/children":
		if f.appendStatus != 0 {
			w.WriteHeader(f.appendStatus)
			_, _ = io.WriteString(w, `{"object":"error","status":502,"code":"internal_server_error","message":"Unexpected error."}`)
			return
		}
		_, _ = io.WriteString(w, `{"object":"list","results":[]}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"object":"error","status":404,"code":"invalid_request_url","message":"Invalid request URL."}`)
	}
}

func setup(t *testing.T, f *fakeNotion) (string, *fakeNotion) {
	t.Helper()
	if f == nil {
		f = &fakeNotion{}
	}
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL, f
}

func exportReq(base, tok, content string) sdk.ExportRequest {
	return sdk.ExportRequest{
		ScheduleID: "sch-1", IdempotencyKey: "idem-1",
		Content:     sdk.Content{"title": "Launch", "content": content, "parentPageId": parentID},
		Credentials: map[string]string{"token": tok, "base_url": base},
		ImageURL:    "https://herald.example/blobs/cover.png",
	}
}

// longPost has 250 lines, so with the image block it needs 251 blocks.
func longPost() string {
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "Line %d\n", i)
	}
	return b.String()
}

func TestExport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		fake         *fakeNotion
		token        string
		content      string
		wantCalls    []string
		wantChildren []int
		wantErr      *sdk.Error
	}{
		{
			name: "a short page is created in one request", token: token, content: "# Title\nHello",
			wantCalls:    []string{"POST /v1/pages"},
			wantChildren: []int{3},
		},
		{
			name: "a long page is created with 100 blocks and the rest appended in batches of 100", token: token, content: longPost(),
			wantCalls:    []string{"POST /v1/pages", "PATCH /v1/blocks/" + pageID + "/children", "PATCH /v1/blocks/" + pageID + "/children"},
			wantChildren: []int{100, 100, 51},
		},
		{
			name: "a bad token is an authentication failure, not retried", token: "wrong", content: "Hello",
			wantCalls: []string{"POST /v1/pages"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401, Message: "Notion refused the token (check the integration token and that the parent page is shared with the integration): notion answered 401: unauthorized: API token is invalid."},
		},
		{
			name: "a rate-limited create is retryable after Notion's delay", token: token, content: "Hello",
			fake:         &fakeNotion{createStatus: 429, retryAfter: "3", createBody: `{"object":"error","status":429,"code":"rate_limited","message":"You have been rate limited. Please try again in a few minutes."}`},
			wantCalls:    []string{"POST /v1/pages"},
			wantChildren: []int{2},
			wantErr:      &sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 3 * time.Second},
		},
		{
			name: "a failed append is retryable and names the created page", token: token, content: longPost(),
			fake:         &fakeNotion{appendStatus: 502},
			wantCalls:    []string{"POST /v1/pages", "PATCH /v1/blocks/" + pageID + "/children"},
			wantChildren: []int{100, 100},
			wantErr:      &sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 502, Message: "notion answered 502: internal_server_error: Unexpected error."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, f := setup(t, tt.fake)
			client := plugintest.InProcessDestination(t, newDestination(loopback))
			res, err := client.Export(t.Context(), exportReq(base, tt.token, tt.content))
			f.mu.Lock()
			defer f.mu.Unlock()
			if !reflect.DeepEqual(f.calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", f.calls, tt.wantCalls)
			}
			if tt.wantChildren != nil && !reflect.DeepEqual(f.children, tt.wantChildren) {
				t.Errorf("children per request = %v, want %v", f.children, tt.wantChildren)
			}
			if tt.wantErr != nil {
				e := sdk.AsError(err)
				if e.Code != tt.wantErr.Code || e.Retryable != tt.wantErr.Retryable || e.StatusCode != tt.wantErr.StatusCode || e.RetryAfter != tt.wantErr.RetryAfter ||
					(tt.wantErr.Message != "" && e.Message != tt.wantErr.Message) {
					t.Errorf("error = %+v, want %+v", e, tt.wantErr)
				}
				return
			}
			if err != nil || res.ExternalID != pageID || !strings.HasPrefix(res.ExternalURL, "https://www.notion.so/") {
				t.Fatalf("Export = %+v, %v", res, err)
			}
			wantParent := map[string]any{"page_id": parentID}
			wantTitle := map[string]any{"title": map[string]any{"title": []any{map[string]any{"type": "text", "text": map[string]any{"content": "Launch"}}}}}
			if !reflect.DeepEqual(f.page["parent"], wantParent) || !reflect.DeepEqual(f.page["properties"], wantTitle) {
				t.Errorf("page parent %v properties %v", f.page["parent"], f.page["properties"])
			}
			first := f.page["children"].([]any)[0].(map[string]any)
			if first["type"] != "image" {
				t.Errorf("first block = %v, want the image", first)
			}
		})
	}
}

func TestADatabaseParentUsesItsTitleProperty(t *testing.T) {
	t.Parallel()
	base, f := setup(t, &fakeNotion{})
	client := plugintest.InProcessDestination(t, newDestination(loopback))
	req := exportReq(base, token, "Hello")
	delete(req.Content, "parentPageId")
	req.Credentials["database_id"] = strings.ReplaceAll(parentID, "-", "")
	if _, err := client.Export(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if got := f.page["parent"]; !reflect.DeepEqual(got, map[string]any{"database_id": strings.ReplaceAll(parentID, "-", "")}) {
		t.Errorf("parent = %v", got)
	}
	if _, ok := f.page["properties"].(map[string]any)["Name"]; !ok {
		t.Errorf("properties = %v, want the Name title property", f.page["properties"])
	}
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 4500)
	tests := []struct {
		name      string
		in        string
		wantTypes []string
		wantTexts [][]int // rune counts of each rich-text item, per block
	}{
		{"markdown-ish lines become headings, bullets and paragraphs",
			"# One\n## Two\n### Three\n- a\n* b\n\nplain\r\n",
			[]string{"heading_1", "heading_2", "heading_3", "bulleted_list_item", "bulleted_list_item", "paragraph"},
			[][]int{{3}, {3}, {5}, {1}, {1}, {5}}},
		{"a long line is split into rich-text items of at most 2000 characters",
			long, []string{"paragraph"}, [][]int{{2000, 2000, 500}}},
		{"a line of more than 100 items continues in another block",
			strings.Repeat("x", 2000*101), []string{"paragraph", "paragraph"}, [][]int{repeat(2000, 100), {2000}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			blocks := Blocks(tt.in)
			var types []string
			var texts [][]int
			for _, b := range blocks {
				typ := b["type"].(string)
				types = append(types, typ)
				var counts []int
				for _, rt := range b[typ].(map[string]any)["rich_text"].([]map[string]any) {
					counts = append(counts, utf8.RuneCountInString(rt["text"].(map[string]any)["content"].(string)))
				}
				texts = append(texts, counts)
			}
			if !reflect.DeepEqual(types, tt.wantTypes) || !reflect.DeepEqual(texts, tt.wantTexts) {
				t.Errorf("types %v texts %v, want %v %v", types, texts, tt.wantTypes, tt.wantTexts)
			}
		})
	}
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}

func TestConformance(t *testing.T) {
	t.Parallel()
	base, _ := setup(t, &fakeNotion{})
	exp := exportReq(base, token, "# Hello\nWorld")
	plugintest.TestDestination(t, newDestination(loopback), plugintest.DestinationChecks{
		Valid:             sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export:            &exp,
		Connection:        &sdk.CheckConnectionRequest{Credentials: exp.Credentials},
		RefusedConnection: &sdk.CheckConnectionRequest{Credentials: map[string]string{"token": "revoked", "base_url": exp.Credentials["base_url"]}},
		Failures: []plugintest.ExportFailure{{
			Name:    "a payload without any parent is refused before calling Notion",
			Request: sdk.ExportRequest{Content: sdk.Content{"title": "t"}, Credentials: map[string]string{"token": token, "base_url": base}},
			Want:    sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}

// loopback lets the plugin reach the httptest fakes, as
// HERALD_ALLOWED_PRIVATE_CIDRS=127.0.0.0/8 would.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

const uploadID = "2e2a8e7b-3d5f-4c1d-9a3b-1c0e8f6d7a21"

var png = []byte("\x89PNG\r\n\x1a\nnot-really-a-png")

// checkSend checks a file upload's send as Notion reads it: one "file"
// part with the name, type and bytes.
func (f *fakeNotion) checkSend(r *http.Request, raw []byte) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		f.t.Errorf("send Content-Type: %v", err)
		return
	}
	form, err := multipart.NewReader(bytes.NewReader(raw), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		f.t.Errorf("send form: %v", err)
		return
	}
	files := form.File["file"]
	if len(files) != 1 || files[0].Filename != "launch-day.png" || files[0].Header.Get("Content-Type") != "image/png" {
		f.t.Errorf("send file parts = %+v, want launch-day.png (image/png)", files)
		return
	}
	fr, _ := files[0].Open()
	data, _ := io.ReadAll(fr)
	if !bytes.Equal(data, png) {
		f.t.Errorf("sent %q, want the image bytes", data)
	}
}

func TestAnImageFromTheHostIsUploadedAndCaptionedWithItsAltText(t *testing.T) {
	t.Parallel()
	base, f := setup(t, &fakeNotion{})
	req := exportReq(base, token, "We shipped.")
	// What the host sends: the bytes, with a URL nobody can fetch.
	req.ImageURL = "http://10.255.255.1:8080/v1/blobs/k1"
	req.ImageData, req.ImageMIMEType = png, "image/png"
	req.ImageFileName, req.ImageAlt = "launch-day.png", "The team on launch day"
	if _, err := plugintest.InProcessDestination(t, newDestination(loopback)).Export(t.Context(), req); err != nil {
		t.Fatalf("Export: %v", err)
	}
	want := []string{"POST /v1/file_uploads", "POST /v1/file_uploads/" + uploadID + "/send", "POST /v1/pages"}
	if !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls = %v, want %v", f.calls, want)
	}
	children, _ := f.page["children"].([]any)
	if len(children) == 0 {
		t.Fatal("the page has no blocks")
	}
	got, _ := json.Marshal(children[0])
	wantBlock := `{"image":{"caption":[{"text":{"content":"The team on launch day"},"type":"text"}],"file_upload":{"id":"` + uploadID + `"},"type":"file_upload"},"object":"block","type":"image"}`
	if string(got) != wantBlock {
		t.Errorf("first block = %s, want %s", got, wantBlock)
	}
}
