package destination

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"slices"
	"sort"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// DestinationService: the destinations and the workspace's connections to
// them. GET /v1/destinations is ListDestinations, PUT
// /v1/destinations/{name}/connection is Connect, DELETE
// /v1/destinations/{name}/connection is Disconnect.

// DestinationView is a destination with the workspace's connection state.
type DestinationView struct {
	Info            sdk.DestinationInfo
	Connected       bool
	ConnectedFields []string
	ConnectedAt     int64
	ConnectWith     string
	// Check is the last check of a stored connection's credentials.
	Check Check
	// Err is set when the plugin could not describe itself.
	Err string
}

// ListDestinations describes every configured destination and whether the
// caller's workspace is connected to it.
func (s *Service) ListDestinations(ctx context.Context, p auth.Principal) ([]DestinationView, error) {
	if err := s.allow(p); err != nil {
		return nil, err
	}
	conns, err := destinationstore.New(s.store).ListConnections(ctx, p.WorkspaceID)
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
			v.Connected, v.ConnectedFields, v.ConnectedAt, v.Check = true, c.Fields, c.UpdatedAt, Check(c.Check)
		}
		out = append(out, v)
	}
	return out, nil
}

// NewConnection is a workspace's credentials for a destination (PUT
// /v1/destinations/{name}/connection).
type NewConnection struct {
	// Destination is the destination's name.
	Destination string
	Credentials map[string]string
	// Verify checks the credentials with the remote before they are stored.
	Verify bool
}

// validate holds the checks that need no plugin call: destinations are the
// configured destination names.
func (in NewConnection) validate(destinations []string) error {
	if !slices.Contains(destinations, in.Destination) {
		return apierr.NotFound("destination %q is not configured (configured: %s)", in.Destination, strings.Join(destinations, ", "))
	}
	if in.Destination == WebhookDestination {
		return apierr.Invalid("the webhook destination takes its url and secret from saved webhooks: create one with POST /v1/webhooks and pass its id as webhookId")
	}
	return nil
}

// Connect stores the workspace's credentials for a destination, sealed.
// Unknown fields and missing required fields are a 400 naming them; so are
// the problems the plugin's Validate finds in the credentials. With Verify,
// the credentials are first checked with the remote (checkConnection);
// nothing is stored when they fail.
func (s *Service) Connect(ctx context.Context, p auth.Principal, in NewConnection) (DestinationView, error) {
	if err := s.allow(p); err != nil {
		return DestinationView{}, err
	}
	if err := in.validate(s.destinationNames()); err != nil {
		return DestinationView{}, err
	}
	name, creds := in.Destination, in.Credentials
	sealer, err := s.sealerOrError()
	if err != nil {
		return DestinationView{}, err
	}
	info, err := s.dests.DestinationInfo(ctx, name)
	if err != nil {
		return DestinationView{}, PluginError(name, "describe", err)
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
		return DestinationView{}, PluginError(name, "validate", err)
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
	check := Check{Result: CheckSkipped}
	if in.Verify {
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
	c := &destinationstore.Connection{WorkspaceID: p.WorkspaceID, Destination: name, Sealed: sealer.Seal(plain, connectionAAD(p.WorkspaceID, name)), Fields: fields, Check: destinationstore.ConnectionCheck(check)}
	if err := destinationstore.New(s.store).PutConnection(ctx, c); err != nil {
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
func (s *Service) Disconnect(ctx context.Context, p auth.Principal, name string) error {
	if err := s.allow(p); err != nil {
		return err
	}
	if err := destinationstore.New(s.store).DeleteConnection(ctx, p.WorkspaceID, name); errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("this workspace is not connected to %q", name)
	} else if err != nil {
		return err
	}
	return nil
}
