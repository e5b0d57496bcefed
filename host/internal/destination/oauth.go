package destination

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
)

// LinkedIn connects with the OAuth 2.0 authorization-code flow (LinkedIn's
// "3-legged OAuth"): StartOAuth stores a random state (its hash) for the
// workspace and answers the authorization URL the dashboard opens;
// LinkedIn sends the member back to the callback with a code and the
// state, which FinishOAuth consumes once (an unknown, expired or used
// state is refused before the code is exchanged) and exchanges the code at
// the token endpoint with the app's client secret (a code replayed there
// is LinkedIn's to refuse). The access token, and the refresh token when
// LinkedIn grants one (its programmatic refresh tokens are for approved
// partners), are sealed like every connection's credentials; their expiry
// is recorded beside the connection. LinkedIn offers PKCE only to native
// apps on loopback redirects that LinkedIn enables per app, so the web
// flow here uses the state and the client secret without it.
const (
	// OAuthDestination is the destination that connects with OAuth.
	OAuthDestination   = "linkedin"
	oauthStateTTL      = 10 * time.Minute
	defaultLinkedInAPI = "https://api.linkedin.com"
	linkedInScope      = "openid profile w_member_social"
	// refreshBefore is how long before its expiry an access token that can
	// be refreshed is refreshed (at the next use).
	refreshBefore = 24 * time.Hour
)

// ErrConnectionExpired is a connection whose access token expired and
// cannot be refreshed: the member must connect again.
type ErrConnectionExpired struct {
	Destination string
	At          time.Time
}

func (e ErrConnectionExpired) Error() string {
	return fmt.Sprintf("the %s connection expired on %s: connect it again (dashboard, Destinations; or POST /v1/destinations/%s/oauth/start)",
		e.Destination, e.At.UTC().Format(time.RFC3339), e.Destination)
}

func (s *Service) oauthApp(name string) (config.LinkedInApp, error) {
	if name != OAuthDestination {
		return config.LinkedInApp{}, apierr.Invalid("name: only %s connects with OAuth; %s takes PUT /v1/destinations/%s/connection", OAuthDestination, name, name)
	}
	if s.linkedin.ClientID == "" || s.linkedin.ClientSecret == "" || s.linkedin.RedirectURL == "" {
		return config.LinkedInApp{}, apierr.Unavailable("LinkedIn OAuth is not configured on this host: set linkedin_client_id, linkedin_client_secret and linkedin_redirect_url")
	}
	return s.linkedin, nil
}

func stateHash(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// StartOAuth begins connecting the caller's workspace to name and returns
// the authorization URL to open and when its state expires.
func (s *Service) StartOAuth(ctx context.Context, p auth.Principal, name string) (string, time.Time, error) {
	if err := s.allow(p); err != nil {
		return "", time.Time{}, err
	}
	app, err := s.oauthApp(name)
	if err != nil {
		return "", time.Time{}, err
	}
	if _, err := s.sealerOrError(); err != nil {
		return "", time.Time{}, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", time.Time{}, err
	}
	state := base64.RawURLEncoding.EncodeToString(raw)
	now := s.store.Now()
	expires := now + oauthStateTTL.Milliseconds()
	if err := s.connections.InsertOAuthState(ctx, destinationstore.OAuthState{StateHash: stateHash(state), WorkspaceID: p.WorkspaceID, UserID: p.UserID,
		Destination: name, CreatedAt: now, ExpiresAt: expires}); err != nil {
		return "", time.Time{}, err
	}
	q := url.Values{"response_type": {"code"}, "client_id": {app.ClientID}, "redirect_uri": {app.RedirectURL}, "state": {state}, "scope": {linkedInScope}}
	return strings.TrimRight(app.OAuthURL, "/") + "/authorization?" + q.Encode(), time.UnixMilli(expires), nil
}

// tokenAnswer is the token endpoint's answer.
type tokenAnswer struct {
	AccessToken           string `json:"access_token"`
	ExpiresIn             int64  `json:"expires_in"`
	RefreshToken          string `json:"refresh_token"`
	RefreshTokenExpiresIn int64  `json:"refresh_token_expires_in"`
	Error                 string `json:"error"`
	Description           string `json:"error_description"`
}

// FinishOAuth completes an authorization at the callback: it consumes
// state (once), exchanges code and stores the sealed connection of the
// workspace that started it, which it returns. oauthError is LinkedIn's
// error parameter when the member declined.
func (s *Service) FinishOAuth(ctx context.Context, name, code, state, oauthError string) (string, error) {
	app, err := s.oauthApp(name)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(state) == "" {
		return "", apierr.Invalid("state is required")
	}
	st, err := s.connections.ConsumeOAuthState(ctx, stateHash(state), name)
	switch {
	case errors.Is(err, destinationstore.ErrOAuthStateUsed):
		return "", apierr.Invalid("state was already used: this authorization finished once; start again to reconnect")
	case errors.Is(err, store.ErrNotFound):
		return "", apierr.Invalid("state does not match an authorization in progress (unknown, or older than %s): start again", oauthStateTTL)
	case err != nil:
		return "", err
	}
	if oauthError != "" {
		return "", apierr.Invalid("error: LinkedIn did not authorize the connection (%s)", oauthError)
	}
	if strings.TrimSpace(code) == "" {
		return "", apierr.Invalid("code is required")
	}
	tok, err := s.token(ctx, app, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {app.RedirectURL}})
	if err != nil {
		return "", err
	}
	member, err := s.linkedInMember(ctx, app, tok.AccessToken)
	if err != nil {
		return "", err
	}
	creds := map[string]string{"token": tok.AccessToken, "author": "urn:li:person:" + member.Sub}
	if base := strings.TrimRight(app.APIURL, "/"); base != "" && base != defaultLinkedInAPI {
		creds["base_url"] = base // the posts go where the app's API is
	}
	if tok.RefreshToken != "" {
		creds["refresh_token"] = tok.RefreshToken
	}
	if err := s.storeOAuthConnection(ctx, st.WorkspaceID, name, creds, tok, member.Name); err != nil {
		return "", err
	}
	return st.WorkspaceID, nil
}

// token calls the token endpoint with form (plus the app's client id and
// secret).
func (s *Service) token(ctx context.Context, app config.LinkedInApp, form url.Values) (tokenAnswer, error) {
	form.Set("client_id", app.ClientID)
	form.Set("client_secret", app.ClientSecret)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(app.OAuthURL, "/")+"/accessToken", strings.NewReader(form.Encode()))
	if err != nil {
		return tokenAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := s.http.Do(req)
	if err != nil {
		return tokenAnswer{}, apierr.Unavailable("LinkedIn's token endpoint could not be reached: %v", err)
	}
	defer res.Body.Close()
	var tok tokenAnswer
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = json.Unmarshal(body, &tok)
	if res.StatusCode != http.StatusOK || tok.AccessToken == "" {
		field := "code"
		if form.Get("grant_type") == "refresh_token" {
			field = "refresh_token"
		}
		return tokenAnswer{}, apierr.Invalid("%s: LinkedIn refused it (HTTP %d %s: %s)", field, res.StatusCode, tok.Error, tok.Description)
	}
	return tok, nil
}

type linkedInMember struct {
	Sub  string `json:"sub"`
	Name string `json:"name"`
}

// linkedInMember asks the OpenID userinfo endpoint who the token belongs to
// (the author URN of the member's posts).
func (s *Service) linkedInMember(ctx context.Context, app config.LinkedInApp, token string) (linkedInMember, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(app.APIURL, "/")+"/v2/userinfo", nil)
	if err != nil {
		return linkedInMember{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := s.http.Do(req)
	if err != nil {
		return linkedInMember{}, apierr.Unavailable("LinkedIn could not be reached: %v", err)
	}
	defer res.Body.Close()
	var m linkedInMember
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&m) != nil || m.Sub == "" {
		return linkedInMember{}, apierr.Invalid("code: LinkedIn did not say who authorized it (userinfo answered HTTP %d)", res.StatusCode)
	}
	return m, nil
}

// storeOAuthConnection seals creds as the workspace's connection to name
// and records the tokens' expiry.
func (s *Service) storeOAuthConnection(ctx context.Context, workspace, name string, creds map[string]string, tok tokenAnswer, account string) error {
	sealer, err := s.sealerOrError()
	if err != nil {
		return err
	}
	plain, err := json.Marshal(creds)
	if err != nil {
		return err
	}
	now := s.store.Now()
	c := &destinationstore.Connection{WorkspaceID: workspace, Destination: name, Sealed: sealer.Seal(plain, connectionAAD(workspace, name)),
		Fields: []string{"token", "author"}, Check: destinationstore.ConnectionCheck{At: &now, Result: CheckOK, Account: account}}
	if err := s.connections.PutConnection(ctx, c); err != nil {
		return err
	}
	var expires, refreshExpires *int64
	if tok.ExpiresIn > 0 {
		v := now + tok.ExpiresIn*1000
		expires = &v
	}
	if tok.RefreshToken != "" && tok.RefreshTokenExpiresIn > 0 {
		v := now + tok.RefreshTokenExpiresIn*1000
		refreshExpires = &v
	}
	return s.connections.SetConnectionExpiry(ctx, workspace, name, expires, refreshExpires)
}

// fresh returns the credentials of a connection ready to use: refreshed
// when the access token expires within refreshBefore and a refresh token
// is granted; ErrConnectionExpired when it has expired for good. The
// refresh token never leaves the host.
func (s *Service) fresh(ctx context.Context, workspace, dest string, creds map[string]string) (map[string]string, error) {
	e, err := s.connections.GetConnectionExpiry(ctx, workspace, dest)
	if err != nil || e.ExpiresAt == nil {
		delete(creds, "refresh_token")
		return creds, err
	}
	now := s.store.Now()
	refresh := creds["refresh_token"]
	delete(creds, "refresh_token")
	if *e.ExpiresAt-now > refreshBefore.Milliseconds() {
		return creds, nil
	}
	canRefresh := refresh != "" && (e.RefreshExpiresAt == nil || *e.RefreshExpiresAt > now) && s.linkedin.ClientID != "" && dest == OAuthDestination
	if canRefresh {
		tok, err := s.token(ctx, s.linkedin, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
		if err == nil {
			next := map[string]string{"token": tok.AccessToken, "author": creds["author"], "refresh_token": refresh}
			if creds["base_url"] != "" {
				next["base_url"] = creds["base_url"]
			}
			if tok.RefreshToken != "" {
				next["refresh_token"] = tok.RefreshToken
			}
			if tok.RefreshTokenExpiresIn == 0 && e.RefreshExpiresAt != nil {
				tok.RefreshTokenExpiresIn = (*e.RefreshExpiresAt - now) / 1000 // LinkedIn keeps the first TTL
			}
			tok.RefreshToken = next["refresh_token"]
			if err := s.storeOAuthConnection(ctx, workspace, dest, next, tok, ""); err != nil {
				return nil, err
			}
			delete(next, "refresh_token")
			return next, nil
		}
		s.log.Warn("refreshing a connection failed", "destination", dest, "error", err)
	}
	if *e.ExpiresAt <= now {
		return nil, ErrConnectionExpired{Destination: dest, At: time.UnixMilli(*e.ExpiresAt)}
	}
	return creds, nil
}
