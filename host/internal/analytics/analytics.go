// Package analytics connects a workspace to Google Analytics 4 so that AI
// traffic stats can come from GA4 for the sites mapped to a GA4 property.
// The Google client is the ga4 plugin (an analytics source, sdk.
// AnalyticsSource, called through the plugin manager): this package runs
// the connect flow (a one-time state and a PKCE verifier per connect,
// checked and spent on Google's redirect), keeps the plugin's credentials
// sealed at rest with the destinations' sealer (AES-256-GCM under a key
// derived from HERALD_SECRET_KEY, bound to the workspace), refreshes them
// before they expire, revokes them on disconnect, maps sites to properties
// and answers traffic's External with GA4 reports cached per workspace,
// property and window for CacheTTL. It implements
// herald.api.v1.AnalyticsService.
//
// The package in the map of the code: the connect flow (`connect.go`: a
// one-time state stored as its SHA-256 with a sealed PKCE verifier, spent
// before the code is exchanged; or a service-account key), tokens sealed
// with destination's `Sealer` bound to the workspace and refreshed before
// they expire (one refresh per workspace per host, `analytics.go`), revoke
// on disconnect, site → property mappings (`report.go`), and
// `SiteReport`/`Connected`, traffic's `External`: GA4 reports cached per
// workspace, property and window (`cache.go`, 10 minutes). Rows are
// `store/analytics.go` (`analytics_connections`, `analytics_oauth_states`,
// `analytics_site_properties`). Traffic's `external.go` picks the stats
// source (script, GA4, or the script with the reason GA4 could not answer)
// and classifies GA4's rows with the AI-source table (`ClassifySession`).
package analytics

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/analyticsstore"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Google is the stored source name of a Google Analytics connection.
const Google = "google"

// PluginName is the analytics source plugin that talks to Google (the
// first-party ga4 plugin, or a plugin block of that name).
const PluginName = "ga4"

// Methods of a connection.
const (
	MethodOAuth          = "oauth"
	MethodServiceAccount = "service_account"
)

const (
	// DefaultCacheTTL is how long a GA4 report is reused for the same
	// workspace, property and window. GA4 itself updates its figures over
	// hours, and every runReport spends property quota tokens.
	DefaultCacheTTL = 10 * time.Minute
	// stateTTL is how long a connect's state can be spent.
	stateTTL = 10 * time.Minute
	// refreshMargin: credentials are refreshed this long before they
	// expire, so a call never goes out with a token about to lapse.
	refreshMargin   = 2 * time.Minute
	maxCacheEntries = 1000
)

// Deps is what the analytics service needs.
type Deps struct {
	Logger hclog.Logger
	// Store is required.
	Store *store.Store
	// Plugin is the GA4 analytics source (the plugin manager's
	// Analytics("ga4")); required.
	Plugin sdk.AnalyticsSource
	// SecretKey seals the credentials (HERALD_SECRET_KEY); empty refuses
	// to connect (503).
	SecretKey string
	// CacheTTL is how long a GA4 report is reused; 0: DefaultCacheTTL.
	CacheTTL time.Duration
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Service is the Google Analytics connection of every workspace.
type Service struct {
	log    hclog.Logger
	store  *store.Store
	plugin sdk.AnalyticsSource
	sealer *destination.Sealer
	ttl    time.Duration
	now    func() time.Time

	refreshMu  sync.Mutex
	refreshing map[string]*sync.Mutex // by workspace

	cacheMu sync.Mutex
	cache   map[cacheKey]cached
}

// New returns a Service, or an error naming each required dep missing.
func New(d Deps) (*Service, error) {
	if err := deps.Check("analytics", deps.Need("Store", d.Store == nil), deps.Need("Plugin", d.Plugin == nil)); err != nil {
		return nil, err
	}
	s := &Service{log: deps.Logger(d.Logger, "analytics"), store: d.Store, plugin: d.Plugin, ttl: d.CacheTTL, now: d.Now,
		refreshing: map[string]*sync.Mutex{}, cache: map[cacheKey]cached{}}
	if s.ttl <= 0 {
		s.ttl = DefaultCacheTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	if sealer, err := destination.NewSealer(d.SecretKey); err == nil {
		s.sealer = sealer
	}
	return s, nil
}

func (s *Service) sealerOrError() (*destination.Sealer, error) {
	if s.sealer == nil {
		return nil, apierr.Unavailable("HERALD_SECRET_KEY is not set: Herald does not store Google Analytics tokens without it")
	}
	return s.sealer, nil
}

// credentialsAAD binds sealed credentials to their workspace and source.
func credentialsAAD(workspaceID, source string) string {
	return "analytics:" + source + ":" + workspaceID
}

func stateAAD(hash string) string { return "analytics-state:" + hash }

func (s *Service) seal(workspaceID string, creds map[string]string) (string, error) {
	sealer, err := s.sealerOrError()
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(creds)
	if err != nil {
		return "", err
	}
	return sealer.Seal(raw, credentialsAAD(workspaceID, Google)), nil
}

func (s *Service) open(c analyticsstore.AnalyticsConnection) (map[string]string, error) {
	sealer, err := s.sealerOrError()
	if err != nil {
		return nil, err
	}
	raw, err := sealer.Open(c.Sealed, credentialsAAD(c.WorkspaceID, c.Source))
	if err != nil {
		return nil, err
	}
	var creds map[string]string
	if err := json.Unmarshal(raw, &creds); err != nil {
		return nil, errors.New("open analytics credentials: not a map")
	}
	return creds, nil
}

// randomToken returns n random bytes, base64url without padding (a
// state, a PKCE verifier: 43 characters for 32 bytes, as RFC 7636 asks).
func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// challengeOf is the PKCE S256 challenge of a verifier.
func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func hashState(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

var errNotConnected = apierr.NotFound("Google Analytics is not connected for this workspace: connect it with PUT /v1/analytics/google")

// credentials returns the workspace's open credentials, refreshed first
// when they expire within refreshMargin. One refresh runs per workspace on
// this host; the others wait and read what it stored.
func (s *Service) credentials(ctx context.Context, workspaceID string) (map[string]string, error) {
	c, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, workspaceID, Google)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNotConnected
	}
	if err != nil {
		return nil, err
	}
	if !s.expiring(c) {
		return s.openOrReconnect(c)
	}
	mu := s.workspaceLock(workspaceID)
	mu.Lock()
	defer mu.Unlock()
	if c, err = analyticsstore.New(s.store).GetAnalyticsConnection(ctx, workspaceID, Google); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errNotConnected
		}
		return nil, err
	}
	creds, err := s.openOrReconnect(c)
	if err != nil || !s.expiring(c) {
		return creds, err
	}
	g, err := s.plugin.Refresh(ctx, creds)
	if err != nil {
		return nil, pluginError(err, "refresh the Google Analytics access")
	}
	sealed, err := s.seal(workspaceID, g.Credentials)
	if err != nil {
		return nil, err
	}
	if _, err := analyticsstore.New(s.store).UpdateAnalyticsCredentials(ctx, c, sealed, g.ExpiresAtMs); err != nil {
		return nil, err
	}
	s.log.Debug("refreshed Google Analytics credentials", "workspace", workspaceID)
	return g.Credentials, nil
}

func (s *Service) expiring(c analyticsstore.AnalyticsConnection) bool {
	return c.ExpiresAt != 0 && c.ExpiresAt-refreshMargin.Milliseconds() <= s.now().UnixMilli()
}

func (s *Service) openOrReconnect(c analyticsstore.AnalyticsConnection) (map[string]string, error) {
	creds, err := s.open(c)
	if err != nil {
		var ce *connect.Error
		if errors.As(err, &ce) {
			return nil, err
		}
		s.log.Error("cannot open Google Analytics credentials", "workspace", c.WorkspaceID, "error", err)
		return nil, apierr.Conflict("the stored Google Analytics tokens cannot be opened (was HERALD_SECRET_KEY changed?): reconnect Google Analytics")
	}
	return creds, nil
}

func (s *Service) workspaceLock(workspaceID string) *sync.Mutex {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	mu := s.refreshing[workspaceID]
	if mu == nil {
		mu = &sync.Mutex{}
		s.refreshing[workspaceID] = mu
	}
	return mu
}
