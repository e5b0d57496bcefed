package webflow

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

const (
	token      = "wf-site-token"
	collection = "580e63fc8c9a982ac9b8b745"
	itemID     = "580e64008c9a982ac9b8b754"
)

// fakeWebflow answers like the Webflow Data API v2. createStatus and
// createBody force the answer to the create call; publishErrors fills the
// publish answer's errors.
type fakeWebflow struct {
	t             *testing.T
	createStatus  int
	createBody    string
	retryAfter    string
	publishErrors []string

	mu     sync.Mutex
	calls  []string
	bodies []map[string]any
}

func (f *fakeWebflow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"code":"not_authorized","message":"Request not authorized","externalReference":null,"details":[]}`)
		return
	}
	if ct := r.Header.Get("Content-Type"); r.Method == http.MethodPost && ct != "application/json" {
		f.t.Errorf("Content-Type = %q", ct)
	}
	switch r.Method + " " + r.URL.Path {
	case "GET /v2/token/authorized_by":
		_, _ = io.WriteString(w, `{"id":"545bbecb7bdd6769632504a7","email":"ada@example.com","firstName":"Ada","lastName":"Lovelace"}`)
	case "POST /v2/collections/" + collection + "/items":
		if f.createStatus != 0 {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			w.WriteHeader(f.createStatus)
			_, _ = io.WriteString(w, f.createBody)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"id":"`+itemID+`","cmsLocaleId":"653ad57de882f528b32e810e","isArchived":false,"isDraft":false,"fieldData":{"name":"Launch","slug":"launch"}}`)
	case "POST /v2/collections/" + collection + "/items/publish":
		answer, _ := json.Marshal(map[string]any{"publishedItemIds": []string{itemID}, "errors": f.publishErrors})
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(answer)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"code":"route_not_found","message":"Requested route not found"}`)
	}
}

func setup(t *testing.T, f *fakeWebflow) (string, *fakeWebflow) {
	t.Helper()
	if f == nil {
		f = &fakeWebflow{}
	}
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL, f
}

func exportReq(base, tok string, content sdk.Content) sdk.ExportRequest {
	return sdk.ExportRequest{
		ScheduleID: "sch-1", IdempotencyKey: "idem-1", Content: content,
		Credentials: map[string]string{"token": tok, "base_url": base},
		ImageURL:    "https://herald.example/blobs/cover.png",
	}
}

func blogPost() sdk.Content {
	return sdk.Content{"collectionId": collection, "title": "Launch Day: v2!", "content": "<p>We shipped.</p>"}
}

func TestExport(t *testing.T) {
	t.Parallel()
	created := map[string]any{"isArchived": false, "isDraft": false, "fieldData": map[string]any{
		"name": "Launch Day: v2!", "slug": "launch-day-v2", "post-body": "<p>We shipped.</p>",
		"main-image": map[string]any{"url": "https://herald.example/blobs/cover.png", "alt": "Launch Day: v2!"},
	}}
	published := map[string]any{"itemIds": []any{itemID}}
	tests := []struct {
		name       string
		fake       *fakeWebflow
		token      string
		content    sdk.Content
		wantCalls  []string
		wantBodies []map[string]any
		wantErr    *sdk.Error
	}{
		{
			name: "an item is created with name and slug, then published", token: token, content: blogPost(),
			wantCalls:  []string{"POST /v2/collections/" + collection + "/items", "POST /v2/collections/" + collection + "/items/publish"},
			wantBodies: []map[string]any{created, published},
		},
		{
			name: "a draft is created as a draft and not published", token: token,
			content:   sdk.Content{"collectionId": collection, "title": "Draft", "slug": "my-draft", "status": "draft", "contentField": "body", "imageField": "hero", "fieldData": map[string]any{"author": "Ada"}},
			wantCalls: []string{"POST /v2/collections/" + collection + "/items"},
			wantBodies: []map[string]any{{"isArchived": false, "isDraft": true, "fieldData": map[string]any{
				"name": "Draft", "slug": "my-draft", "author": "Ada", "hero": map[string]any{"url": "https://herald.example/blobs/cover.png", "alt": "Draft"},
			}}},
		},
		{
			name: "a bad token is an authentication failure, not retried", token: "wrong", content: blogPost(),
			wantCalls: []string{"POST /v2/collections/" + collection + "/items"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401, Message: "Webflow refused the token (check that it is valid and has the CMS:write and assets:write scopes): webflow answered 401: not_authorized: Request not authorized"},
		},
		{
			name: "a taken slug is an invalid argument naming the field", token: token, content: blogPost(),
			fake:      &fakeWebflow{createStatus: 400, createBody: `{"code":"validation_error","message":"Validation Error","details":[{"param":"slug","description":"Unique value is already in database"}]}`},
			wantCalls: []string{"POST /v2/collections/" + collection + "/items"},
			wantErr:   &sdk.Error{Code: sdk.CodeInvalidArgument, StatusCode: 400, Message: `webflow answered 400: validation_error: Validation Error {"param":"slug","description":"Unique value is already in database"}`},
		},
		{
			name: "a 429 is retryable after Webflow's delay", token: token, content: blogPost(),
			fake:      &fakeWebflow{createStatus: 429, retryAfter: "60", createBody: `{"code":"too_many_requests","message":"Too many requests"}`},
			wantCalls: []string{"POST /v2/collections/" + collection + "/items"},
			wantErr:   &sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: time.Minute},
		},
		{
			name: "a 500 is retryable", token: token, content: blogPost(),
			fake:      &fakeWebflow{createStatus: 500, createBody: `{"code":"internal_error","message":"Internal error"}`},
			wantCalls: []string{"POST /v2/collections/" + collection + "/items"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 500},
		},
		{
			name: "publish errors are reported with the created item", token: token, content: blogPost(),
			fake:      &fakeWebflow{publishErrors: []string{"Staging item ID not found."}},
			wantCalls: []string{"POST /v2/collections/" + collection + "/items", "POST /v2/collections/" + collection + "/items/publish"},
			wantErr:   &sdk.Error{Code: sdk.CodeRemote, Message: "webflow item " + itemID + " was created but not published: Staging item ID not found."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, f := setup(t, tt.fake)
			client := plugintest.InProcessDestination(t, newDestination(loopback))
			res, err := client.Export(t.Context(), exportReq(base, tt.token, tt.content))
			if !reflect.DeepEqual(f.calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", f.calls, tt.wantCalls)
			}
			if tt.wantErr != nil {
				e := sdk.AsError(err)
				if e.Code != tt.wantErr.Code || e.Retryable != tt.wantErr.Retryable || e.StatusCode != tt.wantErr.StatusCode || e.RetryAfter != tt.wantErr.RetryAfter ||
					(tt.wantErr.Message != "" && e.Message != tt.wantErr.Message) {
					t.Errorf("error = %+v, want %+v", e, tt.wantErr)
				}
				return
			}
			if err != nil || res.ExternalID != itemID {
				t.Fatalf("Export = %+v, %v", res, err)
			}
			if !reflect.DeepEqual(f.bodies, tt.wantBodies) {
				t.Errorf("bodies = %v, want %v", f.bodies, tt.wantBodies)
			}
		})
	}
}

func TestConfigureSetsTheBaseURL(t *testing.T) {
	t.Parallel()
	base, f := setup(t, &fakeWebflow{})
	client := plugintest.InProcessDestination(t, newDestination(loopback))
	if err := client.Configure(t.Context(), map[string]string{"base_url": base}); err != nil {
		t.Fatal(err)
	}
	req := exportReq("", token, blogPost())
	delete(req.Credentials, "base_url")
	if _, err := client.Export(t.Context(), req); err != nil {
		t.Fatalf("Export: %v", err)
	}
	if len(f.calls) != 2 {
		t.Errorf("calls = %v, want create and publish", f.calls)
	}
	if err := client.Configure(t.Context(), map[string]string{"bogus": "1"}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("unknown setting: err = %v, want invalid_argument", err)
	}
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"punctuation becomes single hyphens", "Launch Day: v2!", "launch-day-v2"},
		{"leading and trailing separators are dropped", "  --Hello, World--  ", "hello-world"},
		{"non-ASCII letters are dropped", "Café crème", "caf-cr-me"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Slugify(tt.in); got != tt.want {
				t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	base, _ := setup(t, &fakeWebflow{})
	exp := exportReq(base, token, blogPost())
	plugintest.TestDestination(t, newDestination(loopback), plugintest.DestinationChecks{
		Valid:             sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export:            &exp,
		Connection:        &sdk.CheckConnectionRequest{Credentials: exp.Credentials},
		RefusedConnection: &sdk.CheckConnectionRequest{Credentials: exportReq(base, "revoked", nil).Credentials},
		Failures: []plugintest.ExportFailure{{
			Name:    "a malformed collection id is refused before calling Webflow",
			Request: exportReq(base, token, sdk.Content{"collectionId": "nope", "title": "t"}),
			Want:    sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}

// loopback lets the plugin reach the httptest fakes, as
// HERALD_ALLOWED_PRIVATE_CIDRS=127.0.0.0/8 would.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
