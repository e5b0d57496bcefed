package destination

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
)

// WebhookService: saved webhook endpoints and their signing secrets.

// Webhook is a saved webhook endpoint, without its secret.
type Webhook struct {
	ID   string
	Name string
	// DisplayURL is the URL masked by MaskWebhookURL; the full URL is only
	// in the sealed credentials.
	DisplayURL string
	CreatedAt  int64
}

func webhookFromStore(w store.Webhook) Webhook {
	return Webhook{ID: w.ID, Name: w.Name, DisplayURL: w.DisplayURL, CreatedAt: w.CreatedAt}
}

// NewWebhook is an endpoint to save (POST /v1/webhooks).
type NewWebhook struct {
	URL string
	// Name defaults to the URL's host.
	Name string
}

// validate checks the URL, trims both fields and defaults Name.
func (in *NewWebhook) validate() error {
	in.URL = strings.TrimSpace(in.URL)
	if in.URL == "" {
		return apierr.Invalid("url is required")
	}
	u, err := ParseWebhookURL(in.URL)
	if err != nil {
		return err
	}
	if in.Name = strings.TrimSpace(in.Name); in.Name == "" {
		in.Name = u.Host
	}
	return nil
}

// CreateWebhook saves an endpoint with a new signing secret and returns
// the webhook and the secret, which is never shown again.
func (s *Service) CreateWebhook(ctx context.Context, p auth.Principal, in NewWebhook) (Webhook, string, error) {
	if err := s.allow(p); err != nil {
		return Webhook{}, "", err
	}
	if err := in.validate(); err != nil {
		return Webhook{}, "", err
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return Webhook{}, "", err
	}
	key := make([]byte, 32)
	rand.Read(key)
	secret := WebhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
	if err := s.quota.Name("name", in.Name); err != nil {
		return Webhook{}, "", err
	}
	if err := s.quota.Room(ctx, store.CountWebhooks, p.WorkspaceID); err != nil {
		return Webhook{}, "", err
	}
	w := store.Webhook{ID: store.NewID(), WorkspaceID: p.WorkspaceID, Name: in.Name, DisplayURL: MaskWebhookURL(in.URL)}
	plain, _ := json.Marshal(map[string]string{"url": in.URL, "secret": secret})
	w.Sealed = sealer.Seal(plain, webhookAAD(p.WorkspaceID, w.ID))
	if err := s.store.CreateWebhook(ctx, &w, s.quota.Cap(store.CountWebhooks)); err != nil {
		return Webhook{}, "", quota.Err(err)
	}
	return webhookFromStore(w), secret, nil
}

// ListWebhooks returns the workspace's saved webhooks, without secrets.
func (s *Service) ListWebhooks(ctx context.Context, p auth.Principal) ([]Webhook, error) {
	if err := s.allow(p); err != nil {
		return nil, err
	}
	rows, err := s.store.ListWebhooks(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	list := make([]Webhook, len(rows))
	for i, w := range rows {
		list[i] = webhookFromStore(w)
	}
	return list, nil
}

// DeletedWebhookReason is the lastError of the pending posts that a forced
// delete of their saved webhook fails.
func DeletedWebhookReason(id string) string { return "the saved webhook " + id + " was deleted" }

// DeleteWebhook deletes a saved webhook. While pending posts (waiting or
// retrying) use it, the delete is refused with a 409 listing them, unless
// force: then the webhook is deleted and those posts fail at once with
// DeletedWebhookReason, in one transaction. It returns the ids of the
// posts it failed.
func (s *Service) DeleteWebhook(ctx context.Context, p auth.Principal, id string, force bool) ([]string, error) {
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
	ids := make([]string, len(failed))
	for i, sc := range failed {
		ids[i] = sc.ID
	}
	return ids, nil
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
