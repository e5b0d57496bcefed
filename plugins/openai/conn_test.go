package openai

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// set replaces the provider's key and base URL as Configure does, without
// its checks (tests use values Configure refuses, such as an empty key).
func (p *Provider) set(key, base string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.apiKey, p.baseURL = key, base
	p.conn = p.newConn()
}

// burstAPI answers chat completions in bursts: it holds each request until
// width of them are in flight, so that a burst needs width connections at
// once. It counts the TCP connections it accepts and records each request's
// Authorization header.
type burstAPI struct {
	width int
	conns atomic.Int64

	mu      sync.Mutex
	waiting int
	gate    chan struct{}
	auth    []string
}

func (b *burstAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	b.mu.Lock()
	b.auth = append(b.auth, r.Header.Get("Authorization"))
	if b.gate == nil {
		b.gate = make(chan struct{})
	}
	gate := b.gate
	if b.waiting++; b.waiting == b.width {
		close(gate)
		b.gate, b.waiting = nil, 0
	}
	b.mu.Unlock()
	select {
	case <-gate:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"m",
		"choices":[{"index":0,"message":{"role":"assistant","content":"ok","refusal":null},"finish_reason":"stop","logprobs":null}],
		"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

func (b *burstAPI) keys() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := map[string]int{}
	for _, a := range b.auth {
		n[a]++
	}
	return n
}

func startBurstAPI(t *testing.T, width int) (*burstAPI, string) {
	t.Helper()
	b := &burstAPI{width: width}
	srv := httptest.NewUnstartedServer(b)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			b.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return b, srv.URL + "/v1"
}

// bursts makes rounds bursts of width concurrent GenerateText calls.
func bursts(t *testing.T, client sdk.Provider, rounds, width int) {
	t.Helper()
	for range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, width)
		for range width {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := client.GenerateText(context.Background(), sdk.TextRequest{Model: "m", Prompt: "hi"}); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

// The SDK client is built once per settings change and shared by
// concurrent calls, whose connections are kept alive and reused from one
// burst to the next; a changed key or base URL takes effect on the next
// call.
func TestCallsShareOneClientAndReuseConnections(t *testing.T) {
	t.Parallel()
	const rounds, width = 5, 8
	a, baseA := startBurstAPI(t, width)
	b, baseB := startBurstAPI(t, width)
	p := New()
	p.set("key-a", baseA)
	client := plugintest.InProcessProvider(t, p)
	built := p.builds.Load()

	bursts(t, client, rounds, width)
	if n := p.builds.Load() - built; n != 0 {
		t.Errorf("%d SDK clients built for %d calls, want none after the settings'", n, rounds*width)
	}
	if n := a.conns.Load(); n != width {
		t.Errorf("%d connections for %d bursts of %d calls, want %d (kept alive and reused)", n, rounds, width, width)
	}

	if err := client.Configure(t.Context(), map[string]string{"api_key": "key-b", "base_url": baseB}); err != nil {
		t.Fatal(err)
	}
	if n := p.builds.Load() - built; n != 1 {
		t.Errorf("%d SDK clients built by a settings change, want 1", n)
	}
	bursts(t, client, 2, width)
	if got := b.keys(); got["Bearer key-b"] != 2*width || len(got) != 1 {
		t.Errorf("the new base URL saw %v, want %d calls with key-b", got, 2*width)
	}
	if got := a.keys(); got["Bearer key-a"] != rounds*width || len(got) != 1 {
		t.Errorf("the old base URL saw %v after the change, want only its %d calls with key-a", got, rounds*width)
	}
	if n := b.conns.Load(); n != width {
		t.Errorf("%d connections to the new base URL, want %d", n, width)
	}

	// The same settings again build nothing; a new key alone takes effect.
	if err := client.Configure(t.Context(), map[string]string{"api_key": "key-b"}); err != nil {
		t.Fatal(err)
	}
	if n := p.builds.Load() - built; n != 1 {
		t.Errorf("%d SDK clients built after an unchanged Configure, want 1", n)
	}
	if err := client.Configure(t.Context(), map[string]string{"api_key": "key-c"}); err != nil {
		t.Fatal(err)
	}
	bursts(t, client, 1, width)
	if got := b.keys(); got["Bearer key-c"] != width {
		t.Errorf("after a key change the server saw %v, want %d calls with key-c", got, width)
	}
}
