// Package events tells people when something happened in their workspace.
// A subscription names a URL, the event types it wants and a format
// ("standard": Standard Webhooks, signed with the subscription's secret;
// "slack": a Slack incoming-webhook message). Events are written by the
// areas that make the changes, in the same transaction, with one delivery
// per interested subscription (the outbox, store/events.go; the types and
// payloads are package catalog). The Deliverer sends them: at least once,
// with retries and backoff honouring Retry-After, one attempt sequence per
// delivery across hosts (claims under a lease), and a subscription whose
// deliveries have failed for three days is paused.
package events

import (
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Formats of a subscription.
const (
	FormatStandard = "standard"
	FormatSlack    = "slack"
)

// RotationOverlap is how long a rotated secret keeps signing beside the
// new one.
const RotationOverlap = 24 * time.Hour

// Deps are what the service needs.
type Deps struct {
	// Logger: nil discards.
	Logger hclog.Logger
	Store  *store.Store
	// Quota caps subscriptions per workspace (max_event_subscriptions).
	Quota *quota.Checker
	// SecretKey seals the subscriptions' URLs and secrets
	// (HERALD_SECRET_KEY); empty refuses to create subscriptions.
	SecretKey string
	// AllowedPrivateCIDRs are private ranges subscriptions may reach
	// anyway (HERALD_ALLOWED_PRIVATE_CIDRS).
	AllowedPrivateCIDRs []netip.Prefix
	// BaseURL is the host's public URL, before the events' dashboard
	// links (empty: the links stay relative).
	BaseURL string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Service keeps subscriptions and their delivery logs.
type Service struct {
	store   *store.Store
	quota   *quota.Checker
	sealer  *destination.Sealer
	allowed []netip.Prefix
	sender  *sender
	log     hclog.Logger
	now     func() time.Time
}

// New returns the service; the error names each missing required dep.
func New(d Deps) (*Service, error) {
	if err := deps.Check("events", deps.Need("Store", d.Store == nil), deps.Need("Quota", d.Quota == nil)); err != nil {
		return nil, err
	}
	s := &Service{store: d.Store, quota: d.Quota, allowed: d.AllowedPrivateCIDRs, log: deps.Logger(d.Logger, "events"), now: d.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if sealer, err := destination.NewSealer(d.SecretKey); err == nil {
		s.sealer = sealer
	}
	client := sdk.GuardedHTTPClient(15*time.Second, d.AllowedPrivateCIDRs)
	if t, ok := client.Transport.(*http.Transport); ok {
		// A claim's deliveries often go to one receiver (a Slack workspace,
		// one endpoint): keep their connections for the next claim.
		t.MaxIdleConnsPerHost = 64
	}
	s.sender = &sender{client: client, baseURL: strings.TrimSuffix(d.BaseURL, "/"), now: s.now}
	return s, nil
}

// Subscription is a URL that receives events, without its secret.
type Subscription struct {
	ID, DisplayURL, Format, State string
	Events                        []string
	PausedReason                  *string
	FailingSince                  *int64
	CreatedAt                     int64
}

func subscriptionFromStore(s store.EventSubscription) Subscription {
	return Subscription{ID: s.ID, DisplayURL: s.DisplayURL, Format: s.Format, State: s.State, Events: s.Events,
		PausedReason: s.PausedReason, FailingSince: s.FailingSince, CreatedAt: s.CreatedAt}
}

// Delivery is one event sent to one subscription.
type Delivery struct {
	ID, EventID, EventType, Status string
	Attempts                       int
	ResponseCode                   *int
	Error                          *string
	NextAttemptAt, LastAttemptAt   *int64
	CreatedAt                      int64
}

func deliveryFromStore(d store.EventDelivery) Delivery {
	out := Delivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.State, Attempts: d.Attempts,
		ResponseCode: d.ResponseCode, Error: d.Error, LastAttemptAt: d.LastAttemptAt, CreatedAt: d.CreatedAt}
	if d.State == store.DeliveryPending {
		out.NextAttemptAt = d.NextAttemptAt
	}
	return out
}

// Event is something that happened; Data is its JSON payload.
type Event struct {
	ID, Type, Data, Link string
	CreatedAt            int64
}

// secrets is the sealed part of a subscription.
type secrets struct {
	URL      string `json:"url"`
	Secret   string `json:"secret,omitempty"`
	Previous string `json:"previous,omitempty"`
}

func subscriptionAAD(workspace, id string) string {
	return "event_subscription|" + workspace + "|" + id
}
