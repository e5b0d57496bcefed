package ga4

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/heraldhq/herald/sdk"
)

// serviceKey is the part of a service account's JSON key the JWT bearer
// grant needs.
type serviceKey struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
}

// serviceAccountGrant signs a JWT with the key and trades it at the token
// endpoint (grant_type urn:ietf:params:oauth:grant-type:jwt-bearer).
func (s *Source) serviceAccountGrant(ctx context.Context, raw string) (sdk.Grant, error) {
	if len(raw) > maxServiceKeyLen {
		return sdk.Grant{}, sdk.Errorf(sdk.CodeInvalidArgument, "serviceAccountKey is too long for a service account's JSON key")
	}
	var k serviceKey
	if err := json.Unmarshal([]byte(raw), &k); err != nil || k.Type != "service_account" || k.ClientEmail == "" || k.PrivateKey == "" {
		return sdk.Grant{}, sdk.Errorf(sdk.CodeInvalidArgument, "serviceAccountKey must be a service account's JSON key (type service_account, with client_email and private_key)")
	}
	conf := &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID,
		Scopes: []string{Scope}, TokenURL: s.setting("token_url")}
	tok, err := conf.TokenSource(s.ctx(ctx)).Token()
	if err != nil {
		if strings.Contains(err.Error(), "private key") {
			return sdk.Grant{}, sdk.Errorf(sdk.CodeInvalidArgument, "serviceAccountKey: the private_key cannot be read")
		}
		return sdk.Grant{}, tokenError(err, "sign in with the service account", sdk.CodeUnauthenticated)
	}
	g := sdk.Grant{Credentials: map[string]string{credMethod: methodSA, credAccess: tok.AccessToken, credKey: raw}, Account: k.ClientEmail}
	if !tok.Expiry.IsZero() {
		g.ExpiresAtMs = tok.Expiry.UnixMilli()
	}
	return g, nil
}

// tokenError turns a token endpoint failure into an *sdk.Error: Google's
// invalid_grant and invalid_client are refusals of the grant (code
// refused, given as the caller's), 429 and 5xx are retryable, anything else
// is a remote failure. The message quotes Google's error code and
// description, never a token.
func tokenError(err error, what string, refused sdk.Code) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return sdk.RequestError(service, err)
	}
	status := 0
	var header http.Header
	if re.Response != nil {
		status, header = re.Response.StatusCode, re.Response.Header
	}
	reason := re.ErrorCode
	if re.ErrorDescription != "" {
		reason += ": " + re.ErrorDescription
	}
	switch {
	case re.ErrorCode == "invalid_grant" && refused == sdk.CodeUnauthenticated:
		return &sdk.Error{Code: refused, StatusCode: status, Message: "Google refused to " + what + " (" + reason + "): the access was revoked or expired; reconnect Google Analytics"}
	case re.ErrorCode == "invalid_grant" || re.ErrorCode == "invalid_request":
		return &sdk.Error{Code: refused, StatusCode: status, Message: "Google refused to " + what + " (" + reason + "): start connecting again"}
	case re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client":
		return &sdk.Error{Code: sdk.CodeUnconfigured, StatusCode: status, Message: "Google refused the OAuth client (" + reason + "): check the ga4 plugin's client_id and client_secret"}
	}
	if status == 0 {
		status = http.StatusBadGateway
	}
	return sdk.RemoteError(service, status, header, reason)
}

// revoke posts the token to the revocation endpoint as a form, as Google
// documents. Google answers 400 invalid_token for a token it no longer
// knows: already revoked.
func (s *Source) revoke(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.setting("revoke_url"), strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return sdk.Errorf(sdk.CodeInternal, "ga4: build revoke request: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	_, _, err = sdk.Exchange(s.client, req, service)
	var e *sdk.Error
	if errors.As(err, &e) && e.StatusCode == http.StatusBadRequest {
		return nil
	}
	return err
}

// accountName names the first Analytics account the credentials read, for
// display; "" when there is none or the call fails (the connection is
// still made: the failure shows at the first report).
func (s *Source) accountName(ctx context.Context, creds map[string]string) string {
	sums, err := s.accountSummaries(ctx, creds)
	if err != nil || len(sums) == 0 {
		return ""
	}
	return sums[0].DisplayName
}
