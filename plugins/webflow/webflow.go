// Package webflow is Herald's first-party Webflow destination. It uses the
// Webflow Data API v2 with a site token (Bearer): it creates a CMS
// collection item (POST /v2/collections/{collection_id}/items, with
// fieldData.name and fieldData.slug) and then publishes it (POST
// /v2/collections/{collection_id}/items/publish with itemIds), unless the
// schedule asks for a draft. An image whose bytes the host sent is first
// uploaded to the site's assets (POST /v2/sites/{site_id}/assets with its
// file name and MD5, then the bytes to the returned upload URL) and the
// item's image field points at the hosted asset, with the alt text.
package webflow

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

// DefaultBaseURL is the Webflow API; BaseURLEnv, the base_url setting or
// the base_url credential override it (tests, proxies).
const (
	DefaultBaseURL = "https://api.webflow.com"
	BaseURLEnv     = "WEBFLOW_API_BASE_URL"
)

// Destination publishes CMS items to Webflow.
type Destination struct {
	client *http.Client

	mu      sync.RWMutex
	baseURL string
}

// New returns the Webflow destination, reading its base URL from the
// environment. Because the base_url credential is user-supplied, it
// reaches only public addresses, except the CIDRs in
// HERALD_ALLOWED_PRIVATE_CIDRS.
func New() *Destination { return newDestination(sdk.AllowedPrivateCIDRs()) }

func newDestination(allowed []netip.Prefix) *Destination {
	base := os.Getenv(BaseURLEnv)
	if base == "" {
		base = DefaultBaseURL
	}
	return &Destination{client: sdk.GuardedHTTPClient(60*time.Second, allowed), baseURL: base}
}

var info = sdk.DestinationInfo{
	Name:         "webflow",
	DisplayName:  "Webflow CMS",
	RequiredKeys: []string{"collectionId", "title"},
	OptionalKeys: []string{"slug", "content", "status", "contentField", "imageField", "fieldData", "siteId"},
	Credentials: []sdk.Field{
		{Name: "token", Label: "API token", Secret: true, Required: true, Description: "site token with the CMS:write scope"},
		{Name: "base_url", Label: "API base URL", Description: "defaults to " + DefaultBaseURL},
	},
}

// Info describes the destination.
func (d *Destination) Info(context.Context) (sdk.DestinationInfo, error) { return info, nil }

// Configure accepts base_url.
func (d *Destination) Configure(_ context.Context, settings map[string]string) error {
	for k, v := range settings {
		switch k {
		case "base_url":
			if err := checkBaseURL(v); err != nil {
				return sdk.Errorf(sdk.CodeInvalidArgument, "webflow setting base_url: %v", err)
			}
			d.mu.Lock()
			d.baseURL = v
			d.mu.Unlock()
		default:
			return sdk.Errorf(sdk.CodeInvalidArgument, "webflow has no setting %q", k)
		}
	}
	return nil
}

func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("must be an http(s) URL")
	}
	return nil
}

// objectID matches Webflow's 24-hex-digit ids.
var objectID = regexp.MustCompile(`^[0-9a-f]{24}$`)

// Validate checks the payload and credentials.
func (d *Destination) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	problems := sdk.CheckRequired(info, req.Content, req.Credentials)
	if id := req.Content.String("collectionId"); id != "" && !objectID.MatchString(id) {
		problems = append(problems, sdk.Problem{Key: "collectionId", Message: "collectionId must be a Webflow collection id (24 hex digits)"})
	}
	if _, ok := req.Content["fieldData"]; ok {
		if _, isObject := req.Content["fieldData"].(map[string]any); !isObject {
			problems = append(problems, sdk.Problem{Key: "fieldData", Message: "fieldData must be an object of Webflow field slugs to values"})
		}
	}
	if raw := req.Credentials["base_url"]; raw != "" {
		if err := checkBaseURL(raw); err != nil {
			problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("base_url"), Message: "base_url " + err.Error()})
		}
	}
	return problems, nil
}

// fieldData builds the item's fields: name and slug (from title when no
// slug is given), the content in contentField (default "post-body", the
// field of Webflow's blog template), the image in imageField (default
// "main-image") and, last, anything in fieldData.
func fieldData(req sdk.ExportRequest, image map[string]any) map[string]any {
	fields := map[string]any{"name": req.Content.String("title")}
	slug := req.Content.String("slug")
	if slug == "" {
		slug = Slugify(req.Content.String("title"))
	}
	fields["slug"] = slug
	if content := req.Content.String("content"); content != "" {
		field := req.Content.String("contentField")
		if field == "" {
			field = "post-body"
		}
		fields[field] = content
	}
	if image != nil {
		field := req.Content.String("imageField")
		if field == "" {
			field = "main-image"
		}
		fields[field] = image
	}
	if extra, ok := req.Content["fieldData"].(map[string]any); ok {
		for k, v := range extra {
			fields[k] = v
		}
	}
	return fields
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slugify turns a title into a Webflow slug: lowercase ASCII letters and
// digits separated by single hyphens, at most 256 characters.
func Slugify(title string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > 256 {
		s = strings.TrimRight(s[:256], "-")
	}
	return s
}

// Export creates the item and publishes it. Webflow has no idempotency key;
// a repeated export fails on the taken slug rather than duplicating the item.
func (d *Destination) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	problems, _ := d.Validate(ctx, sdk.ValidateRequest{Content: req.Content, Credentials: req.Credentials})
	if err := sdk.ProblemsError(problems); err != nil {
		return sdk.ExportResult{}, err
	}
	c := d.api(req.Credentials)
	collection := req.Content.String("collectionId")
	draft := req.Content.String("status") == "draft"

	image, err := c.image(ctx, req)
	if err != nil {
		return sdk.ExportResult{}, err
	}
	var item struct {
		ID string `json:"id"`
	}
	create := map[string]any{"isArchived": false, "isDraft": draft, "fieldData": fieldData(req, image)}
	if err := c.do(ctx, http.MethodPost, "/v2/collections/"+collection+"/items", create, &item); err != nil {
		return sdk.ExportResult{}, err
	}
	if item.ID == "" {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeRemote, "webflow created an item without an id")
	}
	if draft {
		return sdk.ExportResult{ExternalID: item.ID}, nil
	}
	var published struct {
		PublishedItemIDs []string `json:"publishedItemIds"`
		Errors           []string `json:"errors"`
	}
	if err := c.do(ctx, http.MethodPost, "/v2/collections/"+collection+"/items/publish", map[string]any{"itemIds": []string{item.ID}}, &published); err != nil {
		return sdk.ExportResult{}, fmt.Errorf("item %s was created but not published: %w", item.ID, err)
	}
	if len(published.Errors) > 0 {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeRemote, "webflow item %s was created but not published: %s", item.ID, strings.Join(published.Errors, "; "))
	}
	return sdk.ExportResult{ExternalID: item.ID}, nil
}

func (d *Destination) api(creds map[string]string) api {
	d.mu.RLock()
	base := d.baseURL
	d.mu.RUnlock()
	if b := creds["base_url"]; b != "" {
		base = b
	}
	return api{http: d.client, base: strings.TrimRight(base, "/"), token: creds["token"]}
}

type api struct {
	http  *http.Client
	base  string
	token string
}

// do sends a JSON body (none when in is nil) and decodes the JSON answer
// into out. Webflow errors look like
// {"code":"validation_error","message":"…","details":[…]}.
func (a api) do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return sdk.Errorf(sdk.CodeInvalidArgument, "encode webflow request: %v", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return sdk.Errorf(sdk.CodeInvalidArgument, "build webflow request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	return sdk.CredentialsRefused(sdk.ExchangeJSON(a.http, req, "webflow", out), "Webflow refused the token (check that it is valid and has the CMS:write and assets:write scopes)")
}

// CheckConnection asks Webflow whom the token was issued by (GET
// /v2/token/authorized_by).
func (d *Destination) CheckConnection(ctx context.Context, req sdk.CheckConnectionRequest) (sdk.CheckConnectionResult, error) {
	if strings.TrimSpace(req.Credentials["token"]) == "" {
		return sdk.CheckConnectionResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "credentials.token is required")
	}
	if raw := req.Credentials["base_url"]; raw != "" {
		if err := checkBaseURL(raw); err != nil {
			return sdk.CheckConnectionResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "credentials.base_url %v", err)
		}
	}
	var user struct {
		Email     string `json:"email"`
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
	}
	if err := d.api(req.Credentials).do(ctx, http.MethodGet, "/v2/token/authorized_by", nil, &user); err != nil {
		return sdk.CheckConnectionResult{}, err
	}
	account := strings.TrimSpace(user.FirstName + " " + user.LastName)
	if user.Email != "" {
		account = strings.TrimSpace(account + " <" + user.Email + ">")
	}
	return sdk.CheckConnectionResult{Account: account}, nil
}

// Interface guards.
var (
	_ sdk.Destination = (*Destination)(nil)
	_ sdk.Configurer  = (*Destination)(nil)

	_ sdk.ConnectionChecker = (*Destination)(nil)
)
