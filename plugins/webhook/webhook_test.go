package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// secret is "whsec_" + base64("herald-test-key-0123456789").
var secret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("herald-test-key-0123456789"))

// receiver verifies deliveries independently of Sign, as a Standard Webhooks
// consumer would, then answers with status (and Retry-After when set).
func receiver(t *testing.T, status int, retryAfter string) (string, *atomic.Int32) {
	t.Helper()
	calls := &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/hooks/herald" || r.URL.Query().Get("token") != "abc" {
			t.Errorf("request %s %s, want POST /hooks/herald?token=abc", r.Method, r.URL)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
		if id != "idem-42" {
			t.Errorf("webhook-id = %q, want the idempotency key", id)
		}
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || time.Since(time.Unix(sec, 0)).Abs() > time.Minute {
			t.Errorf("webhook-timestamp = %q, want current Unix seconds", ts)
		}
		key, _ := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + ts + "." + string(body)))
		if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); r.Header.Get("webhook-signature") != want {
			t.Errorf("webhook-signature = %q, want %q", r.Header.Get("webhook-signature"), want)
		}
		var p struct {
			Type string `json:"type"`
			Data struct {
				ScheduleID      string         `json:"scheduleId"`
				ContentToExport map[string]any `json:"contentToExport"`
				ImageURL        string         `json:"imageUrl"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("body is not JSON: %v", err)
		}
		if p.Type != EventType || p.Data.ScheduleID != "sch-1" || p.Data.ContentToExport["title"] != "Launch" || p.Data.ImageURL != "https://cdn.example/cover.png" {
			t.Errorf("payload = %+v", p)
		}
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":"nope"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hooks/herald?token=abc", calls
}

func exportReq(url, secret string) sdk.ExportRequest {
	return sdk.ExportRequest{
		ScheduleID: "sch-1", IdempotencyKey: "idem-42",
		Content:     sdk.Content{"title": "Launch", "content": "<p>Hi</p>"},
		Credentials: map[string]string{"url": url, "secret": secret},
		ImageURL:    "https://cdn.example/cover.png",
	}
}

func TestExport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		retryAfter string
		wantErr    *sdk.Error
	}{
		{"a 2xx answer exports with the webhook id as external id", http.StatusNoContent, "", nil},
		{"a 429 is retryable after the receiver's delay", http.StatusTooManyRequests, "15", &sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 15 * time.Second}},
		{"a 500 is retryable", http.StatusInternalServerError, "", &sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, StatusCode: 500}},
		{"a 401 from the receiver is not retryable", http.StatusUnauthorized, "", &sdk.Error{Code: sdk.CodeUnauthenticated, StatusCode: 401}},
		{"a 410 from the receiver is not retryable", http.StatusGone, "", &sdk.Error{Code: sdk.CodeRemote, StatusCode: 410}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, calls := receiver(t, tt.status, tt.retryAfter)
			client := plugintest.InProcessDestination(t, newDestination(loopback))
			res, err := client.Export(t.Context(), exportReq(url, secret))
			if calls.Load() != 1 {
				t.Fatalf("receiver got %d calls, want 1", calls.Load())
			}
			if tt.wantErr == nil {
				if err != nil || res.ExternalID != "idem-42" {
					t.Fatalf("Export = %+v, %v", res, err)
				}
				return
			}
			e := sdk.AsError(err)
			if e == nil || e.Code != tt.wantErr.Code || e.Retryable != tt.wantErr.Retryable || e.StatusCode != tt.wantErr.StatusCode || e.RetryAfter != tt.wantErr.RetryAfter {
				t.Errorf("error = %+v, want %+v", e, tt.wantErr)
			}
		})
	}
}

func TestSignMatchesTheStandardWebhooksExample(t *testing.T) {
	t.Parallel()
	// The example of the Standard Webhooks specification.
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		creds    map[string]string
		wantKeys []string
	}{
		{"good credentials have no problems", map[string]string{"url": "https://example.com/h", "secret": secret}, nil},
		{"missing credentials are named", map[string]string{}, []string{"credentials.url", "credentials.secret"}},
		{"a non-http url is refused", map[string]string{"url": "ftp://example.com", "secret": secret}, []string{"credentials.url"}},
		{"a secret that is not base64 is refused", map[string]string{"url": "https://example.com", "secret": "whsec_***"}, []string{"credentials.secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			problems, err := newDestination(loopback).Validate(t.Context(), sdk.ValidateRequest{Content: sdk.Content{}, Credentials: tt.creds})
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, p := range problems {
				keys = append(keys, p.Key)
			}
			if len(keys) != len(tt.wantKeys) {
				t.Fatalf("problem keys = %v, want %v", keys, tt.wantKeys)
			}
			for i := range keys {
				if keys[i] != tt.wantKeys[i] {
					t.Errorf("problem keys = %v, want %v", keys, tt.wantKeys)
				}
			}
		})
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	url, _ := receiver(t, http.StatusOK, "")
	exp := exportReq(url, secret)
	plugintest.TestDestination(t, newDestination(loopback), plugintest.DestinationChecks{
		Valid:  sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export: &exp,
	})
}

// loopback lets the plugin reach the httptest fakes, as
// HERALD_ALLOWED_PRIVATE_CIDRS=127.0.0.0/8 would.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

func TestAPrivateEndpointIsRefusedUnlessAllowed(t *testing.T) {
	t.Parallel()
	url, calls := receiver(t, http.StatusOK, "")
	client := plugintest.InProcessDestination(t, newDestination(nil))
	_, err := client.Export(t.Context(), exportReq(url, secret))
	if e := sdk.AsError(err); e == nil || e.Code != sdk.CodeInvalidArgument || e.Retryable {
		t.Errorf("error = %+v, want a non-retryable invalid_argument", e)
	}
	if calls.Load() != 0 {
		t.Errorf("the private endpoint received %d calls", calls.Load())
	}
}

// The webhook's idempotency key is the webhook-id receivers deduplicate on,
// so it declares its export repeatable; the host repeats an export
// interrupted by a plugin crash only for such destinations.
func TestInfoDeclaresTheExportIdempotent(t *testing.T) {
	t.Parallel()
	info, err := plugintest.InProcessDestination(t, New()).Info(t.Context())
	if err != nil || !info.Idempotent {
		t.Errorf("Info = %+v, %v; want Idempotent", info, err)
	}
}
