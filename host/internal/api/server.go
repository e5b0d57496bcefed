package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/store"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// Deps is what the API needs from the rest of the host.
type Deps struct {
	Logger   hclog.Logger
	Store    *store.Store
	Auth     *auth.Authenticator
	Registry *prometheus.Registry
	// MaxBodyBytes caps request bodies (413 above it).
	MaxBodyBytes int64

	// BodyReadTimeout, CollectReadTimeout and UploadReadTimeout bound how
	// long a client may take to send a request body: JSON routes, public
	// beacons and routes that may carry an image (zero: 10s, 5s, 60s).
	BodyReadTimeout, CollectReadTimeout, UploadReadTimeout time.Duration
	// MetricsToken, when set, makes /metrics and gRPC reflection require
	// "Authorization: Bearer <token>".
	MetricsToken string

	// Blobs serves stored objects at /v1/blobs/{key}.
	Blobs blob.Store

	// The areas' Connect handlers, typed by the generated interfaces so
	// that the transport names no area. Both faces call the same
	// methods; nil leaves an area's routes out where noted.

	// Voices serves the brand voices (package voice). Voices, Traffic, Jobs
	// and Generate are always mounted: a nil one (a test's server) answers
	// its calls with "unimplemented".
	Voices apiv1connect.BrandVoiceServiceHandler
	// Traffic serves /v1/ai-traffic (package traffic).
	Traffic apiv1connect.AITrafficServiceHandler
	// Crawlers serves the server-log routes and the pages view (package
	// traffic); nil: not mounted.
	Crawlers apiv1connect.AICrawlerServiceHandler
	// Jobs serves job polling, GET /v1/ai/generate/job/{jobId} (package jobs).
	Jobs apiv1connect.JobServiceHandler
	// Generate serves text and image generation (package generate).
	Generate apiv1connect.GenerateServiceHandler
	// Scheduler serves /v1/scheduler (package schedule); nil leaves the
	// routes out.
	Scheduler apiv1connect.SchedulerServiceHandler
	// Destinations serves /v1/destinations and /v1/webhooks (package
	// destination); nil leaves the routes out.
	Destinations DestinationsHandler
	// Agent serves the agent's chat, sessions, context, feedback and
	// fine-tuning status (package agent); nil leaves those routes out.
	Agent ChatHandler
	// Content serves SEO scoring, content improvement and blog posts with
	// images (package content); nil leaves the routes out.
	Content apiv1connect.ContentServiceHandler
	// Visibility serves /v1/ai/generate/seo-site-report (package
	// visibility); nil leaves the routes out.
	Visibility apiv1connect.VisibilityServiceHandler
	// Trackers serves /v1/visibility/trackers (package visibility); nil
	// leaves the routes out.
	Trackers apiv1connect.TrackerServiceHandler
	// Events serves /v1/events (package events): subscriptions, their
	// delivery logs, recent events; nil leaves the routes out.
	Events apiv1connect.EventServiceHandler
	// Analytics serves /v1/analytics/google (package analytics); nil
	// leaves the routes out.
	Analytics apiv1connect.AnalyticsServiceHandler
	// MCP serves the Model Context Protocol at /mcp (package mcp); it
	// authenticates its own requests. nil leaves the route out.
	MCP http.Handler
}

// DestinationsHandler serves both services of package destination: the
// destination connections and the saved webhooks.
type DestinationsHandler interface {
	apiv1connect.DestinationServiceHandler
	apiv1connect.WebhookServiceHandler
}

// ChatHandler is the agent's ChatService plus Stream, the turn's events
// handed to a callback: the REST face's Server-Sent Events need them
// without a Connect stream (the Connect face's Chat sends the same events).
type ChatHandler interface {
	apiv1connect.ChatServiceHandler
	Stream(ctx context.Context, req *apiv1.ChatRequest, send func(*apiv1.ChatEvent) error) error
}

type server struct {
	Deps
	log      hclog.Logger
	maxBody  int64
	policies map[string]auth.Policy // Connect procedure → policy, overriding its service's
	// servicePolicies maps "/package.Service/" to the policy of its procedures.
	servicePolicies map[string]auth.Policy
	services        []string // Connect services, for health and reflection
	// procedures is every Connect procedure served ("/pkg.Service/Method"):
	// the closed set of route labels of the Connect face.
	procedures map[string]struct{}
	metrics    *httpMetrics

	bodyReadTimeout, collectReadTimeout, uploadReadTimeout time.Duration
}

// NewServer returns the HTTP handler of the whole API.
func NewServer(d Deps) http.Handler {
	s := &server{Deps: d, log: d.Logger.Named("api"), maxBody: d.MaxBodyBytes, policies: map[string]auth.Policy{}, servicePolicies: map[string]auth.Policy{}, procedures: map[string]struct{}{}}
	if s.maxBody <= 0 {
		s.maxBody = 1 << 20
	}
	s.bodyReadTimeout = orDefault(d.BodyReadTimeout, defaultBodyReadTimeout)
	s.collectReadTimeout = orDefault(d.CollectReadTimeout, defaultCollectReadTimeout)
	s.uploadReadTimeout = orDefault(d.UploadReadTimeout, defaultUploadReadTimeout)
	s.metrics = newHTTPMetrics(d.Registry)
	s.mountAlways()
	mux := http.NewServeMux()
	s.routes(mux)
	return s.middleware(jsonFallbacks(mux))
}

// mountAlways gives the areas whose routes are always mounted a handler
// that answers "unimplemented" when Deps has none.
func (s *server) mountAlways() {
	if s.Voices == nil {
		s.Voices = apiv1connect.UnimplementedBrandVoiceServiceHandler{}
	}
	if s.Traffic == nil {
		s.Traffic = apiv1connect.UnimplementedAITrafficServiceHandler{}
	}
	if s.Jobs == nil {
		s.Jobs = apiv1connect.UnimplementedJobServiceHandler{}
	}
	if s.Generate == nil {
		s.Generate = apiv1connect.UnimplementedGenerateServiceHandler{}
	}
}

// authenticate verifies credentials under policy and returns ctx carrying
// the caller.
func (s *server) authenticate(ctx context.Context, h http.Header, policy auth.Policy) (context.Context, error) {
	p, ok, err := s.Auth.Authenticate(ctx, h, policy)
	if err != nil {
		return ctx, err
	}
	if ok {
		ctx = auth.WithPrincipal(ctx, p)
	}
	return ctx, nil
}

// connectOptions are the handler options of every Connect service: the
// auth interceptor and the same body limit as REST.
func (s *server) connectOptions() []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithInterceptors(&authInterceptor{s: s}),
		connect.WithReadMaxBytes(int(s.maxBody)),
	}
}

// authInterceptor authenticates Connect, gRPC and gRPC-Web calls by the
// policy routes.go gives each procedure, and hides internal errors.
type authInterceptor struct{ s *server }

func (i *authInterceptor) policy(procedure string) auth.Policy {
	if p, ok := i.s.policies[procedure]; ok {
		return p
	}
	if slash := strings.LastIndexByte(procedure, '/'); slash > 0 {
		if p, ok := i.s.servicePolicies[procedure[:slash+1]]; ok {
			return p
		}
	}
	return auth.APIKey
}

func (i *authInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ctx, err := i.s.authenticate(ctx, req.Header(), i.policy(req.Spec().Procedure))
		if err != nil {
			return nil, i.s.connectError(ctx, req.Spec().Procedure, err)
		}
		if msg, ok := req.Any().(proto.Message); ok {
			if err := checkRequest(msg); err != nil {
				return nil, err
			}
		}
		res, err := next(ctx, req)
		if err != nil {
			return nil, i.s.connectError(ctx, req.Spec().Procedure, err)
		}
		return res, nil
	}
}

func (i *authInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i *authInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		ctx, err := i.s.authenticate(ctx, conn.RequestHeader(), i.policy(conn.Spec().Procedure))
		if err != nil {
			return i.s.connectError(ctx, conn.Spec().Procedure, err)
		}
		if err := next(ctx, conn); err != nil {
			return i.s.connectError(ctx, conn.Spec().Procedure, err)
		}
		return nil
	}
}

// connectError keeps API errors and replaces anything else with a generic
// internal error after logging it.
func (s *server) connectError(ctx context.Context, procedure string, err error) error {
	if ce, ok := overCapError(err); ok {
		return ce
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	s.log.Error("call failed", "procedure", procedure, "request_id", requestID(ctx), "error", err)
	return apierr.Internal("internal error")
}

// jsonFallbacks turns the mux's plain-text 404 and 405 into JSON bodies.
// It routes once: the mux records the matched pattern on the request before
// calling the handler, so an empty pattern at WriteHeader time means the
// mux itself is answering.
func jsonFallbacks(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(&fallbackWriter{ResponseWriter: w, r: r}, r)
	})
}

type fallbackWriter struct {
	http.ResponseWriter
	r         *http.Request
	swallowed bool
}

func (f *fallbackWriter) WriteHeader(code int) {
	if f.r.Pattern == "" && (code == http.StatusNotFound || code == http.StatusMethodNotAllowed) {
		f.swallowed = true
		msg := "no route for " + f.r.Method + " " + f.r.URL.Path
		if code == http.StatusMethodNotAllowed {
			msg = "method " + f.r.Method + " is not allowed on " + f.r.URL.Path
		}
		f.ResponseWriter.Header().Del("X-Content-Type-Options")
		writeMessage(f.ResponseWriter, code, msg, nil)
		return
	}
	f.ResponseWriter.WriteHeader(code)
}

func (f *fallbackWriter) Write(b []byte) (int, error) {
	if f.swallowed {
		return len(b), nil
	}
	return f.ResponseWriter.Write(b)
}

// Flush lets streaming responses through.
func (f *fallbackWriter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// Unwrap exposes the writer to http.ResponseController.
func (f *fallbackWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// publicCORS lets browsers on any origin POST beacons: it answers the
// preflight (OPTIONS) itself, marks every response readable by any origin,
// and caps the body at limit bytes (413 above it). Beacons carry no
// credentials, so the wildcard origin is safe.
func publicCORS(limit int64, next http.Handler) http.Handler {
	return withDocOf(next, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Access-Control-Allow-Origin"] = corsAnyOrigin // shared: see writeJSON
		h["Access-Control-Expose-Headers"] = corsExposeHeaders
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type")
			h.Set("Access-Control-Max-Age", "86400")
			h.Add("Vary", "Access-Control-Request-Headers")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	}))
}
