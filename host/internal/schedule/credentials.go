package schedule

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
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

// exportCredentials returns the credentials an export to dest uses: a saved
// webhook's url and secret for webhook, the stored connection otherwise
// (empty when there is none). It checks webhookId as SPEC requires.
func (s *Service) exportCredentials(ctx context.Context, workspace, dest string, webhookID *string) (map[string]string, error) {
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

// DestinationView is a destination with the workspace's connection state.
type DestinationView struct {
	Info            sdk.DestinationInfo
	Connected       bool
	ConnectedFields []string
	ConnectedAt     int64
	ConnectWith     string
	// Check is the last check of a stored connection's credentials.
	Check store.ConnectionCheck
	// Err is set when the plugin could not describe itself.
	Err string
}

// ListDestinations describes every configured destination and whether the
// caller's workspace is connected to it.
func (s *Service) ListDestinations(ctx context.Context) ([]DestinationView, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	conns, err := s.store.ListConnections(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	hooks, err := s.store.ListWebhooks(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	out := []DestinationView{}
	for _, name := range s.destinationNames() {
		v := DestinationView{Info: sdk.DestinationInfo{Name: name}, ConnectWith: "PUT /v1/destinations/" + name + "/connection"}
		if info, err := s.dests.DestinationInfo(ctx, name); err != nil {
			s.log.Warn("destination info failed", "destination", name, "error", err)
			v.Err = "the plugin did not answer: " + sdk.AsError(err).Message
		} else {
			v.Info = info
		}
		if name == WebhookDestination {
			v.ConnectWith = "POST /v1/webhooks"
			v.Connected = len(hooks) > 0
			if v.Connected {
				v.ConnectedAt = hooks[len(hooks)-1].CreatedAt
			}
		} else if c, ok := conns[name]; ok {
			v.Connected, v.ConnectedFields, v.ConnectedAt, v.Check = true, c.Fields, c.UpdatedAt, c.Check
		}
		out = append(out, v)
	}
	return out, nil
}

// Connect stores the workspace's credentials for destination name, sealed.
// Unknown fields and missing required fields are a 400 naming them; so are
// the problems the plugin's Validate finds in the credentials. With verify,
// the credentials are first checked with the remote (checkConnection);
// nothing is stored when they fail.
func (s *Service) Connect(ctx context.Context, name string, creds map[string]string, verify bool) (DestinationView, error) {
	p, err := s.caller(ctx)
	if err != nil {
		return DestinationView{}, err
	}
	if !slices.Contains(s.destinationNames(), name) {
		return DestinationView{}, apierr.NotFound("destination %q is not configured (configured: %s)", name, strings.Join(s.destinationNames(), ", "))
	}
	if name == WebhookDestination {
		return DestinationView{}, apierr.Invalid("the webhook destination takes its url and secret from saved webhooks: create one with POST /v1/webhooks and pass its id as webhookId")
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return DestinationView{}, err
	}
	info, err := s.dests.DestinationInfo(ctx, name)
	if err != nil {
		return DestinationView{}, s.pluginError(name, "describe", err)
	}
	known := map[string]bool{}
	for _, f := range info.Credentials {
		known[f.Name] = true
	}
	clean := map[string]string{}
	var unknown []string
	for k, v := range creds {
		if !known[k] {
			unknown = append(unknown, k)
			continue
		}
		if v = strings.TrimSpace(v); v != "" {
			clean[k] = v
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return DestinationView{}, apierr.Invalid("%s has no credential fields %s (its fields: %s)", name, strings.Join(unknown, ", "), fieldNames(info))
	}
	problems, err := s.dests.Validate(ctx, name, sdk.ValidateRequest{Content: sdk.Content{}, Credentials: clean})
	if err != nil {
		return DestinationView{}, s.pluginError(name, "validate", err)
	}
	var msgs []string
	for _, pr := range problems {
		if strings.HasPrefix(pr.Key, "credentials.") {
			msgs = append(msgs, pr.Message)
		}
	}
	if len(msgs) > 0 {
		return DestinationView{}, apierr.Invalid("credentials for %s are not valid: %s", name, strings.Join(msgs, "; "))
	}
	check := store.ConnectionCheck{Result: CheckSkipped}
	if verify {
		if check, err = s.checkConnection(ctx, name, clean); err != nil {
			return DestinationView{}, err
		}
	}
	plain, _ := json.Marshal(clean)
	fields := make([]string, 0, len(clean))
	for k := range clean {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	c := &store.Connection{WorkspaceID: p.WorkspaceID, Destination: name, Sealed: sealer.Seal(plain, connectionAAD(p.WorkspaceID, name)), Fields: fields, Check: check}
	if err := s.store.PutConnection(ctx, c); err != nil {
		return DestinationView{}, err
	}
	return DestinationView{Info: info, Connected: true, ConnectedFields: fields, ConnectedAt: c.UpdatedAt, Check: check, ConnectWith: "PUT /v1/destinations/" + name + "/connection"}, nil
}

func fieldNames(info sdk.DestinationInfo) string {
	names := make([]string, len(info.Credentials))
	for i, f := range info.Credentials {
		names[i] = f.Name
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Disconnect deletes the workspace's credentials for destination name.
func (s *Service) Disconnect(ctx context.Context, name string) error {
	p, err := s.caller(ctx)
	if err != nil {
		return err
	}
	if err := s.store.DeleteConnection(ctx, p.WorkspaceID, name); errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("this workspace is not connected to %q", name)
	} else if err != nil {
		return err
	}
	return nil
}

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
