package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/internal/testwait"
)

// slowBundle is the API on a real listener with short body read timeouts
// and a cap of maxConns connections, as host/httpserver.go serves it.
type slowBundle struct {
	addr string
	key  string
}

func setupSlow(t *testing.T, maxConns int) *slowBundle {
	t.Helper()
	s := storetest.SQLite(t)
	key, err := auth.CreateKey(t.Context(), s, "acme", "business", "alice@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	// Served on a listener of its own (api.LimitListener), not apitest's.
	d := voiceDeps(t, s, voice.Deps{Store: s})
	d.Logger, d.Auth, d.Registry = hclog.NewNullLogger(), auth.NewAuthenticator(s, jwtSecret), reg
	d.BodyReadTimeout, d.CollectReadTimeout, d.UploadReadTimeout = 300*time.Millisecond, 300*time.Millisecond, 5*time.Second
	h := api.NewServer(d)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 2 * time.Second, IdleTimeout: 5 * time.Second}
	go srv.Serve(api.LimitListener(ln, maxConns, reg))
	t.Cleanup(func() { srv.Close() })
	return &slowBundle{addr: ln.Addr().String(), key: key}
}

// trickle sends the headers of a POST announcing 16000 bytes and then one
// byte every 100ms, and returns the status line the server answers with
// and how long the connection stayed open.
func (b *slowBundle) trickle(t *testing.T, path string, header string) (string, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 16000\r\n%s\r\n{", path, header)
	done := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(c).ReadString('\n')
		done <- strings.TrimSpace(line)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	bound := time.After(5 * time.Second)
	for {
		select {
		case line := <-done:
			return line, time.Since(start)
		case <-tick.C:
			c.Write([]byte(" ")) // errors once the server closed: the read ends too
		case <-bound:
			t.Fatalf("%s: a body trickling in kept the connection open for 5s", path)
		}
	}
}

func TestSlowBodiesAreCutOffPerRoute(t *testing.T) {
	t.Parallel()
	b := setupSlow(t, 100)
	t.Run("group", func(t *testing.T) {
		for _, tc := range []struct{ name, path, header string }{
			{"the public collect route", "/v1/ai-traffic/collect", ""},
			{"a JSON route", "/v1/ai/generate/brand-voice/text", "api-key: " + b.key + "\r\n"},
			{"a Connect procedure", "/herald.api.v1.BrandVoiceService/CreateBrandVoiceFromText", "api-key: " + b.key + "\r\n"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				line, open := b.trickle(t, tc.path, tc.header)
				if tc.path[1] == 'v' && !strings.Contains(line, " 408 ") {
					t.Errorf("status line %q, want 408", line)
				}
				if open > 3*time.Second {
					t.Errorf("connection stayed open %v", open)
				}
			})
		}
	})
	if m := scrapeAddr(t, b.addr); !strings.Contains(m, "herald_http_body_read_timeouts_total 3") {
		t.Errorf("/metrics does not count the three cut-off bodies:\n%s", grep(m, "body_read"))
	}
}

func TestConnectionsOverTheCapAreRejectedAndCounted(t *testing.T) {
	t.Parallel()
	b := setupSlow(t, 2)
	// Two connections hold the cap (HTTP/1.1 keep-alive, nothing sent).
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", b.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		held = append(held, c)
	}
	c, err := net.Dial("tcp", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	raw, _ := io.ReadAll(c)
	c.Close()
	if !strings.HasPrefix(string(raw), "HTTP/1.1 503") {
		t.Fatalf("a connection over the cap got %q, want a 503", raw)
	}
	// Freeing one lets the next client in; /metrics shows the rejection.
	held[0].Close()
	// The server notices the close asynchronously: scrape until a
	// connection is accepted.
	var m string
	accepted := func() bool {
		m, err = tryScrape(b.addr)
		return err == nil
	}
	if testwait.Until(5*time.Second, accepted) != nil {
		t.Fatalf("no connection accepted after one closed: %v", err)
	}
	// At least the 503 above; refused scrapes may add more.
	if strings.Contains(m, "herald_http_connections_rejected_total 0") || !strings.Contains(m, "herald_http_connections_rejected_total ") {
		t.Errorf("/metrics: %s", grep(m, "connections"))
	}
}

func tryScrape(addr string) (string, error) {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return "", fmt.Errorf("status %d", res.StatusCode)
	}
	return string(body), err
}

func scrapeAddr(t *testing.T, addr string) string {
	t.Helper()
	m, err := tryScrape(addr)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func grep(text, word string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
