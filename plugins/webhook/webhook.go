// Package webhook is Herald's first-party webhook destination. It POSTs a
// schedule as JSON to a URL, signed as the Standard Webhooks specification
// says (https://www.standardwebhooks.com): the headers webhook-id (the
// schedule's idempotency key, so receivers can drop repeats),
// webhook-timestamp (Unix seconds) and webhook-signature ("v1," followed by
// the base64 HMAC-SHA256 of "id.timestamp.body", keyed with the
// base64-decoded part of a "whsec_" secret).
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/heraldhq/herald/sdk"
)

// EventType is the "type" of every payload this plugin sends.
const EventType = "schedule.export"

// Destination posts signed webhooks.
type Destination struct {
	client *http.Client
	now    func() time.Time
}

// New returns the webhook destination. It delivers only to public
// addresses, except the CIDRs in HERALD_ALLOWED_PRIVATE_CIDRS.
func New() *Destination { return newDestination(sdk.AllowedPrivateCIDRs()) }

func newDestination(allowed []netip.Prefix) *Destination {
	return &Destination{client: sdk.GuardedHTTPClient(30*time.Second, allowed), now: time.Now}
}

var info = sdk.DestinationInfo{
	Name:         "webhook",
	DisplayName:  "Webhook (Standard Webhooks)",
	OptionalKeys: []string{"title", "content", "text", "slug"},
	Credentials: []sdk.Field{
		{Name: "url", Label: "Endpoint URL", Secret: true, Required: true, Description: "http(s) URL that receives the POST; may embed a token, so it is kept secret"},
		{Name: "secret", Label: "Signing secret", Secret: true, Required: true, Description: "whsec_ followed by base64 key bytes"},
	},
	// The idempotency key is the webhook-id, on which Standard Webhooks
	// receivers must deduplicate: a repeated export is processed once.
	Idempotent: true,
}

// Info describes the destination.
func (d *Destination) Info(context.Context) (sdk.DestinationInfo, error) { return info, nil }

// Validate checks the endpoint URL and the secret's format.
func (d *Destination) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	problems := sdk.CheckRequired(info, req.Content, req.Credentials)
	if raw := req.Credentials["url"]; raw != "" {
		if u, err := url.Parse(raw); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("url"), Message: "url must be an http(s) URL"})
		}
	}
	if raw := req.Credentials["secret"]; raw != "" {
		if _, err := decodeSecret(raw); err != nil {
			problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("secret"), Message: err.Error()})
		}
	}
	return problems, nil
}

// decodeSecret returns the HMAC key of a "whsec_<base64>" secret.
func decodeSecret(secret string) ([]byte, error) { return sdk.DecodeWebhookSecret(secret) }

// Sign returns the webhook-signature header value for id, timestamp and
// body under secret ("whsec_…"), as Standard Webhooks defines it; it is
// sdk.SignWebhook, which Herald's event deliveries share.
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	return sdk.SignWebhook(secret, id, timestamp, body)
}

// payload is the JSON body: the Standard Webhooks envelope around the
// schedule.
type payload struct {
	Type      string      `json:"type"`
	Timestamp time.Time   `json:"timestamp"`
	Data      payloadData `json:"data"`
}

type payloadData struct {
	ScheduleID      string      `json:"scheduleId"`
	ContentToExport sdk.Content `json:"contentToExport"`
	ImageURL        string      `json:"imageUrl,omitempty"`
}

// Export posts the schedule. The webhook-id is the idempotency key, so a
// repeated export carries the same id and receivers can deduplicate.
func (d *Destination) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	problems, _ := d.Validate(ctx, sdk.ValidateRequest{Content: req.Content, Credentials: req.Credentials})
	if err := sdk.ProblemsError(problems); err != nil {
		return sdk.ExportResult{}, err
	}
	id := req.IdempotencyKey
	if id == "" {
		id = req.ScheduleID
	}
	now := d.now()
	body, err := json.Marshal(payload{
		Type: EventType, Timestamp: now.UTC(),
		Data: payloadData{ScheduleID: req.ScheduleID, ContentToExport: req.Content, ImageURL: req.ImageURL},
	})
	if err != nil {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "encode webhook payload: %v", err)
	}
	sig, err := Sign(req.Credentials["secret"], id, now.Unix(), body)
	if err != nil {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "sign webhook: %v", err)
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, req.Credentials["url"], bytes.NewReader(body))
	if err != nil {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "webhook url is not valid")
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("User-Agent", "Herald-Webhooks/1")
	httpReq.Header.Set("webhook-id", id)
	httpReq.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	httpReq.Header.Set("webhook-signature", sig)
	resp, err := d.client.Do(httpReq)
	if err != nil {
		return sdk.ExportResult{}, sdk.RequestError("webhook", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode/100 != 2 {
		return sdk.ExportResult{}, sdk.RemoteError("webhook endpoint", resp.StatusCode, resp.Header, string(msg))
	}
	return sdk.ExportResult{ExternalID: id}, nil
}

var _ sdk.Destination = (*Destination)(nil)
