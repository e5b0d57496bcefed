// Package ga4 is Herald's first-party Google Analytics 4 analytics source.
// It is the client of Google's documented APIs: OAuth 2.0 for web server
// applications (authorization code with access_type=offline,
// prompt=consent, PKCE S256 and the read-only Analytics scope; refresh and
// revocation), the JWT bearer grant of a service-account key, the Admin
// API's accountSummaries (the readable properties) and the Data API's
// properties/{id}:runReport (sessions by day, session source, medium and
// default channel group, and by landing page).
//
// Every Google address can be overridden, by a setting or by the
// environment (tests point them at local servers; the setting wins). A
// service-account key's own token_uri is ignored: the key is user input,
// and the token endpoint is the operator's.
package ga4

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/heraldhq/herald/sdk"
)

// Google's documented endpoints.
const (
	DefaultAuthURL   = "https://accounts.google.com/o/oauth2/v2/auth"
	DefaultTokenURL  = "https://oauth2.googleapis.com/token"
	DefaultRevokeURL = "https://oauth2.googleapis.com/revoke"
	DefaultDataURL   = "https://analyticsdata.googleapis.com"
	DefaultAdminURL  = "https://analyticsadmin.googleapis.com"
	// Scope is the read-only Analytics scope, the only one asked for.
	Scope = "https://www.googleapis.com/auth/analytics.readonly"
)

// settings is every setting the plugin takes, with the environment
// variable that supplies it when the plugin block does not, and its default.
var settings = []struct{ key, env, def string }{
	{"client_id", "GA4_CLIENT_ID", ""},
	{"client_secret", "GA4_CLIENT_SECRET", ""},
	{"auth_url", "GA4_AUTH_URL", DefaultAuthURL},
	{"token_url", "GA4_TOKEN_URL", DefaultTokenURL},
	{"revoke_url", "GA4_REVOKE_URL", DefaultRevokeURL},
	{"data_api_url", "GA4_DATA_API_URL", DefaultDataURL},
	{"admin_api_url", "GA4_ADMIN_API_URL", DefaultAdminURL},
}

// service names Google in errors.
const service = "Google Analytics"

// Credential keys of a Grant.
const (
	credMethod       = "method" // "oauth" or "service_account"
	credAccess       = "access_token"
	credRefresh      = "refresh_token"
	credExpiry       = "expiry_ms"
	credKey          = "service_account_key"
	methodOAuth      = "oauth"
	methodSA         = "service_account"
	keyFieldSA       = "service_account_key"
	requestTimeout   = 30 * time.Second
	maxServiceKeyLen = 16 << 10
)

// Source is the GA4 analytics source.
type Source struct {
	client *http.Client

	mu  sync.RWMutex
	cfg map[string]string
}

// New returns the GA4 source, configured from the environment.
func New() *Source {
	cfg := map[string]string{}
	for _, s := range settings {
		cfg[s.key] = s.def
		if v := strings.TrimSpace(os.Getenv(s.env)); v != "" {
			cfg[s.key] = v
		}
	}
	return &Source{client: &http.Client{Timeout: requestTimeout}, cfg: cfg}
}

// Configure takes the settings listed in the package doc.
func (s *Source) Configure(_ context.Context, in map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[string]string{}
	for k, v := range s.cfg {
		next[k] = v
	}
	for k, v := range in {
		known := false
		for _, st := range settings {
			known = known || st.key == k
		}
		if !known {
			return sdk.Errorf(sdk.CodeInvalidArgument, "ga4: unknown setting %q (known: client_id, client_secret, auth_url, token_url, revoke_url, data_api_url, admin_api_url)", k)
		}
		if v = strings.TrimSpace(v); v != "" {
			if strings.HasSuffix(k, "_url") && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://") {
				return sdk.Errorf(sdk.CodeInvalidArgument, "ga4 setting %s must be an http(s) URL", k)
			}
			next[k] = strings.TrimRight(v, "/")
		}
	}
	s.cfg = next
	return nil
}

func (s *Source) setting(k string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cfg[k]
}

// Info describes the source; OAuth is on when a client id and secret are
// configured.
func (s *Source) Info(context.Context) (sdk.AnalyticsInfo, error) {
	return sdk.AnalyticsInfo{Name: "ga4", DisplayName: "Google Analytics 4", OAuth: s.oauthReady(), KeyFields: []string{keyFieldSA}}, nil
}

func (s *Source) oauthReady() bool {
	return s.setting("client_id") != "" && s.setting("client_secret") != ""
}

func (s *Source) oauthConfig(redirect string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: s.setting("client_id"), ClientSecret: s.setting("client_secret"), RedirectURL: redirect,
		Scopes: []string{Scope},
		// Google documents client_id and client_secret in the form body.
		Endpoint: oauth2.Endpoint{AuthURL: s.setting("auth_url"), TokenURL: s.setting("token_url"), AuthStyle: oauth2.AuthStyleInParams},
	}
}

func (s *Source) ctx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, s.client)
}

// AuthURL builds Google's consent page address: offline access (a refresh
// token), consent every time (so a reconnect gets a new refresh token),
// the read-only scope, the host's state and its PKCE S256 challenge.
func (s *Source) AuthURL(_ context.Context, req sdk.AuthURLRequest) (string, error) {
	if !s.oauthReady() {
		return "", unconfigured()
	}
	if req.State == "" || req.CodeChallenge == "" || req.RedirectURI == "" {
		return "", sdk.Errorf(sdk.CodeInvalidArgument, "ga4: state, code challenge and redirect URI are required")
	}
	return s.oauthConfig(req.RedirectURI).AuthCodeURL(req.State, oauth2.AccessTypeOffline, oauth2.ApprovalForce,
		oauth2.SetAuthURLParam("code_challenge", req.CodeChallenge),
		oauth2.SetAuthURLParam("code_challenge_method", "S256"),
		oauth2.SetAuthURLParam("include_granted_scopes", "true")), nil
}

func unconfigured() error {
	return sdk.Errorf(sdk.CodeUnconfigured, "Google sign-in is not configured: set the ga4 plugin's client_id and client_secret (GA4_CLIENT_ID, GA4_CLIENT_SECRET), or connect with a service-account key")
}

// Exchange trades a code (with its verifier) for tokens, or a
// service-account key for an access token, then checks the credentials
// with one accountSummaries call and names the account.
func (s *Source) Exchange(ctx context.Context, req sdk.ExchangeRequest) (sdk.Grant, error) {
	if key := req.Key[keyFieldSA]; key != "" {
		return s.serviceAccountGrant(ctx, key)
	}
	if !s.oauthReady() {
		return sdk.Grant{}, unconfigured()
	}
	if req.Code == "" || req.CodeVerifier == "" {
		return sdk.Grant{}, sdk.Errorf(sdk.CodeInvalidArgument, "ga4: a code and its verifier, or a service_account_key, are required")
	}
	tok, err := s.oauthConfig(req.RedirectURI).Exchange(s.ctx(ctx), req.Code, oauth2.VerifierOption(req.CodeVerifier))
	if err != nil {
		return sdk.Grant{}, tokenError(err, "exchange the authorization code", sdk.CodeInvalidArgument)
	}
	if tok.RefreshToken == "" {
		return sdk.Grant{}, sdk.Errorf(sdk.CodeInvalidArgument, "Google answered no refresh token: connect again (the consent page must be shown)")
	}
	g := oauthGrant(tok, "")
	g.Account = s.accountName(ctx, g.Credentials)
	return g, nil
}

func oauthGrant(tok *oauth2.Token, refresh string) sdk.Grant {
	if tok.RefreshToken != "" {
		refresh = tok.RefreshToken
	}
	g := sdk.Grant{Credentials: map[string]string{credMethod: methodOAuth, credAccess: tok.AccessToken, credRefresh: refresh}}
	if !tok.Expiry.IsZero() {
		g.ExpiresAtMs = tok.Expiry.UnixMilli()
	}
	return g
}

// Refresh renews an access token: the refresh-token grant, or a new JWT
// bearer grant for a service account. Google's invalid_grant (revoked or
// expired) is CodeUnauthenticated with a "reconnect" message.
func (s *Source) Refresh(ctx context.Context, creds map[string]string) (sdk.Grant, error) {
	switch creds[credMethod] {
	case methodSA:
		return s.serviceAccountGrant(ctx, creds[credKey])
	case methodOAuth:
		if !s.oauthReady() {
			return sdk.Grant{}, unconfigured()
		}
		ts := s.oauthConfig("").TokenSource(s.ctx(ctx), &oauth2.Token{RefreshToken: creds[credRefresh]})
		tok, err := ts.Token()
		if err != nil {
			return sdk.Grant{}, tokenError(err, "refresh the access token", sdk.CodeUnauthenticated)
		}
		return oauthGrant(tok, creds[credRefresh]), nil
	default:
		return sdk.Grant{}, sdk.Errorf(sdk.CodeInvalidArgument, "ga4: credentials of an unknown kind")
	}
}

// Revoke revokes the refresh token (which revokes its access tokens too)
// at Google's revocation endpoint. A token Google no longer knows counts as
// revoked. A service account has nothing to revoke: deleting its key is
// done in Google Cloud.
func (s *Source) Revoke(ctx context.Context, creds map[string]string) error {
	if creds[credMethod] != methodOAuth {
		return nil
	}
	token := creds[credRefresh]
	if token == "" {
		token = creds[credAccess]
	}
	return s.revoke(ctx, token)
}
