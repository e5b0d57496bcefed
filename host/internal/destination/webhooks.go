package destination

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
)

// WebhookService: saved webhook endpoints and their signing secrets.

// CreateWebhook saves an endpoint with a new signing secret and returns
// the webhook and the secret, which is never shown again.
func (s *Service) CreateWebhook(ctx context.Context, p auth.Principal, rawURL, name string) (store.Webhook, string, error) {
	if err := s.allow(p); err != nil {
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
	w := store.Webhook{ID: store.NewID(), WorkspaceID: p.WorkspaceID, Name: name, DisplayURL: MaskWebhookURL(rawURL)}
	plain, _ := json.Marshal(map[string]string{"url": rawURL, "secret": secret})
	w.Sealed = sealer.Seal(plain, webhookAAD(p.WorkspaceID, w.ID))
	if err := s.store.CreateWebhook(ctx, &w, s.quota.Cap(store.CountWebhooks)); err != nil {
		return store.Webhook{}, "", quota.Err(err)
	}
	return w, secret, nil
}

// ListWebhooks returns the workspace's saved webhooks, without secrets.
func (s *Service) ListWebhooks(ctx context.Context, p auth.Principal) ([]store.Webhook, error) {
	if err := s.allow(p); err != nil {
		return nil, err
	}
	return s.store.ListWebhooks(ctx, p.WorkspaceID)
}

// DeletedWebhookReason is the lastError of the pending posts that a forced
// delete of their saved webhook fails.
func DeletedWebhookReason(id string) string { return "the saved webhook " + id + " was deleted" }

// DeleteWebhook deletes a saved webhook. While pending posts (waiting or
// retrying) use it, the delete is refused with a 409 listing them, unless
// force: then the webhook is deleted and those posts fail at once with
// DeletedWebhookReason, in one transaction. It returns the posts it failed.
func (s *Service) DeleteWebhook(ctx context.Context, p auth.Principal, id string, force bool) ([]store.Schedule, error) {
	if err := s.allow(p); err != nil {
		return nil, err
	}
	failed, err := s.store.DeleteWebhook(ctx, p.WorkspaceID, id, force, DeletedWebhookReason(id))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, apierr.NotFound("webhook %s not found", id)
	case errors.Is(err, store.ErrWebhookInUse):
		return nil, inUse(id, failed)
	case err != nil:
		return nil, err
	}
	return failed, nil
}

// inUse is the 409 of a delete refused because pending posts use the
// webhook; its body lists them (id and whenToExport).
func inUse(id string, posts []store.Schedule) error {
	list := make([]any, len(posts))
	for i, sc := range posts {
		post := map[string]any{"id": sc.ID, "whenToExport": nil}
		if sc.WhenToExport != nil {
			post["whenToExport"] = time.UnixMilli(*sc.WhenToExport).UTC().Format("2006-01-02T15:04:05.000Z07:00")
		}
		list[i] = post
	}
	return apierr.WithValues(apierr.Conflict("webhook %s is used by %d pending post(s): cancel them, or delete with ?force=true to fail them", id, len(posts)),
		map[string]any{"schedules": list})
}
