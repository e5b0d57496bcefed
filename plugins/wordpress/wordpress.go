// Package wordpress is Herald's first-party WordPress destination. It uses
// the WordPress REST API v2 with an application password (HTTP Basic auth):
// when the schedule has an image it uploads it first (POST
// /wp-json/wp/v2/media with Content-Disposition), then creates the post
// (POST /wp-json/wp/v2/posts) with title, content, slug, status and
// featured_media.
package wordpress

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/netip"
	"net/textproto"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// Destination publishes posts to a WordPress site.
type Destination struct {
	client *http.Client
}

// New returns the WordPress destination. It reaches only public addresses
// (sites and images), except the CIDRs in HERALD_ALLOWED_PRIVATE_CIDRS.
func New() *Destination { return newDestination(sdk.AllowedPrivateCIDRs()) }

func newDestination(allowed []netip.Prefix) *Destination {
	return &Destination{client: sdk.GuardedHTTPClient(60*time.Second, allowed)}
}

var info = sdk.DestinationInfo{
	Name:         "wordpress",
	DisplayName:  "WordPress",
	RequiredKeys: []string{"title", "content"},
	OptionalKeys: []string{"slug", "status", "excerpt"},
	Credentials: []sdk.Field{
		{Name: "site_url", Label: "Site URL", Required: true, Description: "https://example.com (the REST API lives under /wp-json)"},
		{Name: "username", Label: "Username", Required: true},
		{Name: "application_password", Label: "Application password", Secret: true, Required: true, Description: "Users → Profile → Application Passwords"},
	},
}

// statuses are the post statuses WordPress accepts on create.
var statuses = map[string]bool{"publish": true, "future": true, "draft": true, "pending": true, "private": true}

// Info describes the destination.
func (d *Destination) Info(context.Context) (sdk.DestinationInfo, error) { return info, nil }

// Validate checks the payload and credentials.
func (d *Destination) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	problems := sdk.CheckRequired(info, req.Content, req.Credentials)
	if raw := req.Credentials["site_url"]; raw != "" {
		if _, err := siteURL(raw); err != nil {
			problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("site_url"), Message: err.Error()})
		}
	}
	if s := req.Content.String("status"); s != "" && !statuses[s] {
		problems = append(problems, sdk.Problem{Key: "status", Message: fmt.Sprintf("status %q is not one of publish, future, draft, pending, private", s)})
	}
	return problems, nil
}

func siteURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("site_url must be an http(s) URL")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Export uploads the image, if any, then creates the post. WordPress has no
// idempotency key; a repeated export creates a second post.
func (d *Destination) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	problems, _ := d.Validate(ctx, sdk.ValidateRequest{Content: req.Content, Credentials: req.Credentials})
	if err := sdk.ProblemsError(problems); err != nil {
		return sdk.ExportResult{}, err
	}
	site, _ := siteURL(req.Credentials["site_url"])
	c := client{http: d.client, site: site, user: req.Credentials["username"], password: req.Credentials["application_password"]}

	post := map[string]any{
		"title":   req.Content.String("title"),
		"content": req.Content.String("content"),
		"status":  "publish",
	}
	if s := req.Content.String("status"); s != "" {
		post["status"] = s
	}
	if s := req.Content.String("slug"); s != "" {
		post["slug"] = s
	}
	if s := req.Content.String("excerpt"); s != "" {
		post["excerpt"] = s
	}

	data, mimeType, fileName, err := req.Image(ctx, d.client)
	if err != nil {
		return sdk.ExportResult{}, fmt.Errorf("fetch image for wordpress: %w", err)
	}
	if data != nil {
		id, err := c.uploadMedia(ctx, data, mimeType, fileName, req.ImageAlt)
		if err != nil {
			return sdk.ExportResult{}, err
		}
		post["featured_media"] = id
	}

	body, err := json.Marshal(post)
	if err != nil {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "encode wordpress post: %v", err)
	}
	var created struct {
		ID   int64  `json:"id"`
		Link string `json:"link"`
	}
	if err := c.do(ctx, http.MethodPost, "/wp-json/wp/v2/posts", http.Header{"Content-Type": {"application/json"}}, body, &created); err != nil {
		return sdk.ExportResult{}, err
	}
	return sdk.ExportResult{ExternalID: strconv.FormatInt(created.ID, 10), ExternalURL: created.Link}, nil
}

// uploadMedia creates a media item from the image bytes: a multipart/form-data
// POST whose file part carries the file name and type, with the media
// title (the file name without its extension) and alt_text as fields, so
// the library shows a meaningful name and the image is described.
func (c client) uploadMedia(ctx context.Context, data []byte, mimeType, fileName, alt string) (int64, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreatePart(textproto.MIMEHeader{
		"Content-Disposition": {mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": fileName})},
		"Content-Type":        {mimeType},
	})
	if err != nil {
		return 0, sdk.Errorf(sdk.CodeInternal, "build wordpress media upload: %v", err)
	}
	part.Write(data)
	w.WriteField("title", strings.TrimSuffix(fileName, path.Ext(fileName)))
	if alt != "" {
		w.WriteField("alt_text", alt)
	}
	if err := w.Close(); err != nil {
		return 0, sdk.Errorf(sdk.CodeInternal, "build wordpress media upload: %v", err)
	}
	var media struct {
		ID int64 `json:"id"`
	}
	if err := c.do(ctx, http.MethodPost, "/wp-json/wp/v2/media", http.Header{"Content-Type": {w.FormDataContentType()}}, body.Bytes(), &media); err != nil {
		return 0, err
	}
	return media.ID, nil
}

// Delete moves an exported post to the trash.
func (d *Destination) Delete(ctx context.Context, req sdk.DeleteRequest) error {
	site, err := siteURL(req.Credentials["site_url"])
	if err != nil {
		return sdk.Errorf(sdk.CodeInvalidArgument, "%v", err)
	}
	if _, err := strconv.ParseInt(req.ExternalID, 10, 64); err != nil {
		return sdk.Errorf(sdk.CodeInvalidArgument, "wordpress post id %q is not a number", req.ExternalID)
	}
	c := client{http: d.client, site: site, user: req.Credentials["username"], password: req.Credentials["application_password"]}
	return c.do(ctx, http.MethodDelete, "/wp-json/wp/v2/posts/"+req.ExternalID, nil, nil, nil)
}

// client is one site's REST API.
type client struct {
	http           *http.Client
	site           string
	user, password string
}

// do sends a request and decodes a JSON answer into out (when non-nil).
// WordPress errors look like {"code":"rest_cannot_create","message":"…","data":{"status":401}}.
func (c client) do(ctx context.Context, method, path string, header http.Header, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.site+path, bytes.NewReader(body))
	if err != nil {
		return sdk.Errorf(sdk.CodeInvalidArgument, "build wordpress request: %v", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(c.user, c.password)
	return sdk.CredentialsRefused(sdk.ExchangeJSON(c.http, req, "wordpress", out), refused)
}

// refused prefixes a 401/403 so the user knows which credentials to check.
const refused = "WordPress refused the username or application_password"

// CheckConnection asks WordPress who the credentials belong to (GET
// /wp-json/wp/v2/users/me), the cheapest call that needs them.
func (d *Destination) CheckConnection(ctx context.Context, req sdk.CheckConnectionRequest) (sdk.CheckConnectionResult, error) {
	site, err := siteURL(req.Credentials["site_url"])
	if err != nil {
		return sdk.CheckConnectionResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "credentials.site_url: %v", err)
	}
	c := client{http: d.client, site: site, user: req.Credentials["username"], password: req.Credentials["application_password"]}
	var me struct {
		Name string `json:"name"`
		Slug string `json:"slug"`
	}
	if err := c.do(ctx, http.MethodGet, "/wp-json/wp/v2/users/me", nil, nil, &me); err != nil {
		return sdk.CheckConnectionResult{}, err
	}
	return sdk.CheckConnectionResult{Account: firstNonEmpty(me.Name, me.Slug)}, nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Interface guards.
var (
	_ sdk.Destination = (*Destination)(nil)
	_ sdk.Deleter     = (*Destination)(nil)

	_ sdk.ConnectionChecker = (*Destination)(nil)
)
