package destination

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// ExportCredentials returns the credentials a new post to dest will use, for
// the plugin's Validate: a saved webhook's url and secret for webhook, the
// stored connection otherwise (empty when there is none). It checks
// webhookId as SPEC requires; its errors are API errors.
func (s *Service) ExportCredentials(ctx context.Context, workspace, dest string, webhookID *string) (map[string]string, error) {
	if dest == WebhookDestination {
		if webhookID == nil || strings.TrimSpace(*webhookID) == "" {
			return nil, apierr.Invalid("webhookId is required when exportTo is webhook: save one with POST /v1/webhooks")
		}
		creds, err := s.webhookCredentials(ctx, workspace, *webhookID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, apierr.Invalid("webhookId %q is not a saved webhook of this workspace", *webhookID)
		}
		return creds, err
	}
	if webhookID != nil && *webhookID != "" {
		return nil, apierr.Invalid("webhookId is only used when exportTo is webhook")
	}
	creds, err := s.connectionCredentials(ctx, workspace, dest)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]string{}, nil
	}
	return creds, err
}

// ErrNoWebhook: an export to webhook whose schedule names no webhook.
var ErrNoWebhook = errors.New("the schedule names no webhook")

// Credentials returns the opened credentials of an export to dest: the
// saved webhook's url and secret for webhook, the stored connection's
// otherwise. Errors: ErrNoSecretKey (checked first), ErrNoWebhook,
// store.ErrNotFound for a webhook or connection that is gone.
func (s *Service) Credentials(ctx context.Context, workspace, dest string, webhookID *string) (map[string]string, error) {
	if s.sealer == nil {
		return nil, ErrNoSecretKey
	}
	if dest == WebhookDestination {
		if webhookID == nil {
			return nil, ErrNoWebhook
		}
		return s.webhookCredentials(ctx, workspace, *webhookID)
	}
	return s.connectionCredentials(ctx, workspace, dest)
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
	c, err := s.store.GetConnection(ctx, workspace, dest)
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
