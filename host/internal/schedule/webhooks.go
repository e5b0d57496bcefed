package schedule

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
)

// WebhookService: saved webhook endpoints and their signing secrets.

// CreateWebhook saves an endpoint with a new signing secret and returns
// the webhook and the secret, which is never shown again.
func (s *Service) CreateWebhook(ctx context.Context, rawURL, name string) (store.Webhook, string, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return store.Webhook{}, "", err
	}
	rawURL = strings.TrimSpace(rawURL)
	if rawURL == "" {
		return store.Webhook{}, "", apierr.Invalid("url is required")
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return store.Webhook{}, "", apierr.Invalid("url must be an http(s) URL")
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return store.Webhook{}, "", err
	}
	key := make([]byte, 32)
	rand.Read(key)
	secret := WebhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
	if name = strings.TrimSpace(name); name == "" {
		name = u.Host
	}
	if err := s.quota.Name("name", name); err != nil {
		return store.Webhook{}, "", err
	}
	if err := s.quota.Room(ctx, store.CountWebhooks, p.WorkspaceID); err != nil {
		return store.Webhook{}, "", err
	}
	w := store.Webhook{ID: store.NewID(), WorkspaceID: p.WorkspaceID, Name: name, DisplayURL: store.MaskWebhookURL(rawURL)}
	plain, _ := json.Marshal(map[string]string{"url": rawURL, "secret": secret})
	w.Sealed = sealer.Seal(plain, webhookAAD(p.WorkspaceID, w.ID))
	if err := s.store.CreateWebhook(ctx, &w); err != nil {
		return store.Webhook{}, "", err
	}
	return w, secret, nil
}

// ListWebhooks returns the workspace's saved webhooks, without secrets.
func (s *Service) ListWebhooks(ctx context.Context) ([]store.Webhook, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	return s.store.ListWebhooks(ctx, p.WorkspaceID)
}

// DeleteWebhook deletes a saved webhook; pending schedules that name it
// fail at export with a reason saying so.
func (s *Service) DeleteWebhook(ctx context.Context, id string) error {
	p, err := s.caller(ctx)
	if err != nil {
		return err
	}
	if err := s.store.DeleteWebhook(ctx, p.WorkspaceID, id); errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("webhook %s not found", id)
	} else if err != nil {
		return err
	}
	return nil
}
