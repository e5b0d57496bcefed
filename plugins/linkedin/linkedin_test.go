package linkedin

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
	token    = "li-access-token"
	author   = "urn:li:person:8675309"
	imageURN = "urn:li:image:C4E10AQFoyyAjHPMQuQ"
	postURN  = "urn:li:share:6844785523593134080"
)

var jpeg = []byte("\xff\xd8\xff\xe0fake-jpeg")

// fakeLinkedIn answers like the versioned LinkedIn API. postStatus forces
// the answer to POST /rest/posts; uploadStatus the answer to the PUT.
type fakeLinkedIn struct {
	t            *testing.T
	url          string
	postStatus   int
	retryAfter   string
	uploadStatus int

	mu     sync.Mutex
	calls  []string
	bodies map[string]any
}

func (f *fakeLinkedIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	call := r.Method + " " + r.URL.Path
	if r.URL.RawQuery != "" {
		call += "?" + r.URL.RawQuery
	}
	f.calls = append(f.calls, call)
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/uploads/cover.jpg" {
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(jpeg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"status":401,"serviceErrorCode":65600,"code":"INVALID_ACCESS_TOKEN","message":"Invalid access token"}`)
		return
	}
	if r.URL.Path == "/rest/posts" || r.URL.Path == "/rest/images" {
		if v := r.Header.Get("LinkedIn-Version"); v != DefaultVersion {
			f.t.Errorf("%s: LinkedIn-Version = %q", call, v)
		}
		if v := r.Header.Get("X-Restli-Protocol-Version"); v != "2.0.0" {
			f.t.Errorf("%s: X-Restli-Protocol-Version = %q", call, v)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			f.t.Errorf("%s: Content-Type = %q", call, ct)
		}
		var decoded any
		if err := json.Unmarshal(body, &decoded); err != nil {
			f.t.Errorf("%s: body is not JSON: %v", call, err)
		}
		f.bodies[r.URL.Path] = decoded
	}
	switch call {
	case "GET /v2/userinfo":
		_, _ = io.WriteString(w, `{"sub":"8675309","name":"Ada Lovelace","email":"ada@example.com"}`)
	case "POST /rest/images?action=initializeUpload":
		_, _ = io.WriteString(w, `{"value":{"uploadUrlExpiresAt":1650567510704,"uploadUrl":"`+f.url+`/dms-uploads/C4E10AQ?ca=vector_feedshare","image":"`+imageURN+`"}}`)
	case "PUT /dms-uploads/C4E10AQ?ca=vector_feedshare":
		if string(body) != string(jpeg) {
			f.t.Errorf("uploaded %q, want the image bytes", body)
		}
		if f.uploadStatus != 0 {
			w.WriteHeader(f.uploadStatus)
			return
		}
		w.WriteHeader(http.StatusCreated)
	case "POST /rest/posts":
		if f.postStatus != 0 {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			w.WriteHeader(f.postStatus)
			_, _ = io.WriteString(w, `{"status":429,"code":"TOO_MANY_REQUESTS","message":"Resource level throttle limit reached"}`)
			return
		}
		w.Header().Set("x-restli-id", postURN)
		w.WriteHeader(http.StatusCreated)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"status":404,"message":"No virtual resource found"}`)
	}
}

func setup(t *testing.T, f *fakeLinkedIn) (string, *fakeLinkedIn) {
	t.Helper()
	if f == nil {
		f = &fakeLinkedIn{}
	}
	f.t = t
	f.bodies = map[string]any{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return srv.URL, f
}

func exportReq(base, tok string, withImage bool) sdk.ExportRequest {
	req := sdk.ExportRequest{
		ScheduleID: "sch-1", IdempotencyKey: "idem-1",
		Content:     sdk.Content{"text": "We shipped v2 #launch (finally)", "title": "Launch"},
		Credentials: map[string]string{"token": tok, "author": author, "base_url": base},
	}
	if withImage {
		// What the host sends: the bytes, with a URL the plugin must not
		// fetch (a private address its guarded client refuses).
		req.ImageURL = "http://10.255.255.1:8080/v1/blobs/k1"
		req.ImageData, req.ImageMIMEType = jpeg, "image/jpeg"
		req.ImageFileName, req.ImageAlt = "launch.jpg", "The team on launch day"
	}
	return req
}

func TestExport(t *testing.T) {
	t.Parallel()
	post := func(content any) map[string]any {
		p := map[string]any{
			"author": author, "commentary": `We shipped v2 \#launch \(finally\)`, "visibility": "PUBLIC",
			"distribution":   map[string]any{"feedDistribution": "MAIN_FEED", "targetEntities": []any{}, "thirdPartyDistributionChannels": []any{}},
			"lifecycleState": "PUBLISHED", "isReshareDisabledByAuthor": false,
		}
		if content != nil {
			p["content"] = content
		}
		return p
	}
	tests := []struct {
		name       string
		fake       *fakeLinkedIn
		token      string
		withImage  bool
		wantCalls  []string
		wantBodies map[string]any
		wantErr    *sdk.Error
	}{
		{
			name: "a post with an image registers, uploads and references it", token: token, withImage: true,
			wantCalls: []string{"POST /rest/images?action=initializeUpload", "PUT /dms-uploads/C4E10AQ?ca=vector_feedshare", "POST /rest/posts"},
			wantBodies: map[string]any{
				"/rest/images": map[string]any{"initializeUploadRequest": map[string]any{"owner": author}},
				"/rest/posts":  post(map[string]any{"media": map[string]any{"id": imageURN, "title": "Launch", "altText": "The team on launch day"}}),
			},
		},
		{
			name: "a text post is created alone", token: token,
			wantCalls:  []string{"POST /rest/posts"},
			wantBodies: map[string]any{"/rest/posts": post(nil)},
		},
		{
			name: "an invalid token is an authentication failure, not retried", token: "expired",
			wantCalls: []string{"POST /rest/posts"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401, Message: "LinkedIn refused the token (check that it is valid and grants w_member_social for the author): linkedin answered 401: INVALID_ACCESS_TOKEN: Invalid access token"},
		},
		{
			name: "a throttled post is retryable after LinkedIn's delay", token: token, fake: &fakeLinkedIn{postStatus: 429, retryAfter: "45"},
			wantCalls: []string{"POST /rest/posts"},
			wantErr:   &sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 45 * time.Second},
		},
		{
			name: "a failed upload is retryable and no post is made", token: token, withImage: true, fake: &fakeLinkedIn{uploadStatus: 503},
			wantCalls: []string{"POST /rest/images?action=initializeUpload", "PUT /dms-uploads/C4E10AQ?ca=vector_feedshare"},
			wantErr:   &sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 503},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, f := setup(t, tt.fake)
			client := plugintest.InProcessDestination(t, newDestination(loopback))
			res, err := client.Export(t.Context(), exportReq(base, tt.token, tt.withImage))
			f.mu.Lock()
			defer f.mu.Unlock()
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
			if err != nil {
				t.Fatalf("Export: %v", err)
			}
			if want := (sdk.ExportResult{ExternalID: postURN, ExternalURL: "https://www.linkedin.com/feed/update/" + postURN + "/"}); res != want {
				t.Errorf("result = %+v, want %+v", res, want)
			}
			if !reflect.DeepEqual(f.bodies, tt.wantBodies) {
				t.Errorf("bodies = %v\nwant %v", f.bodies, tt.wantBodies)
			}
		})
	}
}

func TestEscapeCommentary(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain text is unchanged", "Hello, world.", "Hello, world."},
		{"hashtags, mentions and brackets are escaped", "#go @ada [x] (y) {z} <w>", `\#go \@ada \[x\] \(y\) \{z\} \<w\>`},
		{"backslashes are escaped first", `a\b_c*d~e|f`, `a\\b\_c\*d\~e\|f`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := EscapeCommentary(tt.in); got != tt.want {
				t.Errorf("EscapeCommentary(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestConfigureRefusesABadVersion(t *testing.T) {
	t.Parallel()
	client := plugintest.InProcessDestination(t, newDestination(loopback))
	if err := client.Configure(t.Context(), map[string]string{"linkedin_version": "2026-10"}); sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Errorf("err = %v, want invalid_argument", err)
	}
	if err := client.Configure(t.Context(), map[string]string{"linkedin_version": "202611"}); err != nil {
		t.Errorf("err = %v, want nil", err)
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	base, _ := setup(t, &fakeLinkedIn{})
	exp := exportReq(base, token, true)
	plugintest.TestDestination(t, newDestination(loopback), plugintest.DestinationChecks{
		Valid:             sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export:            &exp,
		Connection:        &sdk.CheckConnectionRequest{Credentials: exp.Credentials},
		RefusedConnection: &sdk.CheckConnectionRequest{Credentials: exportReq(base, "revoked", false).Credentials},
		Failures: []plugintest.ExportFailure{{
			Name:    "an author that is not a URN is refused before calling LinkedIn",
			Request: sdk.ExportRequest{Content: sdk.Content{"text": "hi"}, Credentials: map[string]string{"token": token, "author": "ada", "base_url": base}},
			Want:    sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}

// loopback lets the plugin reach the httptest fakes, as
// HERALD_ALLOWED_PRIVATE_CIDRS=127.0.0.0/8 would.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
