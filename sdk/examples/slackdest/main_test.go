package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// fakeSlack is an incoming webhook that checks what Slack checks and
// answers as Slack does; status forces an error answer.
func fakeSlack(t *testing.T, status int, header map[string]string, answer string) (url string, calls *atomic.Int32) {
	t.Helper()
	calls = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/services/T000/B000/XXXX" {
			t.Errorf("request %s %s, want POST /services/T000/B000/XXXX", r.Method, r.URL.Path)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		var body map[string]string
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["text"] != "*Launch*\n\nWe shipped." {
			t.Errorf("body = %v (%v)", body, err)
		}
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/services/T000/B000/XXXX", calls
}

func exportTo(url string) sdk.ExportRequest {
	return sdk.ExportRequest{
		ScheduleID: "sch_1", IdempotencyKey: "idem_1",
		Content:     sdk.Content{"title": "Launch", "text": "We shipped."},
		Credentials: map[string]string{"webhook_url": url},
	}
}

func TestConformanceInProcess(t *testing.T) {
	t.Parallel()
	okURL, calls := fakeSlack(t, http.StatusOK, nil, "ok")
	limitedURL, _ := fakeSlack(t, http.StatusTooManyRequests, map[string]string{"Retry-After": "30"}, "rate_limited")
	goneURL, _ := fakeSlack(t, http.StatusGone, nil, "channel_is_archived")
	exp := exportTo(okURL)
	client := sdk.GuardedHTTPClient(5*time.Second, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	plugintest.TestDestination(t, newSlack(client), plugintest.DestinationChecks{
		Valid:  sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export: &exp,
		Failures: []plugintest.ExportFailure{
			{Name: "a rate-limited post is retryable after Slack's delay", Request: exportTo(limitedURL),
				Want: sdk.Error{Code: sdk.CodeRateLimited, Retryable: true, StatusCode: 429, RetryAfter: 30 * time.Second}},
			{Name: "an archived channel is not retryable", Request: exportTo(goneURL),
				Want: sdk.Error{Code: sdk.CodeRemote, StatusCode: 410}},
		},
	})
	if n := calls.Load(); n != 1 {
		t.Errorf("slack received %d posts, want 1", n)
	}
}

// TestConformanceSubprocess builds this example and runs it as the host
// would: a go-plugin subprocess speaking gRPC.
func TestConformanceSubprocess(t *testing.T) {
	t.Parallel()
	okURL, calls := fakeSlack(t, http.StatusOK, nil, "ok")
	exp := exportTo(okURL)
	cmd := exec.Command(plugintest.Build(t, "."))
	cmd.Env = append(os.Environ(), sdk.AllowedPrivateCIDRsEnv+"=127.0.0.0/8")
	proc := plugintest.StartCmd(t, cmd)
	plugintest.CheckDestination(t, proc.Destination(t), plugintest.DestinationChecks{
		Valid:  sdk.ValidateRequest{Content: exp.Content, Credentials: exp.Credentials},
		Export: &exp,
	})
	if n := calls.Load(); n != 1 {
		t.Errorf("slack received %d posts, want 1", n)
	}
}
