package destination

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
)

// WebhookSecretPrefix starts every webhook signing secret (Standard Webhooks).
const WebhookSecretPrefix = "whsec_"

// connectionAAD binds a sealed connection to its workspace and destination.
func connectionAAD(workspace, dest string) string { return "connection|" + workspace + "|" + dest }

// webhookAAD binds a sealed webhook to its workspace and id.
func webhookAAD(workspace, id string) string { return "webhook|" + workspace + "|" + id }

// sealerOrError returns the sealer, or the 503 that says why credentials
// cannot be stored or read.
func (s *Service) sealerOrError() (*Sealer, error) {
	if s.sealer == nil {
		return nil, apierr.Unavailable("%s", ErrNoSecretKey.Error())
	}
	return s.sealer, nil
}

// Export names the credentials of one export: the workspace's connection
// to Destination, or for the webhook destination its saved webhook
// WebhookID.
type Export struct {
	Workspace   string
	Destination string
	WebhookID   *string
}

// validate checks webhookId as SPEC requires for a new post.
func (e Export) validate() error {
	if e.Destination == WebhookDestination {
		if e.WebhookID == nil || strings.TrimSpace(*e.WebhookID) == "" {
			return apierr.Invalid("webhookId is required when exportTo is webhook: save one with POST /v1/webhooks")
		}
		return nil
	}
	if e.WebhookID != nil && *e.WebhookID != "" {
		return apierr.Invalid("webhookId is only used when exportTo is webhook")
	}
	return nil
}

// ExportCredentials returns the credentials a new post will use, for the
// plugin's Validate: a saved webhook's url and secret for webhook, the
// stored connection otherwise (empty when there is none). Its errors are
// API errors.
func (s *Service) ExportCredentials(ctx context.Context, e Export) (map[string]string, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	if e.Destination == WebhookDestination {
		creds, err := s.webhookCredentials(ctx, e.Workspace, *e.WebhookID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, apierr.Invalid("webhookId %q is not a saved webhook of this workspace", *e.WebhookID)
		}
		return creds, err
	}
	creds, err := s.connectionCredentials(ctx, e.Workspace, e.Destination)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]string{}, nil
	}
	return creds, err
}

// ErrNoWebhook: an export to webhook whose schedule names no webhook.
var ErrNoWebhook = errors.New("the schedule names no webhook")

// Credentials returns the opened credentials of an export: the saved
// webhook's url and secret for webhook, the stored connection's otherwise.
// Errors: ErrNoSecretKey (checked first), ErrNoWebhook, store.ErrNotFound
// for a webhook or connection that is gone.
func (s *Service) Credentials(ctx context.Context, e Export) (map[string]string, error) {
	if s.sealer == nil {
		return nil, ErrNoSecretKey
	}
	if e.Destination == WebhookDestination {
		if e.WebhookID == nil {
			return nil, ErrNoWebhook
		}
		return s.webhookCredentials(ctx, e.Workspace, *e.WebhookID)
	}
	return s.connectionCredentials(ctx, e.Workspace, e.Destination)
}

func (s *Service) webhookCredentials(ctx context.Context, workspace, id string) (map[string]string, error) {
	w, err := s.store.GetWebhook(ctx, workspace, id)
	if err != nil {
		return nil, err
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return nil, err
	}
	return openCredentials(sealer, w.Sealed, webhookAAD(workspace, id))
}

func (s *Service) connectionCredentials(ctx context.Context, workspace, dest string) (map[string]string, error) {
	c, err := destinationstore.New(s.store).GetConnection(ctx, workspace, dest)
	if err != nil {
		return nil, err
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return nil, err
	}
	return openCredentials(sealer, c.Sealed, connectionAAD(workspace, dest))
}

func openCredentials(sealer *Sealer, sealed, aad string) (map[string]string, error) {
	plain, err := sealer.Open(sealed, aad)
	if err != nil {
		return nil, err
	}
	var creds map[string]string
	if err := json.Unmarshal(plain, &creds); err != nil {
		return nil, fmt.Errorf("open credentials: %w", err)
	}
	return creds, nil
}
