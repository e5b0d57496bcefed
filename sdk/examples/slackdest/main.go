// Command slackdest is an example third-party Herald destination: it posts
// scheduled content to a Slack incoming webhook. It imports nothing of
// Herald but the SDK, as any third-party plugin would; name its executable
// in Herald's config to use it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/heraldhq/herald/sdk"
)

func main() {
	if err := sdk.ServeDestination(newSlack(nil)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// slack posts to a Slack incoming webhook.
type slack struct {
	client *http.Client
}

// newSlack returns the destination; a nil client means the SDK's guarded
// client, because webhook URLs are user-supplied: it dials only public
// addresses, except the private CIDRs the operator allows.
func newSlack(client *http.Client) *slack {
	if client == nil {
		client = sdk.GuardedHTTPClient(30*time.Second, sdk.AllowedPrivateCIDRs())
	}
	return &slack{client: client}
}

var info = sdk.DestinationInfo{
	Name:         "slack",
	DisplayName:  "Slack (incoming webhook)",
	RequiredKeys: []string{"text"},
	OptionalKeys: []string{"title"},
	Credentials: []sdk.Field{{
		Name: "webhook_url", Label: "Incoming webhook URL", Secret: true, Required: true,
		Description: "https://hooks.slack.com/services/…",
	}},
}

// Info describes the destination.
func (s *slack) Info(context.Context) (sdk.DestinationInfo, error) { return info, nil }

// Validate names missing keys and credentials and checks the URL.
func (s *slack) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	problems := sdk.CheckRequired(info, req.Content, req.Credentials)
	if raw := req.Credentials["webhook_url"]; raw != "" {
		if u, err := url.Parse(raw); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, sdk.Problem{Key: sdk.CredentialKey("webhook_url"), Message: "webhook_url must be an http(s) URL"})
		}
	}
	return problems, nil
}

// Export posts the schedule as one Slack message.
func (s *slack) Export(ctx context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	problems, _ := s.Validate(ctx, sdk.ValidateRequest{Content: req.Content, Credentials: req.Credentials})
	if err := sdk.ProblemsError(problems); err != nil {
		return sdk.ExportResult{}, err
	}
	text := req.Content.String("text")
	if title := req.Content.String("title"); title != "" {
		text = "*" + title + "*\n\n" + text
	}
	if req.ImageURL != "" {
		text += "\n" + req.ImageURL
	}
	body, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		return sdk.ExportResult{}, fmt.Errorf("encode slack message: %w", err)
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, req.Credentials["webhook_url"], bytes.NewReader(body))
	if err != nil {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeInvalidArgument, "webhook_url is not a valid URL")
	}
	httpReq.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(httpReq)
	if err != nil {
		return sdk.ExportResult{}, sdk.RequestError("slack", err)
	}
	defer resp.Body.Close()
	// Slack answers errors in plain text, for example "invalid_payload".
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return sdk.ExportResult{}, sdk.RemoteError("slack", resp.StatusCode, resp.Header, string(msg))
	}
	sdk.Logger().Info("posted to slack", "schedule", req.ScheduleID)
	// Incoming webhooks return no message id; the idempotency key stands in.
	return sdk.ExportResult{ExternalID: req.IdempotencyKey}, nil
}

var _ sdk.Destination = (*slack)(nil)
