package sdk

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"
)

// WebhookSecretPrefix starts every Standard Webhooks signing secret.
const WebhookSecretPrefix = "whsec_"

// DecodeWebhookSecret returns the HMAC key of a "whsec_<base64>" secret.
func DecodeWebhookSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("secret must be whsec_ followed by base64")
	}
	return key, nil
}

// SignWebhook returns one signature of a webhook-signature header for id,
// timestamp (Unix seconds) and body under secret, as Standard Webhooks
// defines it: "v1," and the base64 HMAC-SHA256 of "id.timestamp.body",
// keyed with the base64-decoded part of the "whsec_" secret. Herald's
// webhook destination and its event deliveries both sign with it; a header
// carrying several signatures (a secret being rotated) separates them with
// spaces.
func SignWebhook(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := DecodeWebhookSecret(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// AddressAllowed reports whether a guarded client (GuardedHTTPClient with
// the same allowed CIDRs) would dial a: the check a URL given by a user can
// be put through before it is stored, so that a private address is refused
// at once rather than at the first delivery.
func AddressAllowed(a netip.Addr, allowed []netip.Prefix) bool { return addressAllowed(a, allowed) }
