package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/store"
)

// KeyPrefix starts every API key.
const KeyPrefix = "hk_"

// Via says how a caller authenticated.
type Via string

// The ways to authenticate.
const (
	ViaAPIKey  Via = "api-key"
	ViaSession Via = "session"
)

// Principal is the authenticated caller.
type Principal struct {
	WorkspaceID   string
	WorkspaceName string
	Plan          string
	Website       string
	UserID        string
	Via           Via
	// KeyID is the API key's id (empty for a session JWT).
	KeyID string
	// MCPUnattended: the operator let this key's MCP write tools run
	// without asking the human through the client (keys create
	// --mcp-unattended). Always false for a session JWT.
	MCPUnattended bool
}

type ctxKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the caller; ok is false on public routes.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}

// Caller returns the authenticated caller of an API method, or the API's
// 401 error when there is none (a handler reached without authentication).
func Caller(ctx context.Context) (Principal, error) {
	p, ok := FromContext(ctx)
	if !ok {
		return p, apierr.Unauthenticated("missing api-key header")
	}
	return p, nil
}

// Policy says which credentials a route accepts.
type Policy int

// The route policies.
const (
	// APIKey requires the api-key header.
	APIKey Policy = iota
	// APIKeyOrSession accepts the api-key header or a session JWT.
	APIKeyOrSession
	// Public needs nothing.
	Public
	// APIKeyIfSent verifies the api-key header when it is sent and lets
	// the request through without a principal otherwise: the route checks
	// its own credential then (the log route's ingest secret).
	APIKeyIfSent
)

// GenerateKey returns a new API key and the SHA-256 hash to store. The key
// is "hk_" followed by 43 base62-ish characters (256 random bits).
func GenerateKey() (key, hash string) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 43)
	rnd := make([]byte, 64)
	out := b[:0]
	for len(out) < 43 {
		rand.Read(rnd)
		for _, c := range rnd {
			// 248 = 4*62: reject the tail to keep the distribution uniform.
			if c < 248 && len(out) < 43 {
				out = append(out, alphabet[c%62])
			}
		}
	}
	key = KeyPrefix + string(out)
	return key, HashKey(key)
}

// HashKey returns the hex SHA-256 of a key, as stored.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Authenticator verifies credentials against the store. Verified keys are
// cached briefly so that a hot client does not cost a query per request;
// the cache is bounded and entries expire after cacheTTL.
type Authenticator struct {
	store     *store.Store
	jwtSecret []byte

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	p   Principal
	exp time.Time
}

const (
	cacheTTL  = 5 * time.Second
	cacheSize = 10000
)

// NewAuthenticator returns an Authenticator; an empty jwtSecret disables
// session JWTs.
func NewAuthenticator(s *store.Store, jwtSecret string) *Authenticator {
	return &Authenticator{store: s, jwtSecret: []byte(jwtSecret), cache: map[string]cached{}}
}

// Authenticate checks the request headers under policy and returns the
// caller. Public routes return ok false and no error.
func (a *Authenticator) Authenticate(ctx context.Context, h http.Header, policy Policy) (Principal, bool, error) {
	if policy == Public {
		return Principal{}, false, nil
	}
	if key := h.Get("api-key"); key != "" {
		p, err := a.apiKey(ctx, key)
		return p, err == nil, err
	}
	if policy == APIKeyIfSent {
		return Principal{}, false, nil
	}
	if policy == APIKeyOrSession {
		if authz := h.Get("Authorization"); authz != "" {
			// The scheme is case-insensitive (RFC 9110 11.1).
			scheme, token, found := strings.Cut(strings.TrimSpace(authz), " ")
			if !found || !strings.EqualFold(scheme, "Bearer") {
				return Principal{}, false, apierr.Unauthenticated("Authorization must be \"Bearer <session JWT>\"")
			}
			p, err := a.session(ctx, strings.TrimSpace(token))
			return p, err == nil, err
		}
		return Principal{}, false, apierr.Unauthenticated("send the api-key header or an Authorization: Bearer session JWT")
	}
	return Principal{}, false, apierr.Unauthenticated("missing api-key header")
}

func (a *Authenticator) apiKey(ctx context.Context, key string) (Principal, error) {
	if !strings.HasPrefix(key, KeyPrefix) || len(key) > 128 {
		return Principal{}, apierr.Unauthenticated("invalid API key")
	}
	hash := HashKey(key)
	now := time.Now()
	a.mu.Lock()
	if c, ok := a.cache[hash]; ok && now.Before(c.exp) {
		a.mu.Unlock()
		return c.p, nil
	}
	a.mu.Unlock()
	sp, stored, err := a.store.PrincipalByKeyHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) || (err == nil && subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) != 1) {
		return Principal{}, apierr.Unauthenticated("invalid API key")
	}
	if err != nil {
		return Principal{}, fmt.Errorf("verify API key: %w", err)
	}
	p := fromStore(sp, ViaAPIKey)
	a.mu.Lock()
	if len(a.cache) >= cacheSize {
		clear(a.cache)
	}
	a.cache[hash] = cached{p: p, exp: now.Add(cacheTTL)}
	a.mu.Unlock()
	return p, nil
}

// SessionClaims are the claims of a session JWT: sub is the user id, wsp the
// workspace id; exp is required.
type SessionClaims struct {
	Workspace string `json:"wsp"`
	jwt.RegisteredClaims
}

func (a *Authenticator) session(ctx context.Context, token string) (Principal, error) {
	if len(a.jwtSecret) == 0 {
		return Principal{}, apierr.Unauthenticated("session JWTs are not enabled (HERALD_JWT_SECRET is unset)")
	}
	var claims SessionClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.jwtSecret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second))
	if err != nil {
		return Principal{}, apierr.Unauthenticated("invalid session: %v", err)
	}
	if claims.Subject == "" || claims.Workspace == "" {
		return Principal{}, apierr.Unauthenticated("invalid session: sub and wsp claims are required")
	}
	sp, err := a.store.PrincipalByUser(ctx, claims.Workspace, claims.Subject)
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, apierr.Unauthenticated("invalid session: unknown user")
	}
	if err != nil {
		return Principal{}, fmt.Errorf("verify session: %w", err)
	}
	return fromStore(sp, ViaSession), nil
}

// SignSession issues a session JWT for a user; tests and operator tools use it.
func SignSession(secret, workspaceID, userID string, ttl time.Duration) (string, error) {
	claims := SessionClaims{Workspace: workspaceID, RegisteredClaims: jwt.RegisteredClaims{
		Subject:   userID,
		IssuedAt:  jwt.NewNumericDate(time.Now()),
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(ttl)),
	}}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
}

func fromStore(sp store.Principal, via Via) Principal {
	return Principal{
		WorkspaceID: sp.Workspace.ID, WorkspaceName: sp.Workspace.Name, Plan: sp.Workspace.Plan,
		Website: sp.Workspace.Website, UserID: sp.UserID, Via: via,
		KeyID: sp.KeyID, MCPUnattended: sp.MCPUnattended,
	}
}

// CreateKey creates workspace and user when missing and stores a new API key
// for them; it returns the key, which is shown once and never stored.
func CreateKey(ctx context.Context, s *store.Store, workspace, plan, email string) (string, error) {
	return CreateKeyWith(ctx, s, workspace, plan, email, KeyOptions{})
}

// KeyOptions are a new key's settings beyond its workspace and user.
type KeyOptions struct {
	// MCPUnattended lets the key's MCP write tools run without asking the
	// human through the client (for pipelines with nobody to ask).
	MCPUnattended bool
}

// CreateKeyWith is CreateKey with the key's options.
func CreateKeyWith(ctx context.Context, s *store.Store, workspace, plan, email string, o KeyOptions) (string, error) {
	ws, u, err := s.EnsureWorkspaceUser(ctx, workspace, plan, email)
	if err != nil {
		return "", err
	}
	key, hash := GenerateKey()
	if err := s.CreateAPIKey(ctx, store.APIKey{WorkspaceID: ws.ID, UserID: u.ID, Prefix: key[:7], Hash: hash, MCPUnattended: o.MCPUnattended}); err != nil {
		return "", err
	}
	return key, nil
}
