package pluginhost

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// routed returns a config with providers "primary" and "backup" (testplugin
// under those ids, answering through ctl) and model "m" routed to both, in
// that order, under the provider model name "m-native".
func routed(ctlURL string) *config.Config {
	cfg := testConfig()
	addProvider(cfg, "primary", "primary", ctlURL)
	addProvider(cfg, "backup", "backup", ctlURL)
	cfg.Models["m"] = config.Model{Name: "m", Deployments: []config.Deployment{{Provider: "primary", Model: "m-native"}, {Provider: "backup"}}}
	return cfg
}

// failing answers err for calls to plugin id and the prompt otherwise.
func failing(id string, err Answer) func(*http.Request, Call) Answer {
	return func(_ *http.Request, c Call) Answer {
		if c.ID == id {
			return err
		}
		return Answer{Text: c.Model + "/" + c.Prompt}
	}
}

var (
	unavailable = Answer{Code: string(sdk.CodeUnavailable), Message: "upstream answered 503", Retryable: true, Status: 503}
	rateLimited = Answer{Code: string(sdk.CodeRateLimited), Message: "slow down", Retryable: true, Status: 429}
)

func TestTheRouterFallsBackToTheNextDeploymentOnRetryableErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fail Answer
	}{{"a 503", unavailable}, {"a 429", rateLimited}} {
		t.Run("after "+tc.name+" from the first", func(t *testing.T) {
			t.Parallel()
			ctl := newControl(t, failing("primary", tc.fail))
			b := setup(t, routed(ctl.url))
			resp, err := b.m.GenerateText(ctxT(t), "m", sdk.TextRequest{Prompt: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			// backup serves the routed name itself, since its deployment names no model.
			if resp.Text != "backup:m/hi" {
				t.Errorf("text = %q, want backup:m/hi", resp.Text)
			}
			if n := ctl.count("primary"); n < 1 {
				t.Errorf("primary was called %d times, want at least once", n)
			}
		})
	}
	t.Run("and the first deployment gets its own model name", func(t *testing.T) {
		t.Parallel()
		ctl := newControl(t, nil)
		b := setup(t, routed(ctl.url))
		resp, err := b.m.GenerateText(ctxT(t), "m", sdk.TextRequest{Prompt: "hi"})
		if err != nil || resp.Text != "primary:hi" || resp.Model != "m-native" {
			t.Fatalf("response = %+v, %v; want primary serving m-native", resp, err)
		}
	})
}

func TestTheRouterReturnsARequestErrorWithoutFallingBack(t *testing.T) {
	t.Parallel()
	ctl := newControl(t, failing("primary", Answer{Code: string(sdk.CodeInvalidArgument), Message: "prompt too long", Status: 400}))
	b := setup(t, routed(ctl.url))
	_, err := b.m.GenerateText(ctxT(t), "m", sdk.TextRequest{Prompt: "hi"})
	if sdk.ErrorCode(err) != sdk.CodeInvalidArgument {
		t.Fatalf("error = %v, want invalid_argument", err)
	}
	if n := ctl.count("backup"); n != 0 {
		t.Errorf("backup was called %d times after a request error", n)
	}
}

func TestTheRouterHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	t.Run("waiting for it before retrying the only deployment", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		ctl := newControl(t, func(_ *http.Request, c Call) Answer {
			if calls.Add(1) == 1 {
				a := rateLimited
				a.RetryAfter = 1
				return a
			}
			return Answer{Text: "later"}
		})
		cfg := testConfig()
		addProvider(cfg, "solo", "solo", ctl.url)
		b := setup(t, cfg)
		start := time.Now()
		resp, err := b.m.GenerateText(ctxT(t), "solo", sdk.TextRequest{Prompt: "hi"})
		if err != nil || resp.Text != "solo:later" {
			t.Fatalf("response = %+v, %v", resp, err)
		}
		if elapsed := time.Since(start); elapsed < time.Second {
			t.Errorf("retried after %s, before the 1s Retry-After", elapsed)
		}
	})
	t.Run("giving up at once when it exceeds the cap, keeping it for the caller", func(t *testing.T) {
		t.Parallel()
		long := rateLimited
		long.RetryAfter = 60
		ctl := newControl(t, failing("solo", long))
		cfg := testConfig()
		addProvider(cfg, "solo", "solo", ctl.url)
		b := setup(t, cfg)
		start := time.Now()
		_, err := b.m.GenerateText(ctxT(t), "solo", sdk.TextRequest{Prompt: "hi"})
		var e *sdk.Error
		if !errors.As(err, &e) || e.Code != sdk.CodeRateLimited || e.RetryAfter != time.Minute {
			t.Fatalf("error = %v, want rate_limited with RetryAfter 1m", err)
		}
		if elapsed := time.Since(start); elapsed > 3*time.Second {
			t.Errorf("took %s; a Retry-After above the cap should not be waited for", elapsed)
		}
		if n := ctl.count("solo"); n != 1 {
			t.Errorf("solo called %d times, want 1", n)
		}
	})
}

func TestACoolingDeploymentIsSkippedUnlessItIsTheOnlyOne(t *testing.T) {
	t.Parallel()
	ctl := newControl(t, failing("primary", unavailable))
	cfg := routed(ctl.url)
	cfg.Router.Retries = 0
	cfg.Router.AllowedFails = 2
	cfg.Models["only-primary"] = config.Model{Name: "only-primary", Deployments: []config.Deployment{{Provider: "primary", Model: "m-native"}}}
	b := setup(t, cfg)
	ctx := ctxT(t)
	for i := range 4 {
		resp, err := b.m.GenerateText(ctx, "m", sdk.TextRequest{Prompt: "hi"})
		if err != nil || resp.Text != "backup:m/hi" {
			t.Fatalf("call %d = %+v, %v", i, resp, err)
		}
	}
	if n := ctl.count("primary"); n != 2 {
		t.Errorf("primary was called %d times in 4 calls, want 2 (then cooling down)", n)
	}
	// The same deployment, alone in its route, is still tried.
	_, err := b.m.GenerateText(ctx, "only-primary", sdk.TextRequest{Prompt: "hi"})
	if sdk.ErrorCode(err) != sdk.CodeUnavailable {
		t.Fatalf("only-primary error = %v, want the deployment's unavailable", err)
	}
	if n := ctl.count("primary"); n != 3 {
		t.Errorf("primary was called %d times, want 3: a cooling deployment that is the only one left is tried", n)
	}
}

func TestACallOverTheCallTimeoutIsCanceledAndFallsBack(t *testing.T) {
	t.Parallel()
	canceled := make(chan struct{}, 1)
	ctl := newControl(t, func(r *http.Request, c Call) Answer {
		if c.ID == "primary" {
			<-r.Context().Done() // the plugin gave up: its context was canceled
			canceled <- struct{}{}
			return Answer{}
		}
		return Answer{Text: c.Prompt}
	})
	cfg := routed(ctl.url)
	cfg.PluginCallTimeout = 300 * time.Millisecond
	cfg.Router.Retries = 0
	cfg.Models["only-primary"] = config.Model{Name: "only-primary", Deployments: []config.Deployment{{Provider: "primary"}}}
	b := setup(t, cfg)
	resp, err := b.m.GenerateText(ctxT(t), "m", sdk.TextRequest{Prompt: "hi"})
	if err != nil || resp.Text != "backup:hi" {
		t.Fatalf("response = %+v, %v; want backup after primary timed out", resp, err)
	}
	select {
	case <-canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the timed-out plugin call was not canceled in the plugin")
	}
	_, err = b.m.GenerateText(ctxT(t), "only-primary", sdk.TextRequest{Prompt: "hi"})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodeUnavailable || !strings.Contains(e.Message, "plugin_call_timeout") {
		t.Fatalf("error = %v, want unavailable naming plugin_call_timeout", err)
	}
}

func TestAnUnknownModelErrorListsTheConfiguredModels(t *testing.T) {
	t.Parallel()
	b := setup(t, routed(""))
	_, err := b.m.GenerateText(ctxT(t), "gpt-9", sdk.TextRequest{Prompt: "hi"})
	if !errors.Is(err, sdk.ErrUnknownModel) {
		t.Fatalf("error = %v, want ErrUnknownModel", err)
	}
	for _, want := range []string{`"gpt-9"`, "backup", "m", "primary"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if got := b.m.Models(); strings.Join(got, ",") != "backup,m,primary" {
		t.Errorf("Models() = %v", got)
	}
}

func TestAnUnconfiguredProviderSaysWhatToSet(t *testing.T) {
	t.Parallel()
	ctl := newControl(t, failing("solo", Answer{Code: string(sdk.CodeUnconfigured), Message: "set TESTPLUGIN_API_KEY (or the api_key setting)"}))
	cfg := testConfig()
	addProvider(cfg, "solo", "solo", ctl.url)
	b := setup(t, cfg)
	_, err := b.m.GenerateText(ctxT(t), "solo", sdk.TextRequest{Prompt: "hi"})
	var e *sdk.Error
	if !errors.As(err, &e) || e.Code != sdk.CodeUnconfigured || !strings.Contains(e.Message, "set TESTPLUGIN_API_KEY") {
		t.Fatalf("error = %v, want unconfigured saying what to set", err)
	}
	if n := ctl.count("solo"); n != 1 {
		t.Errorf("an unconfigured provider was called %d times, want 1 (no retries)", n)
	}
}

func TestChatFallsBackBeforeStreamingAndImagesRoute(t *testing.T) {
	t.Parallel()
	ctl := newControl(t, failing("primary", unavailable))
	b := setup(t, routed(ctl.url))
	var text strings.Builder
	finished := 0
	err := b.m.Chat(ctxT(t), "m", sdk.ChatRequest{Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}}, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		text.WriteString(ev.TextDelta)
		if ev.Finish != nil {
			finished++
		}
		return nil
	}))
	if err != nil || text.String() != "backup:m/hi" || finished != 1 {
		t.Fatalf("chat = %q (%d finish events), %v", text.String(), finished, err)
	}
	img, err := b.m.GenerateImage(ctxT(t), "m", sdk.ImageRequest{Prompt: "a cat"})
	if err != nil || img.MIMEType != "image/png" || len(img.Data) == 0 {
		t.Fatalf("image = %s %d bytes, %v", img.MIMEType, len(img.Data), err)
	}
}
