package destination

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"github.com/heraldhq/herald/sdk"
)

// WebhookDestination is the destination whose credentials come from saved
// webhooks rather than a stored connection.
const WebhookDestination = "webhook"

// Plugins is what destinations need from the plugin manager
// (*pluginhost.Manager implements it).
type Plugins interface {
	// Destinations returns the configured destination names.
	Destinations() []string
	DestinationInfo(ctx context.Context, name string) (sdk.DestinationInfo, error)
	Validate(ctx context.Context, name string, req sdk.ValidateRequest) ([]sdk.Problem, error)
	// Export sends a webhook's test delivery.
	Export(ctx context.Context, name string, req sdk.ExportRequest) (sdk.ExportResult, error)
	// CheckConnection verifies credentials with the remote; a
	// CodeUnimplemented *sdk.Error when the plugin cannot.
	CheckConnection(ctx context.Context, name string, req sdk.CheckConnectionRequest) (sdk.CheckConnectionResult, error)
}

// Deps are what a Service works with.
type Deps struct {
	// Logger: nil discards.
	Logger hclog.Logger
	Store  *store.Store
	// Quota caps webhooks per workspace and name lengths (required).
	Quota *quota.Checker
	// Plans gives each plan's SchedulerAPIAccess, read at request time
	// (nil: the defaults).
	Plans   *plans.Table
	Plugins Plugins
	// SecretKey seals credentials (HERALD_SECRET_KEY); empty refuses to
	// store or open any.
	SecretKey string
	// LinkedIn is the app LinkedIn connects with OAuth through (zero: off).
	LinkedIn config.LinkedInApp
	// HTTPClient calls LinkedIn's OAuth endpoints (nil: a guarded client
	// that reaches public addresses only).
	HTTPClient *http.Client
}

// Service keeps the workspaces' destination connections and saved webhooks.
type Service struct {
	store       *store.Store
	connections *destinationstore.Store
	dests       Plugins
	sealer      *Sealer
	plans       *plans.Table
	quota       *quota.Checker
	log         hclog.Logger

	linkedin config.LinkedInApp
	http     *http.Client
}

// New returns the destination service; the error names each missing
// required dep. Without a secret key it works, but refuses to store or
// open credentials.
func New(d Deps) (*Service, error) {
	if err := deps.Check("destination",
		deps.Need("Store", d.Store == nil),
		deps.Need("Quota", d.Quota == nil),
		deps.Need("Plugins", d.Plugins == nil),
	); err != nil {
		return nil, err
	}
	s := &Service{store: d.Store, connections: destinationstore.New(d.Store), dests: d.Plugins, plans: d.Plans, quota: d.Quota, log: d.Logger, linkedin: d.LinkedIn, http: d.HTTPClient}
	if s.http == nil {
		s.http = sdk.GuardedHTTPClient(30*time.Second, nil)
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.plans == nil {
		s.plans = plans.New(nil)
	}
	if sealer, err := NewSealer(d.SecretKey); err == nil {
		s.sealer = sealer
	}
	return s, nil
}

// allow enforces the plan rule of the scheduler routes, which include
// destinations and webhooks: the api-key works only for plans with
// scheduler API access (business and higher); sessions always work.
func (s *Service) allow(p auth.Principal) error { return quota.SchedulerAPI(s.plans, p) }

func (s *Service) destinationNames() []string { return s.dests.Destinations() }

// PluginError turns a plugin failure while handling a request into an API
// error: an unknown destination or a refused request is a 400, another
// plugin error a 503 quoting it.
func PluginError(dest, op string, err error) error {
	if errors.Is(err, sdk.ErrUnknownDestination) {
		return apierr.Invalid("exportTo %q is not a configured destination", dest)
	}
	var se *sdk.Error
	if errors.As(err, &se) {
		if se.Code == sdk.CodeInvalidArgument {
			return apierr.Invalid("%s", se.Message)
		}
		return apierr.Unavailable("destination %s could not %s the schedule: %s", dest, op, se.Message)
	}
	return fmt.Errorf("%s schedule with %s: %w", op, dest, err)
}
