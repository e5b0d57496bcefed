// Package linkedin is Herald's first-party LinkedIn destination. It uses the
// versioned LinkedIn Posts API (POST /rest/posts, with the LinkedIn-Version
// and X-Restli-Protocol-Version: 2.0.0 headers and an OAuth Bearer token).
// With an image it first registers an upload (POST
// /rest/images?action=initializeUpload), PUTs the bytes to the returned
// uploadUrl, and references the image URN in the post. The new post's URN
// comes back in the x-restli-id response header.
package linkedin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// Defaults and the environment variables that override them.
const (
	DefaultBaseURL = "https://api.linkedin.com"
	BaseURLEnv     = "LINKEDIN_API_BASE_URL"
	// DefaultVersion is the LinkedIn-Version (YYYYMM) sent unless the
	// linkedin_version setting or VersionEnv says otherwise. LinkedIn
	// retires versions after about a year, so operators should move it on.
	DefaultVersion = "202610"
	VersionEnv     = "LINKEDIN_VERSION"
)

// Destination publishes LinkedIn posts.
type Destination struct {
	client *http.Client

	mu      sync.RWMutex
	baseURL string
	version string
}

// New returns the LinkedIn destination, reading its base URL and API
// version from the environment. It reaches only public addresses (API,
// images), except the CIDRs in HERALD_ALLOWED_PRIVATE_CIDRS.
func New() *Destination { return newDestination(sdk.AllowedPrivateCIDRs()) }

func newDestination(allowed []netip.Prefix) *Destination {
	d := &Destination{client: sdk.GuardedHTTPClient(60*time.Second, allowed), baseURL: DefaultBaseURL, version: DefaultVersion}
	if v := os.Getenv(BaseURLEnv); v != "" {
		d.baseURL = v
	}
	if v := os.Getenv(VersionEnv); v != "" {
		d.version = v
	}
	return d
}

var info = sdk.DestinationInfo{
	Name:         "linkedin",
	DisplayName:  "LinkedIn",
	RequiredKeys: []string{"text"},
	OptionalKeys: []string{"title", "visibility"},
	Credentials: []sdk.Field{
		{Name: "token", Label: "Access token", Secret: true, Required: true, Description: "OAuth token with w_member_social or w_organization_social"},
		{Name: "author", Label: "Author URN", Required: true, Description: "urn:li:person:… or urn:li:organization:…"},
		{Name: "base_url", Label: "API base URL", Description: "defaults to " + DefaultBaseURL},
	},
}

var (
	authorURN = regexp.MustCompile(`^urn:li:(person|organization):[A-Za-z0-9_-]+$`)
	version   = regexp.MustCompile(`^20[0-9]{2}(0[1-9]|1[0-2])$`)
)

// Info describes the destination.
func (d *Destination) Info(context.Context) (sdk.DestinationInfo, error) { return info, nil }

// Configure accepts base_url and linkedin_version (YYYYMM).
func (d *Destination) Configure(_ context.Context, settings map[string]string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, v := range settings {
		switch k {
		case "base_url":
			if !isHTTPURL(v) {
				return sdk.Errorf(sdk.CodeInvalidArgument, "linkedin setting base_url must be an http(s) URL")
			}
			d.baseURL = v
		case "linkedin_version":
			if !version.MatchString(v) {
				return sdk.Errorf(sdk.CodeInvalidArgument, "linkedin setting linkedin_version must be YYYYMM, such as 202611")
			}
			d.version = v
		default:
			return sdk.Errorf(sdk.CodeInvalidArgument, "linkedin has no setting %q", k)
		}
	}
	return nil
}

func isHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// Validate checks the payload and credentials.
func (d *Destination) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	problems := sdk.CheckRequired(info, req.Content, req.Credentials)
	if a := req.Credentials["author"]; a != "" && !authorURN.MatchString(a) {
		problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("author"), Message: "author must be urn:li:person:… or urn:li:organization:…"})
	}
	if v := req.Content.String("visibility"); v != "" && v != "PUBLIC" && v != "CONNECTIONS" {
		problems = append(problems, sdk.Problem{Key: "visibility", Message: "visibility must be PUBLIC or CONNECTIONS"})
	}
	if n := len([]rune(req.Content.String("text"))); n > 3000 {
		problems = append(problems, sdk.Problem{Key: "text", Message: fmt.Sprintf("text has %d characters; LinkedIn allows 3000", n)})
	}
	if raw := req.Credentials["base_url"]; raw != "" && !isHTTPURL(raw) {
		problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("base_url"), Message: "base_url must be an http(s) URL"})
	}
	return problems, nil
}

// Export uploads the image, if any, and creates the post. LinkedIn has no
// idempotency key; a repeated export posts again.
func (d *Destination) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	problems, _ := d.Validate(ctx, sdk.ValidateRequest{Content: req.Content, Credentials: req.Credentials})
	if err := sdk.ProblemsError(problems); err != nil {
		return sdk.ExportResult{}, err
	}
	c := d.api(req.Credentials)
	author := req.Credentials["author"]

	visibility := req.Content.String("visibility")
	if visibility == "" {
		visibility = "PUBLIC"
	}
	post := map[string]any{
		"author":     author,
		"commentary": EscapeCommentary(req.Content.String("text")),
		"visibility": visibility,
		"distribution": map[string]any{
			"feedDistribution":               "MAIN_FEED",
			"targetEntities":                 []any{},
			"thirdPartyDistributionChannels": []any{},
		},
		"lifecycleState":            "PUBLISHED",
		"isReshareDisabledByAuthor": false,
	}

	data, mimeType, _, err := req.Image(ctx, d.client)
	if err != nil {
		return sdk.ExportResult{}, fmt.Errorf("fetch image for linkedin: %w", err)
	}
	if data != nil {
		image, err := c.uploadImage(ctx, author, data, mimeType)
		if err != nil {
			return sdk.ExportResult{}, err
		}
		media := map[string]any{"id": image}
		if title := req.Content.String("title"); title != "" {
			media["title"] = title
		}
		if req.ImageAlt != "" {
			media["altText"] = req.ImageAlt
		}
		post["content"] = map[string]any{"media": media}
	}

	resp, err := c.do(ctx, http.MethodPost, c.base+"/rest/posts", "application/json", post, true)
	if err != nil {
		return sdk.ExportResult{}, err
	}
	id := resp.Header.Get("x-restli-id")
	if id == "" {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeRemote, "linkedin created the post but sent no x-restli-id")
	}
	return sdk.ExportResult{ExternalID: id, ExternalURL: "https://www.linkedin.com/feed/update/" + id + "/"}, nil
}

// uploadImage registers an image upload for owner, PUTs the bytes and
// returns the image URN.
func (c api) uploadImage(ctx context.Context, owner string, data []byte, mimeType string) (string, error) {
	init := map[string]any{"initializeUploadRequest": map[string]any{"owner": owner}}
	resp, err := c.do(ctx, http.MethodPost, c.base+"/rest/images?action=initializeUpload", "application/json", init, true)
	if err != nil {
		return "", err
	}
	var upload struct {
		Value struct {
			UploadURL string `json:"uploadUrl"`
			Image     string `json:"image"`
		} `json:"value"`
	}
	if err := json.Unmarshal(resp.Body, &upload); err != nil || upload.Value.UploadURL == "" || upload.Value.Image == "" {
		return "", sdk.Errorf(sdk.CodeRemote, "linkedin initializeUpload answered without uploadUrl and image")
	}
	if _, err := c.do(ctx, http.MethodPut, upload.Value.UploadURL, mimeType, data, false); err != nil {
		return "", fmt.Errorf("upload image to linkedin: %w", err)
	}
	return upload.Value.Image, nil
}

// littleReserved are the characters LinkedIn's "little" text format (used by
// commentary) reserves; they must be backslash-escaped to appear literally.
var littleReserved = strings.NewReplacer(
	`\`, `\\`, `|`, `\|`, `{`, `\{`, `}`, `\}`, `@`, `\@`, `[`, `\[`, `]`, `\]`,
	`(`, `\(`, `)`, `\)`, `<`, `\<`, `>`, `\>`, `#`, `\#`, `*`, `\*`, `_`, `\_`, `~`, `\~`,
)

// EscapeCommentary escapes text for the Posts API commentary field, so that
// hashtags, mentions and brackets appear as written.
func EscapeCommentary(text string) string { return littleReserved.Replace(text) }

func (d *Destination) api(creds map[string]string) api {
	d.mu.RLock()
	base, ver := d.baseURL, d.version
	d.mu.RUnlock()
	if b := creds["base_url"]; b != "" {
		base = b
	}
	return api{http: d.client, base: strings.TrimRight(base, "/"), version: ver, token: creds["token"]}
}

type api struct {
	http    *http.Client
	base    string
	version string
	token   string
}

type response struct {
	Header http.Header
	Body   []byte
}

// do sends body (JSON-encoded unless it is []byte) with the Bearer token;
// rest adds the versioned-API headers. LinkedIn errors look like
// {"status":401,"serviceErrorCode":65600,"code":"REVOKED_ACCESS_TOKEN","message":"…"}.
func (a api) do(ctx context.Context, method, rawURL, contentType string, body any, rest bool) (response, error) {
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return response{}, sdk.Errorf(sdk.CodeInvalidArgument, "encode linkedin request: %v", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, bytes.NewReader(raw))
	if err != nil {
		return response{}, sdk.Errorf(sdk.CodeInvalidArgument, "build linkedin request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", contentType)
	if rest {
		req.Header.Set("LinkedIn-Version", a.version)
		req.Header.Set("X-Restli-Protocol-Version", "2.0.0")
	}
	header, answer, err := sdk.Exchange(a.http, req, "linkedin")
	if err != nil {
		return response{}, sdk.CredentialsRefused(err, "LinkedIn refused the token (check that it is valid and grants w_member_social for the author)")
	}
	return response{Header: header, Body: answer}, nil
}

// CheckConnection asks LinkedIn's OpenID userinfo endpoint (GET
// /v2/userinfo) whom the token belongs to.
func (d *Destination) CheckConnection(ctx context.Context, req sdk.CheckConnectionRequest) (sdk.CheckConnectionResult, error) {
	if strings.TrimSpace(req.Credentials["token"]) == "" {
		return sdk.CheckConnectionResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "credentials.token is required")
	}
	c := d.api(req.Credentials)
	resp, err := c.do(ctx, http.MethodGet, c.base+"/v2/userinfo", "application/json", []byte(nil), false)
	if err != nil {
		return sdk.CheckConnectionResult{}, err
	}
	var me struct {
		Name  string `json:"name"`
		Email string `json:"email"`
		Sub   string `json:"sub"`
	}
	_ = json.Unmarshal(resp.Body, &me)
	account := me.Name
	if account == "" {
		account = me.Email
	}
	if account == "" && me.Sub != "" {
		account = "urn:li:person:" + me.Sub
	}
	return sdk.CheckConnectionResult{Account: account}, nil
}

// Interface guards.
var (
	_ sdk.Destination = (*Destination)(nil)
	_ sdk.Configurer  = (*Destination)(nil)

	_ sdk.ConnectionChecker = (*Destination)(nil)
)
