package events

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// NewSubscription is a subscription to create.
type NewSubscription struct {
	URL    string
	Events []string
	Format string
}

// validate checks the form of the URL, the event names and the format,
// trims them and drops repeated events.
func (in *NewSubscription) validate() error {
	in.URL = strings.TrimSpace(in.URL)
	if in.URL == "" {
		return apierr.Invalid("url is required")
	}
	if _, err := destination.ParseWebhookURL(in.URL); err != nil {
		return err
	}
	if len(in.Events) == 0 {
		return apierr.Invalid("events must name at least one event type")
	}
	var seen []string
	for _, e := range in.Events {
		e = strings.TrimSpace(e)
		if !catalog.Known(e) {
			return apierr.Invalid("events: unknown event type %q (known: %s)", e, strings.Join(catalog.Types, ", "))
		}
		if !slices.Contains(seen, e) {
			seen = append(seen, e)
		}
	}
	in.Events = seen
	switch in.Format = strings.TrimSpace(in.Format); in.Format {
	case "":
		in.Format = FormatStandard
	case FormatStandard, FormatSlack:
	default:
		return apierr.Invalid("format must be %q or %q", FormatStandard, FormatSlack)
	}
	return nil
}

func newSecret() string {
	key := make([]byte, 32)
	rand.Read(key)
	return sdk.WebhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// Create stores a subscription and returns it with its signing secret
// (format standard; empty for slack), which is never shown again.
func (s *Service) Create(ctx context.Context, p auth.Principal, in NewSubscription) (Subscription, string, error) {
	if err := in.validate(); err != nil {
		return Subscription{}, "", err
	}
	u, _ := destination.ParseWebhookURL(in.URL)
	if err := destination.CheckWebhookAddress(ctx, u, s.allowed); err != nil {
		return Subscription{}, "", err
	}
	if s.sealer == nil {
		return Subscription{}, "", apierr.Unavailable("event subscriptions need HERALD_SECRET_KEY to seal their URLs")
	}
	if err := s.quota.Room(ctx, store.CountEventSubscriptions, p.WorkspaceID); err != nil {
		return Subscription{}, "", err
	}
	sec := secrets{URL: in.URL}
	if in.Format == FormatStandard {
		sec.Secret = newSecret()
	}
	sub := store.EventSubscription{ID: store.NewID(), WorkspaceID: p.WorkspaceID, DisplayURL: destination.MaskWebhookURL(in.URL),
		Format: in.Format, Events: in.Events}
	plain, _ := json.Marshal(sec)
	sub.Sealed = s.sealer.Seal(plain, subscriptionAAD(p.WorkspaceID, sub.ID))
	if err := s.store.CreateEventSubscription(ctx, &sub, s.quota.Cap(store.CountEventSubscriptions)); err != nil {
		return Subscription{}, "", quota.Err(err)
	}
	return subscriptionFromStore(sub), sec.Secret, nil
}

// List returns the workspace's subscriptions.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Subscription, error) {
	rows, err := s.store.ListEventSubscriptions(ctx, p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]Subscription, len(rows))
	for i, r := range rows {
		out[i] = subscriptionFromStore(r)
	}
	return out, nil
}

func (s *Service) get(ctx context.Context, p auth.Principal, id string) (store.EventSubscription, error) {
	sub, err := s.store.GetEventSubscription(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return sub, apierr.NotFound("event subscription %s not found", id)
	}
	return sub, err
}

// Get returns one subscription of the workspace.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Subscription, error) {
	sub, err := s.get(ctx, p, id)
	return subscriptionFromStore(sub), err
}

// Delete deletes a subscription and its delivery log.
func (s *Service) Delete(ctx context.Context, p auth.Principal, id string) error {
	err := s.store.DeleteEventSubscription(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("event subscription %s not found", id)
	}
	return err
}

func (s *Service) open(sub store.EventSubscription) (secrets, error) {
	var sec secrets
	if s.sealer == nil {
		return sec, fmt.Errorf("open subscription %s: no secret key", sub.ID)
	}
	plain, err := s.sealer.Open(sub.Sealed, subscriptionAAD(sub.WorkspaceID, sub.ID))
	if err != nil {
		return sec, fmt.Errorf("open subscription %s: %w", sub.ID, err)
	}
	return sec, json.Unmarshal(plain, &sec)
}

// Rotate gives a standard subscription a new secret; the previous one
// signs too for RotationOverlap. It returns the new secret and until when
// the previous one signs.
func (s *Service) Rotate(ctx context.Context, p auth.Principal, id string) (string, int64, error) {
	sub, err := s.get(ctx, p, id)
	if err != nil {
		return "", 0, err
	}
	if sub.Format != FormatStandard {
		return "", 0, apierr.Invalid("only a subscription of format %q has a secret to rotate", FormatStandard)
	}
	sec, err := s.open(sub)
	if err != nil {
		return "", 0, err
	}
	sec.Previous, sec.Secret = sec.Secret, newSecret()
	until := s.now().Add(RotationOverlap).UnixMilli()
	plain, _ := json.Marshal(sec)
	if err := s.store.RotateEventSubscription(ctx, p.WorkspaceID, id, s.sealer.Seal(plain, subscriptionAAD(p.WorkspaceID, id)), until); err != nil {
		return "", 0, err
	}
	return sec.Secret, until, nil
}

// Deliveries is a page of the subscription's delivery log, newest first
// (limit after skip), and how many deliveries it holds in all.
func (s *Service) Deliveries(ctx context.Context, p auth.Principal, id string, limit, skip int) ([]Delivery, int64, error) {
	if _, err := s.get(ctx, p, id); err != nil {
		return nil, 0, err
	}
	limit = clamp(limit, 50, 200)
	rows, err := s.store.ListEventDeliveries(ctx, p.WorkspaceID, id, limit, max(skip, 0))
	if err != nil {
		return nil, 0, err
	}
	total, err := s.store.CountEventDeliveries(ctx, p.WorkspaceID, id)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Delivery, len(rows))
	for i, r := range rows {
		out[i] = deliveryFromStore(r)
	}
	return out, total, nil
}

// Redeliver sends a delivery again from its first attempt (same
// webhook-id) and resumes its subscription when paused.
func (s *Service) Redeliver(ctx context.Context, p auth.Principal, id, deliveryID string) (Delivery, error) {
	d, err := s.store.RedeliverEvent(ctx, p.WorkspaceID, id, deliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return Delivery{}, apierr.NotFound("delivery %s of event subscription %s not found", deliveryID, id)
	}
	return deliveryFromStore(d), err
}

// Recent returns the workspace's newest events (of typ when set): the
// events list and the agent's context.
func (s *Service) Recent(ctx context.Context, p auth.Principal, typ string, limit int) ([]Event, error) {
	if typ != "" && !catalog.Known(typ) {
		return nil, apierr.Invalid("type: unknown event type %q", typ)
	}
	rows, err := s.store.ListEvents(ctx, p.WorkspaceID, typ, clamp(limit, 20, 100))
	if err != nil {
		return nil, err
	}
	out := make([]Event, len(rows))
	for i, e := range rows {
		out[i] = Event{ID: e.ID, Type: e.Type, Data: e.Data, Link: s.sender.link(e.Link), CreatedAt: e.CreatedAt}
	}
	return out, nil
}

func clamp(n, def, max int) int {
	if n <= 0 {
		return def
	}
	return min(n, max)
}

// TestResult is the receiver's answer to a test event.
type TestResult struct {
	WebhookID    string
	ResponseCode int
	Delivered    bool
	Error        string
}

// Test sends one event.test to the subscription now, signed and formatted
// like every delivery, outside the outbox.
func (s *Service) Test(ctx context.Context, p auth.Principal, id string) (TestResult, error) {
	sub, err := s.get(ctx, p, id)
	if err != nil {
		return TestResult{}, err
	}
	sec, err := s.open(sub)
	if err != nil {
		return TestResult{}, err
	}
	data, _ := json.Marshal(catalog.TestEvent{Message: "This is a test event from Herald; ignore it.", Test: true})
	m := message{ID: "test_" + store.NewID(), Type: catalog.Test, Data: string(data), Link: "/dashboard/#/notifications",
		At: s.now(), Format: sub.Format, URL: sec.URL, Secrets: signingSecrets(sec, sub.PreviousUntil, s.now().UnixMilli())}
	a := s.sender.send(ctx, m)
	return TestResult{WebhookID: m.ID, ResponseCode: a.Code, Delivered: a.ok(), Error: a.Err}, nil
}
