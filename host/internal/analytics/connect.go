package analytics

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/analyticsstore"
	"net/url"
	"strings"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Connection is a workspace's Google Analytics connection.
type Connection struct {
	Connected       bool
	Method, Account string
	// ConnectedAt is epoch ms.
	ConnectedAt int64
	Sites       []SiteProperty
}

// SiteProperty is a tracked site's GA4 property.
type SiteProperty struct {
	SiteKey, Domain, PropertyID string
}

// StartInput starts a connection: RedirectURI for the OAuth flow, or
// ServiceAccountKey (a service account's JSON key) to connect at once.
type StartInput struct {
	RedirectURI, ServiceAccountKey string
}

const maxRedirectURI = 2048

func (in *StartInput) validate() error {
	in.RedirectURI = strings.TrimSpace(in.RedirectURI)
	in.ServiceAccountKey = strings.TrimSpace(in.ServiceAccountKey)
	switch {
	case in.RedirectURI == "" && in.ServiceAccountKey == "":
		return apierr.New(connect.CodeInvalidArgument, "redirectUri (the OAuth flow) or serviceAccountKey is required", "field", "redirectUri")
	case in.RedirectURI != "" && in.ServiceAccountKey != "":
		return apierr.New(connect.CodeInvalidArgument, "give redirectUri or serviceAccountKey, not both", "field", "serviceAccountKey")
	case in.ServiceAccountKey != "":
		return nil
	}
	u, err := url.Parse(in.RedirectURI)
	if len(in.RedirectURI) > maxRedirectURI || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" || u.User != nil {
		return apierr.New(connect.CodeInvalidArgument, "redirectUri must be an absolute http(s) URL without a fragment, registered with the Google OAuth client", "field", "redirectUri")
	}
	return nil
}

// Started is the answer of Start: the consent page to send the user to
// and its state, or the connection a service-account key made.
type Started struct {
	AuthURL, State string
	Connection     *Connection
}

// Start begins connecting the caller's workspace. With a redirect URI it
// stores a one-time state (its SHA-256) and a sealed PKCE verifier for
// stateTTL and answers Google's consent page address; with a
// service-account key it signs in at once and stores the credentials.
func (s *Service) Start(ctx context.Context, p auth.Principal, in StartInput) (Started, error) {
	if err := in.validate(); err != nil {
		return Started{}, err
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return Started{}, err
	}
	if in.ServiceAccountKey != "" {
		g, err := s.plugin.Exchange(ctx, sdk.ExchangeRequest{Key: map[string]string{"service_account_key": in.ServiceAccountKey}})
		if err != nil {
			return Started{}, pluginError(err, "connect the service account")
		}
		c, err := s.save(ctx, p.WorkspaceID, MethodServiceAccount, g)
		if err != nil {
			return Started{}, err
		}
		return Started{Connection: &c}, nil
	}
	state, verifier := randomToken(32), randomToken(32)
	hash := hashState(state)
	u, err := s.plugin.AuthURL(ctx, sdk.AuthURLRequest{RedirectURI: in.RedirectURI, State: state, CodeChallenge: challengeOf(verifier)})
	if err != nil {
		return Started{}, pluginError(err, "start the Google sign-in")
	}
	err = analyticsstore.New(s.store).PutAnalyticsState(ctx, analyticsstore.AnalyticsState{StateHash: hash, WorkspaceID: p.WorkspaceID, Source: Google,
		SealedVerifier: sealer.Seal([]byte(verifier), stateAAD(hash)), RedirectURI: in.RedirectURI,
		ExpiresAt: s.now().Add(stateTTL).UnixMilli()})
	if err != nil {
		return Started{}, err
	}
	return Started{AuthURL: u, State: state}, nil
}

// FinishInput is Google's redirect: code and state, or error.
type FinishInput struct {
	Code, State, Error string
}

func (in FinishInput) validate() error {
	if in.State == "" {
		return apierr.New(connect.CodeInvalidArgument, "state is required (the state of the connect that PUT /v1/analytics/google started)", "field", "state")
	}
	if len(in.State) > 256 || len(in.Code) > 2048 || len(in.Error) > 256 {
		return apierr.Invalid("code, state or error is too long")
	}
	if in.Code == "" && in.Error == "" {
		return apierr.New(connect.CodeInvalidArgument, "code is required", "field", "code")
	}
	return nil
}

// Finish completes a connect from Google's redirect. The state is spent
// first, whatever follows: a state that is unknown, expired or already
// spent (a replayed redirect) is refused before Google is called, so a
// code is exchanged at most once. The workspace is the one that started
// the connect; the caller needs no key (the browser comes from Google).
func (s *Service) Finish(ctx context.Context, in FinishInput) (Connection, error) {
	if err := in.validate(); err != nil {
		return Connection{}, err
	}
	sealer, err := s.sealerOrError()
	if err != nil {
		return Connection{}, err
	}
	hash := hashState(in.State)
	st, err := analyticsstore.New(s.store).ClaimAnalyticsState(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return Connection{}, apierr.New(connect.CodeInvalidArgument, "state does not match a Google Analytics connect under way (unknown, expired after 10 minutes, or already used): start again with PUT /v1/analytics/google", "field", "state")
	}
	if err != nil {
		return Connection{}, err
	}
	if in.Error != "" {
		return Connection{}, apierr.Invalid("Google did not grant access (%s): start again with PUT /v1/analytics/google", in.Error)
	}
	verifier, err := sealer.Open(st.SealedVerifier, stateAAD(hash))
	if err != nil {
		s.log.Error("cannot open a connect's verifier", "workspace", st.WorkspaceID, "error", err)
		return Connection{}, apierr.Conflict("this connect cannot be finished (was HERALD_SECRET_KEY changed?): start again")
	}
	g, err := s.plugin.Exchange(ctx, sdk.ExchangeRequest{Code: in.Code, CodeVerifier: string(verifier), RedirectURI: st.RedirectURI})
	if err != nil {
		return Connection{}, pluginError(err, "finish connecting Google Analytics")
	}
	return s.save(ctx, st.WorkspaceID, MethodOAuth, g)
}

// save seals and stores a grant as the workspace's connection.
func (s *Service) save(ctx context.Context, workspaceID, method string, g sdk.Grant) (Connection, error) {
	sealed, err := s.seal(workspaceID, g.Credentials)
	if err != nil {
		return Connection{}, err
	}
	c := analyticsstore.AnalyticsConnection{WorkspaceID: workspaceID, Source: Google, Method: method, Account: g.Account, Sealed: sealed, ExpiresAt: g.ExpiresAtMs}
	if old, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, workspaceID, Google); err == nil {
		c.CreatedAt = old.CreatedAt
	}
	if err := analyticsstore.New(s.store).PutAnalyticsConnection(ctx, &c); err != nil {
		return Connection{}, err
	}
	s.forget(workspaceID)
	s.log.Info("Google Analytics connected", "workspace", workspaceID, "method", method)
	return s.connection(ctx, workspaceID)
}

// Connection returns the caller's connection (Connected false when none).
func (s *Service) Connection(ctx context.Context, p auth.Principal) (Connection, error) {
	return s.connection(ctx, p.WorkspaceID)
}

func (s *Service) connection(ctx context.Context, workspaceID string) (Connection, error) {
	c, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, workspaceID, Google)
	if errors.Is(err, store.ErrNotFound) {
		return Connection{Sites: []SiteProperty{}}, nil
	}
	if err != nil {
		return Connection{}, err
	}
	out := Connection{Connected: true, Method: c.Method, Account: c.Account, ConnectedAt: c.CreatedAt, Sites: []SiteProperty{}}
	props, err := analyticsstore.New(s.store).AnalyticsSiteProperties(ctx, workspaceID, Google)
	if err != nil {
		return Connection{}, err
	}
	for _, p := range props {
		out.Sites = append(out.Sites, SiteProperty{SiteKey: p.SiteKey, Domain: p.Domain, PropertyID: p.PropertyID})
	}
	return out, nil
}

// Disconnect revokes the caller's tokens at Google and deletes them with
// the site mappings. The tokens are deleted even when Google cannot be
// reached; the warning says so (the user can remove the access in their
// Google account). It reports false when there was no connection.
func (s *Service) Disconnect(ctx context.Context, p auth.Principal) (bool, string, error) {
	c, err := analyticsstore.New(s.store).GetAnalyticsConnection(ctx, p.WorkspaceID, Google)
	if errors.Is(err, store.ErrNotFound) {
		return false, "Google Analytics was not connected", nil
	}
	if err != nil {
		return false, "", err
	}
	msg := "Google Analytics disconnected: the tokens were revoked at Google and deleted"
	if creds, err := s.open(c); err != nil {
		msg = "Google Analytics disconnected: the stored tokens could not be opened, so they were deleted without revoking; remove Herald's access in your Google account"
	} else if err := s.plugin.Revoke(ctx, creds); err != nil {
		s.log.Warn("Google refused or missed a revocation", "workspace", p.WorkspaceID, "error", sdk.AsError(err).Message)
		msg = "Google Analytics disconnected: the tokens were deleted, but Google could not revoke them (" + sdk.AsError(err).Message + "); remove Herald's access in your Google account"
	}
	if err := analyticsstore.New(s.store).DeleteAnalyticsConnection(ctx, p.WorkspaceID, Google); err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, "", err
	}
	s.forget(p.WorkspaceID)
	return true, msg, nil
}
