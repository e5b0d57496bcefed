package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
)

// newHTTPServer serves handler on ln: HTTP/1.1 for REST and Connect,
// cleartext HTTP/2 for gRPC clients (grpcurl -plaintext) without TLS.
func newHTTPServer(handler http.Handler, ln net.Listener, cfg *config.Config, reg prometheus.Registerer) *httpServer {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)

	// Cap open connections: over the cap, a 503 and a count in /metrics.
	return &httpServer{srv: srv, ln: api.LimitListener(ln, cfg.Limits.MaxConnections, reg)}
}

// httpServer serves srv on ln between Start and Stop.
type httpServer struct {
	srv  *http.Server
	ln   net.Listener
	errc chan error // Serve's error, when it fails before Stop
}

func (h *httpServer) Start(context.Context) error {
	h.errc = make(chan error, 1)
	go func() {
		if err := h.srv.Serve(h.ln); !errors.Is(err, http.ErrServerClosed) {
			h.errc <- err
		}
	}()
	return nil
}

// Stop stops accepting and waits for in-flight requests until ctx ends.
func (h *httpServer) Stop(ctx context.Context) error { return h.srv.Shutdown(ctx) }
