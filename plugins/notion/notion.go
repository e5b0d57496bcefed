// Package notion is Herald's first-party Notion destination. It creates a
// page (POST /v1/pages) under a parent page or in a database, with the
// content converted to blocks: "#", "##" and "###" lines become headings,
// "- " and "* " lines bulleted list items, other lines paragraphs. It keeps
// to Notion's request limits: at most 100 children per request (the rest
// are appended with PATCH /v1/blocks/{page_id}/children) and at most 2,000
// characters per rich-text item. An image whose bytes the host sent is
// uploaded first through the File Upload API (POST /v1/file_uploads, then
// the bytes to /v1/file_uploads/{id}/send) and placed as the page's first
// block, captioned with its alt text.
package notion

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
	"unicode/utf8"

	"github.com/heraldhq/herald/sdk"
)

// Defaults and the environment variable that overrides the API base URL.
const (
	DefaultBaseURL = "https://api.notion.com"
	BaseURLEnv     = "NOTION_API_BASE_URL"
	// Version is the Notion-Version header sent with every request.
	Version = "2022-06-28"
	// MaxChildren is the most blocks one request may carry.
	MaxChildren = 100
	// MaxRichText is the most characters of one rich-text item.
	MaxRichText = 2000
	// maxRichTextItems is the most rich-text items of one block.
	maxRichTextItems = 100
)

// Destination creates Notion pages.
type Destination struct {
	client *http.Client

	mu      sync.RWMutex
	baseURL string
}

// New returns the Notion destination, reading its base URL from the
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
	Name:         "notion",
	DisplayName:  "Notion",
	RequiredKeys: []string{"title"},
	OptionalKeys: []string{"content", "text", "parentPageId", "databaseId", "titleProperty"},
	Credentials: []sdk.Field{
		{Name: "token", Label: "Integration token", Secret: true, Required: true, Description: "internal integration secret; share the parent page or database with the integration"},
		{Name: "parent_page_id", Label: "Default parent page id", Description: "used when contentToExport has neither parentPageId nor databaseId"},
		{Name: "database_id", Label: "Default database id"},
		{Name: "base_url", Label: "API base URL", Description: "defaults to " + DefaultBaseURL},
	},
}

// Info describes the destination.
func (d *Destination) Info(context.Context) (sdk.DestinationInfo, error) { return info, nil }

// Configure accepts base_url.
func (d *Destination) Configure(_ context.Context, settings map[string]string) error {
	for k, v := range settings {
		if k != "base_url" {
			return sdk.Errorf(sdk.CodeInvalidArgument, "notion has no setting %q", k)
		}
		if !isHTTPURL(v) {
			return sdk.Errorf(sdk.CodeInvalidArgument, "notion setting base_url must be an http(s) URL")
		}
		d.mu.Lock()
		d.baseURL = v
		d.mu.Unlock()
	}
	return nil
}

func isHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

var notionID = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// parent returns the parent object of the new page.
func parent(req sdk.ValidateRequest) (kind, id string) {
	switch {
	case req.Content.String("databaseId") != "":
		return "database_id", req.Content.String("databaseId")
	case req.Content.String("parentPageId") != "":
		return "page_id", req.Content.String("parentPageId")
	case req.Credentials["database_id"] != "":
		return "database_id", req.Credentials["database_id"]
	case req.Credentials["parent_page_id"] != "":
		return "page_id", req.Credentials["parent_page_id"]
	}
	return "", ""
}

// Validate checks the payload and credentials.
func (d *Destination) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	problems := sdk.CheckRequired(info, req.Content, req.Credentials)
	switch kind, id := parent(req); {
	case kind == "":
		problems = append(problems, sdk.Problem{Key: "parentPageId", Message: "notion needs a parent: contentToExport.parentPageId or databaseId, or a default in the credentials"})
	case !notionID.MatchString(id):
		problems = append(problems, sdk.Problem{Key: "parentPageId", Message: fmt.Sprintf("%s %q is not a Notion id", kind, id)})
	}
	if raw := req.Credentials["base_url"]; raw != "" && !isHTTPURL(raw) {
		problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("base_url"), Message: "base_url must be an http(s) URL"})
	}
	return problems, nil
}

// Export creates the page with the first 100 blocks and appends the rest in
// batches of 100. Notion has no idempotency key; if an append fails the
// page exists with part of its content, and the error names it.
func (d *Destination) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	vreq := sdk.ValidateRequest{Content: req.Content, Credentials: req.Credentials}
	problems, _ := d.Validate(ctx, vreq)
	if err := sdk.ProblemsError(problems); err != nil {
		return sdk.ExportResult{}, err
	}
	c := d.api(req.Credentials)
	kind, parentID := parent(vreq)

	titleProperty := "title"
	if kind == "database_id" {
		titleProperty = req.Content.String("titleProperty")
		if titleProperty == "" {
			titleProperty = "Name"
		}
	}
	body := req.Content.String("content")
	if body == "" {
		body = req.Content.String("text")
	}
	var blocks []block
	img, err := c.imageBlock(ctx, req)
	if err != nil {
		return sdk.ExportResult{}, err
	}
	if img != nil {
		blocks = append(blocks, img)
	}
	blocks = append(blocks, Blocks(body)...)

	first := blocks[:min(len(blocks), MaxChildren)]
	page := map[string]any{
		"parent":     map[string]any{kind: parentID},
		"properties": map[string]any{titleProperty: map[string]any{"title": richText(req.Content.String("title"))}},
		"children":   first,
	}
	var created struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/pages", page, &created); err != nil {
		return sdk.ExportResult{}, err
	}
	for rest := blocks[len(first):]; len(rest) > 0; {
		n := min(len(rest), MaxChildren)
		if err := c.do(ctx, http.MethodPatch, "/v1/blocks/"+created.ID+"/children", map[string]any{"children": rest[:n]}, nil); err != nil {
			return sdk.ExportResult{}, fmt.Errorf("notion page %s was created but not all of its content was appended: %w", created.ID, err)
		}
		rest = rest[n:]
	}
	return sdk.ExportResult{ExternalID: created.ID, ExternalURL: created.URL}, nil
}

// block is one Notion block object.
type block = map[string]any

// lineTypes maps line prefixes to block types.
var lineTypes = []struct{ prefix, typ string }{
	{"# ", "heading_1"}, {"## ", "heading_2"}, {"### ", "heading_3"},
	{"- ", "bulleted_list_item"}, {"* ", "bulleted_list_item"},
}

// Blocks converts markdown-ish text to Notion blocks: one block per
// non-empty line; "# ", "## " and "### " start headings, "- " and "* "
// bulleted list items. Long lines are split into rich-text items of at most
// 2,000 characters and, past 100 items, into further blocks of the same type.
func Blocks(text string) []block {
	var out []block
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimRight(line, " \t")
		if strings.TrimSpace(line) == "" {
			continue
		}
		typ := "paragraph"
		for _, m := range lineTypes {
			if strings.HasPrefix(line, m.prefix) {
				typ, line = m.typ, strings.TrimSpace(line[len(m.prefix):])
				break
			}
		}
		rt := richText(line)
		for len(rt) > 0 {
			n := min(len(rt), maxRichTextItems)
			out = append(out, block{"object": "block", "type": typ, typ: map[string]any{"rich_text": rt[:n]}})
			rt = rt[n:]
		}
	}
	return out
}

// richText splits s into text items of at most MaxRichText characters
// (Unicode code points, never splitting one).
func richText(s string) []map[string]any {
	var out []map[string]any
	for s != "" {
		cut := len(s)
		if utf8.RuneCountInString(s) > MaxRichText {
			cut = 0
			for i := 0; i < MaxRichText; i++ {
				_, size := utf8.DecodeRuneInString(s[cut:])
				cut += size
			}
		}
		out = append(out, map[string]any{"type": "text", "text": map[string]any{"content": s[:cut]}})
		s = s[cut:]
	}
	return out
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

// do sends a JSON request and decodes the answer into out (when non-nil).
// Notion errors look like {"object":"error","status":429,"code":"rate_limited","message":"…"}.
func (a api) do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return sdk.Errorf(sdk.CodeInvalidArgument, "encode notion request: %v", err)
		}
	}
	return a.send(ctx, method, path, "application/json", body, out)
}

// send sends body of contentType (none when body is nil) with the token
// and the Notion-Version header, and decodes the answer into out.
func (a api) send(ctx context.Context, method, path, contentType string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return sdk.Errorf(sdk.CodeInvalidArgument, "build notion request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Notion-Version", Version)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	return sdk.CredentialsRefused(sdk.ExchangeJSON(a.http, req, "notion", out), "Notion refused the token (check the integration token and that the parent page is shared with the integration)")
}

// CheckConnection asks Notion which bot the token belongs to (GET
// /v1/users/me).
func (d *Destination) CheckConnection(ctx context.Context, req sdk.CheckConnectionRequest) (sdk.CheckConnectionResult, error) {
	if strings.TrimSpace(req.Credentials["token"]) == "" {
		return sdk.CheckConnectionResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "credentials.token is required")
	}
	if raw := req.Credentials["base_url"]; raw != "" && !isHTTPURL(raw) {
		return sdk.CheckConnectionResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "credentials.base_url must be an http(s) URL")
	}
	var me struct {
		Name string `json:"name"`
		Bot  struct {
			WorkspaceName string `json:"workspace_name"`
		} `json:"bot"`
	}
	if err := d.api(req.Credentials).do(ctx, http.MethodGet, "/v1/users/me", nil, &me); err != nil {
		return sdk.CheckConnectionResult{}, err
	}
	account := me.Name
	if me.Bot.WorkspaceName != "" {
		account = strings.TrimSpace(account + " (" + me.Bot.WorkspaceName + ")")
	}
	return sdk.CheckConnectionResult{Account: account}, nil
}

// Interface guards.
var (
	_ sdk.Destination = (*Destination)(nil)
	_ sdk.Configurer  = (*Destination)(nil)

	_ sdk.ConnectionChecker = (*Destination)(nil)
)
