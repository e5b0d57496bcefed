package api

import (
	"net/http"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/dashboard"
	"github.com/heraldhq/herald/host/internal/openapi"
	"github.com/heraldhq/herald/host/internal/traffic"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

// routes lists every route of both faces. A reader finds any route's
// implementation by following the method value into its area package.
// Routes() reads the same registrations to document the REST face.
func (s *server) routes(mux muxer) {
	const key = auth.APIKey

	// Brand voices (package voice). A website or file voice is 201 with the
	// voice, or 202 with a job id when its fetch was queued.
	v := s.Voices
	source := func(r *apiv1.CreateBrandVoiceFromSourceResponse) int {
		return queuedOr(r.GetJobId(), http.StatusCreated)
	}
	mux.Handle("POST /v1/ai/generate/brand-voice/text", rest(s, key, http.StatusCreated, v.CreateBrandVoiceFromText))
	mux.Handle("POST /v1/ai/generate/brand-voice/website", restStatus(s, key, source, v.CreateBrandVoiceFromWebsite, 201, 202))
	mux.Handle("POST /v1/ai/chat/brand-voice", restStatus(s, key, source, v.CreateBrandVoiceFromWebsite, 201, 202))
	mux.Handle("POST /v1/ai/generate/brand-voice/file", restStatus(s, key, source, v.CreateBrandVoiceFromFile, 201, 202))
	mux.Handle("GET /v1/ai/brand-voice/{$}", rest(s, key, http.StatusOK, v.ListBrandVoices))
	mux.Handle("GET /v1/ai/brand-voice", rest(s, key, http.StatusOK, v.ListBrandVoices))
	mux.Handle("GET /v1/ai/brand-voice/{id}", rest(s, key, http.StatusOK, v.GetBrandVoice))
	mux.Handle("PUT /v1/ai/brand-voice/{id}", rest(s, key, http.StatusOK, v.UpdateBrandVoice))
	mux.Handle("DELETE /v1/ai/brand-voice/{id}", rest(s, key, http.StatusOK, v.DeleteBrandVoice))
	mux.Handle("PUT /v1/ai/chat/brandVoices/{id}", rest(s, key, http.StatusOK, v.UpdateBrandVoice))
	mux.Handle("DELETE /v1/ai/chat/brandVoices/{id}", rest(s, key, http.StatusOK, v.DeleteBrandVoice))
	s.connectService(mux, apiv1connect.BrandVoiceServiceName, key, nil)(apiv1connect.NewBrandVoiceServiceHandler(v, s.connectOptions()...))

	// AI traffic (package traffic). t.js and collect are public; collect
	// answers any origin's preflight and caps beacons at traffic.MaxBeaconBytes.
	tr := s.Traffic
	mux.Handle("GET /v1/ai-traffic/sites", rest(s, key, http.StatusOK, tr.ListSites))
	// 201 with a new site; 200 with the existing site when the workspace
	// already has the domain.
	site := func(r *apiv1.AITrafficSite) int { return createdOr(r.GetCreated(), http.StatusOK) }
	mux.Handle("POST /v1/ai-traffic/sites", restStatus(s, key, site, tr.CreateSite, 201, 200))
	mux.Handle("POST /v1/ai-traffic/sites/ensure", rest(s, key, http.StatusOK, tr.EnsureSite))
	mux.Handle("GET /v1/ai-traffic/stats", rest(s, key, http.StatusOK, tr.GetStats))
	mux.Handle("GET /v1/ai/generate/ai-traffic", rest(s, key, http.StatusOK, tr.GetStats))
	mux.Handle("GET /v1/ai-traffic/t.js", traffic.ScriptHandler())
	collect := publicCORS(traffic.MaxBeaconBytes, rest(s, auth.Public, http.StatusAccepted, tr.Collect))
	mux.Handle("POST /v1/ai-traffic/collect", collect)
	mux.Handle("OPTIONS /v1/ai-traffic/collect", collect)
	s.connectService(mux, apiv1connect.AITrafficServiceName, key, map[string]auth.Policy{
		apiv1connect.AITrafficServiceCollectProcedure: auth.Public,
	})(apiv1connect.NewAITrafficServiceHandler(tr, s.connectOptions()...))
	// The public Connect Collect has the REST face's beacon cap, enforced
	// on the raw body before anything is decoded: its own handler, mounted
	// at the procedure's exact path, wins over the service's.
	_, collectRPC := apiv1connect.NewAITrafficServiceHandler(tr, append(s.connectOptions(), connect.WithReadMaxBytes(traffic.MaxBeaconBytes))...)
	mux.Handle(apiv1connect.AITrafficServiceCollectProcedure, capBody(traffic.MaxBeaconBytes, collectRPC))

	// AI crawlers from server logs, and the pages view (package traffic,
	// docs/CRAWLERS.md). The log route takes the raw body in the format its
	// Content-Type names, authenticated by the site's ingest secret (checked
	// by the service) or an api-key (verified here when sent).
	if cr := s.Crawlers; cr != nil {
		mux.Handle("POST /v1/ai-traffic/logs", restLogs(s, cr.IngestLogs))
		mux.Handle("POST /v1/ai-traffic/sites/{siteKey}/ingest-secret", rest(s, key, http.StatusOK, cr.RotateIngestSecret))
		mux.Handle("GET /v1/ai-traffic/pages", rest(s, key, http.StatusOK, cr.GetPages))
		_, logsRPC := apiv1connect.NewAICrawlerServiceHandler(cr, append(s.connectOptions(), connect.WithReadMaxBytes(traffic.MaxLogBytes+1024))...)
		s.connectService(mux, apiv1connect.AICrawlerServiceName, key, map[string]auth.Policy{
			apiv1connect.AICrawlerServiceIngestLogsProcedure: auth.APIKeyIfSent,
		})(apiv1connect.NewAICrawlerServiceHandler(cr, s.connectOptions()...))
		mux.Handle(apiv1connect.AICrawlerServiceIngestLogsProcedure, logsRPC)
	}

	// Google Analytics as a traffic source (package analytics). The
	// callback is public: Google's redirect brings the browser without a
	// key, and the one-time state names the workspace.
	if an := s.Analytics; an != nil {
		mux.Handle("GET /v1/analytics/google", rest(s, key, http.StatusOK, an.GetGoogleConnection))
		mux.Handle("PUT /v1/analytics/google", rest(s, key, http.StatusOK, an.ConnectGoogle))
		mux.Handle("DELETE /v1/analytics/google", rest(s, key, http.StatusOK, an.DisconnectGoogle))
		mux.Handle("GET /v1/analytics/google/callback", rest(s, auth.Public, http.StatusOK, an.FinishGoogleConnect))
		mux.Handle("GET /v1/analytics/google/properties", rest(s, key, http.StatusOK, an.ListGoogleProperties))
		mux.Handle("PUT /v1/analytics/google/sites/{siteKey}", rest(s, key, http.StatusOK, an.SetGoogleSiteProperty))
		s.connectService(mux, apiv1connect.AnalyticsServiceName, key, map[string]auth.Policy{
			apiv1connect.AnalyticsServiceFinishGoogleConnectProcedure: auth.Public,
		})(apiv1connect.NewAnalyticsServiceHandler(an, s.connectOptions()...))
	}

	// Text and image generation (package generate): text is 200 inline, or
	// 202 with a job id with useWorker.
	g := s.Generate
	text := func(r *apiv1.GenerateTextResponse) int { return queuedOr(r.GetJobId(), http.StatusOK) }
	mux.Handle("POST /v1/ai/generate/text", restStatus(s, key, text, g.GenerateText, 200, 202))
	mux.Handle("POST /v1/ai/generate/image", rest(s, key, http.StatusOK, g.GenerateImage))
	s.connectService(mux, apiv1connect.GenerateServiceName, key, nil)(apiv1connect.NewGenerateServiceHandler(g, s.connectOptions()...))

	// SEO scoring, content improvement, blog posts with images (package
	// content). An improvement is 200 inline, or 202 with a job id when queued.
	if c := s.Content; c != nil {
		simple := func(r *apiv1.ImproveContentSimpleResponse) int { return queuedOr(r.GetJobId(), http.StatusOK) }
		validated := func(r *apiv1.ImproveContentWithValidationResponse) int { return queuedOr(r.GetJobId(), http.StatusOK) }
		mux.Handle("POST /v1/ai/generate/calculate-seo-score", rest(s, key, http.StatusOK, c.CalculateSEOScore))
		mux.Handle("POST /v1/ai/generate/improve-content-simple", restStatus(s, key, simple, c.ImproveContentSimple, 200, 202))
		mux.Handle("POST /v1/ai/generate/improve-content-with-validation", restStatus(s, key, validated, c.ImproveContentWithValidation, 200, 202))
		mux.Handle("POST /v1/ai/generate/process-blog-post-with-images", rest(s, key, http.StatusAccepted, c.ProcessBlogPostWithImages))
		s.connectService(mux, apiv1connect.ContentServiceName, key, nil)(apiv1connect.NewContentServiceHandler(c, s.connectOptions()...))
	}

	// AI visibility reports (package visibility).
	if vis := s.Visibility; vis != nil {
		mux.Handle("POST /v1/ai/generate/seo-site-report/prefill", rest(s, key, http.StatusOK, vis.PrefillReport))
		mux.Handle("POST /v1/ai/generate/seo-site-report", rest(s, key, http.StatusAccepted, vis.CreateReport))
		mux.Handle("GET /v1/ai/generate/seo-site-report", rest(s, key, http.StatusOK, vis.GetReport))
		mux.Handle("GET /v1/ai/generate/seo-site-report/history", rest(s, key, http.StatusOK, vis.GetReportHistory))
		mux.Handle("GET /v1/ai/generate/seo-site-report/one-off", rest(s, key, http.StatusOK, vis.ListOneOffReports))
		mux.Handle("GET /v1/ai/generate/seo-site-report/one-off/{id}", rest(s, key, http.StatusOK, vis.GetOneOffReport))
		s.connectService(mux, apiv1connect.VisibilityServiceName, key, nil)(apiv1connect.NewVisibilityServiceHandler(vis, s.connectOptions()...))
	}

	// Visibility trackers (package visibility, tracker*.go): a report's
	// setup run daily or weekly, and its trend. 403 over the plan's
	// trackers (free: none) and for a run the credits do not cover; 400
	// names the field (a cadence the plan does not include is 400).
	if tk := s.Trackers; tk != nil {
		mux.Handle("POST /v1/visibility/trackers", rest(s, key, http.StatusCreated, tk.CreateTracker))
		mux.Handle("GET /v1/visibility/trackers", rest(s, key, http.StatusOK, tk.ListTrackers))
		mux.Handle("GET /v1/visibility/trackers/{id}", rest(s, key, http.StatusOK, tk.GetTracker))
		mux.Handle("PUT /v1/visibility/trackers/{id}", rest(s, key, http.StatusOK, tk.UpdateTracker))
		mux.Handle("DELETE /v1/visibility/trackers/{id}", rest(s, key, http.StatusOK, tk.DeleteTracker))
		mux.Handle("POST /v1/visibility/trackers/{id}/run", rest(s, key, http.StatusAccepted, tk.RunTracker))
		mux.Handle("GET /v1/visibility/trackers/{id}/trend", rest(s, key, http.StatusOK, tk.GetTrackerTrend))
		mux.Handle("GET /v1/visibility/trackers/{id}/trend.csv", restCSV(s, key, tk.ExportTrackerTrend))
		s.connectService(mux, apiv1connect.TrackerServiceName, key, nil)(apiv1connect.NewTrackerServiceHandler(tk, s.connectOptions()...))
	}

	// Job polling (package jobs).
	mux.Handle("GET /v1/ai/generate/job/{jobId}", rest(s, key, http.StatusOK, s.Jobs.GetJob))
	s.connectService(mux, apiv1connect.JobServiceName, key, nil)(apiv1connect.NewJobServiceHandler(s.Jobs, s.connectOptions()...))

	// Post scheduler (package schedule): api-key (plans with scheduler API
	// access) or session JWT.
	const either = auth.APIKeyOrSession
	if sc := s.Scheduler; sc != nil {
		mux.Handle("POST /v1/scheduler/create", rest(s, either, http.StatusOK, sc.CreateSchedule))
		mux.Handle("GET /v1/scheduler", rest(s, either, http.StatusOK, sc.ListSchedules))
		mux.Handle("GET /v1/scheduler/{$}", rest(s, either, http.StatusOK, sc.ListSchedules))
		mux.Handle("GET /v1/scheduler/{id}", rest(s, either, http.StatusOK, sc.GetSchedule))
		mux.Handle("DELETE /v1/scheduler/{id}", rest(s, either, http.StatusOK, sc.DeleteSchedule))
		mux.Handle("POST /v1/scheduler/{id}/retry", rest(s, either, http.StatusOK, sc.RetrySchedule))
		// Calendar (posts by day in tz), previews, repeat rules and posts
		// to several destinations; 403 over the plan's post_destinations.
		mux.Handle("GET /v1/scheduler/calendar", rest(s, either, http.StatusOK, sc.GetCalendar))
		mux.Handle("POST /v1/scheduler/preview", rest(s, either, http.StatusOK, sc.PreviewPost))
		mux.Handle("DELETE /v1/scheduler/rules/{id}", rest(s, either, http.StatusOK, sc.CancelRepeatRule))
		mux.Handle("POST /v1/posts", rest(s, either, http.StatusOK, sc.CreatePost))
		mux.Handle("GET /v1/posts/{id}", rest(s, either, http.StatusOK, sc.GetPost))
		mux.Handle("DELETE /v1/posts/{id}", rest(s, either, http.StatusOK, sc.DeletePost))
		mux.Handle("POST /v1/posts/{id}/retry", rest(s, either, http.StatusOK, sc.RetryPost))
		mux.Handle("POST /v1/posts/{id}/move", rest(s, either, http.StatusOK, sc.MovePost))
		s.connectService(mux, apiv1connect.SchedulerServiceName, either, nil)(apiv1connect.NewSchedulerServiceHandler(sc, s.connectOptions()...))
	}

	// The impact of published posts (package impact): the scheduler's auth.
	if im := s.Impact; im != nil {
		mux.Handle("GET /v1/scheduler/{id}/impact", rest(s, either, http.StatusOK, im.GetScheduleImpact))
		mux.Handle("GET /v1/visibility/trackers/{id}/impact", rest(s, either, http.StatusOK, im.ListTrackerImpact))
		mux.Handle("POST /v1/visibility/trackers/{id}/brief", rest(s, either, http.StatusOK, im.CreateTrackerBrief))
		mux.Handle("POST /v1/visibility/trackers/{id}/drafts", rest(s, either, http.StatusOK, im.CreateTrackerDraft))
		s.connectService(mux, apiv1connect.ImpactServiceName, either, nil)(apiv1connect.NewImpactServiceHandler(im, s.connectOptions()...))
	}

	// Destination connections and saved webhooks (package destination):
	// the scheduler's auth.
	if d := s.Destinations; d != nil {
		mux.Handle("GET /v1/destinations", rest(s, either, http.StatusOK, d.ListDestinations))
		mux.Handle("PUT /v1/destinations/{name}/connection", rest(s, either, http.StatusOK, d.ConnectDestination))
		mux.Handle("DELETE /v1/destinations/{name}/connection", rest(s, either, http.StatusOK, d.DisconnectDestination))
		// OAuth (linkedin): the callback is public, LinkedIn redirects the
		// member's browser to it; its one-use state names the workspace.
		mux.Handle("POST /v1/destinations/{name}/oauth/start", rest(s, either, http.StatusOK, d.StartOAuth))
		mux.Handle("GET /v1/destinations/{name}/oauth/callback", rest(s, auth.Public, http.StatusOK, d.FinishOAuth))
		mux.Handle("POST /v1/webhooks", rest(s, either, http.StatusCreated, d.CreateWebhook))
		mux.Handle("GET /v1/webhooks", rest(s, either, http.StatusOK, d.ListWebhooks))
		// 409 while pending posts use it; ?force=true fails them.
		mux.Handle("DELETE /v1/webhooks/{id}", rest(s, either, http.StatusOK, d.DeleteWebhook))
		mux.Handle("POST /v1/webhooks/{id}/test", rest(s, either, http.StatusOK, d.TestWebhook))
		s.connectService(mux, apiv1connect.DestinationServiceName, either, nil)(apiv1connect.NewDestinationServiceHandler(d, s.connectOptions()...))
		s.connectService(mux, apiv1connect.WebhookServiceName, either, nil)(apiv1connect.NewWebhookServiceHandler(d, s.connectOptions()...))
	}

	// Events (package events): subscriptions that send the workspace's
	// events to a URL (Standard Webhooks or Slack), their delivery logs and
	// the recent events. 400 names an unknown event type or a private
	// address; another workspace's subscription is 404.
	if ev := s.Events; ev != nil {
		mux.Handle("POST /v1/events/subscriptions", rest(s, key, http.StatusCreated, ev.CreateEventSubscription))
		mux.Handle("GET /v1/events/subscriptions", rest(s, key, http.StatusOK, ev.ListEventSubscriptions))
		mux.Handle("GET /v1/events/subscriptions/{id}", rest(s, key, http.StatusOK, ev.GetEventSubscription))
		mux.Handle("DELETE /v1/events/subscriptions/{id}", rest(s, key, http.StatusOK, ev.DeleteEventSubscription))
		mux.Handle("POST /v1/events/subscriptions/{id}/rotate", rest(s, key, http.StatusOK, ev.RotateEventSecret))
		mux.Handle("POST /v1/events/subscriptions/{id}/test", rest(s, key, http.StatusOK, ev.TestEventSubscription))
		mux.Handle("GET /v1/events/subscriptions/{id}/deliveries", rest(s, key, http.StatusOK, ev.ListEventDeliveries))
		mux.Handle("POST /v1/events/subscriptions/{id}/deliveries/{deliveryId}/redeliver", rest(s, key, http.StatusOK, ev.RedeliverEvent))
		mux.Handle("GET /v1/events", rest(s, key, http.StatusOK, ev.ListEvents))
		s.connectService(mux, apiv1connect.EventServiceName, key, nil)(apiv1connect.NewEventServiceHandler(ev, s.connectOptions()...))
	}

	// The agent (package agent): chat (JSON, or Server-Sent Events with
	// Accept: text/event-stream), sessions, context, feedback, fine-tuning.
	if ag := s.Agent; ag != nil {
		mux.Handle("POST /v1/ai/generate/chat", chatRoute(s, key, ag))
		mux.Handle("GET /v1/ai/generate/assistant/context", rest(s, key, http.StatusOK, ag.GetAssistantContext))
		mux.Handle("GET /v1/ai/chat/sessions", rest(s, key, http.StatusOK, ag.ListSessions))
		mux.Handle("GET /v1/ai/chat/session", rest(s, key, http.StatusOK, ag.GetLatestSession))
		// 201 with a new session; 200 when the caller's own id answered its
		// existing session (so clients may retry).
		session := func(r *apiv1.CreateSessionResponse) int { return createdOr(r.GetCreated(), http.StatusOK) }
		mux.Handle("POST /v1/ai/chat/session", restStatus(s, key, session, ag.CreateSession, 200, 201))
		mux.Handle("GET /v1/ai/chat/session/{sessionId}", rest(s, key, http.StatusOK, ag.GetSession))
		mux.Handle("DELETE /v1/ai/chat/session/{sessionId}", rest(s, key, http.StatusOK, ag.DeleteSession))
		mux.Handle("DELETE /v1/ai/chat/chatSession/{sessionId}", rest(s, key, http.StatusOK, ag.DeleteSession))
		mux.Handle("PUT /v1/ai/chat/session/{sessionId}/training", rest(s, key, http.StatusOK, ag.SetSessionTraining))
		mux.Handle("POST /v1/ai/chat/feedback", rest(s, key, http.StatusCreated, ag.SubmitChatFeedback))
		mux.Handle("POST /v1/ai/generate/feedback", rest(s, key, http.StatusCreated, ag.SubmitGenerationFeedback))
		mux.Handle("GET /v1/ai/chat/getFineTuningJob", rest(s, key, http.StatusOK, ag.GetFineTuningJob))
		s.connectService(mux, apiv1connect.ChatServiceName, key, nil)(apiv1connect.NewChatServiceHandler(ag, s.connectOptions()...))
	}

	// The OpenAPI document of the REST routes and a page to browse it
	// (package openapi): public.
	mux.Handle("GET /v1/openapi.json", openapi.DocumentHandler())
	mux.Handle("GET /docs", openapi.DocsHandler())
	mux.Handle("GET /docs/redoc.standalone.js", openapi.ScriptHandler())

	// MCP for AI assistants (package mcp): Streamable HTTP, POST for
	// messages; it answers 401 itself without an API key.
	if s.MCP != nil {
		mux.Handle("/mcp", s.MCP)
	}

	// Stored objects (package blob): public, unguessable keys.
	mux.Handle("GET /v1/blobs/{key}", blob.Handler(s.Blobs))

	// The dashboard (package dashboard): static pages at / and /dashboard/
	// that read this same API with the api-key header; no route of its own.
	dash := dashboard.Handler()
	mux.Handle("GET /{$}", dash)
	mux.Handle("GET "+dashboard.AssetPrefix, dash)

	// gRPC health and reflection cover every service registered above.
	checker := grpchealth.NewStaticChecker(s.services...)
	mux.Handle(grpchealth.NewHandler(checker))
	reflector := grpcreflect.NewStaticReflector(s.services...)
	for _, h := range []func(*grpcreflect.Reflector, ...connect.HandlerOption) (string, http.Handler){grpcreflect.NewHandlerV1, grpcreflect.NewHandlerV1Alpha} {
		path, handler := h(reflector)
		mux.Handle(path, s.operatorOnly(handler))
	}

	// Operations: metrics for the operator, liveness, and readiness (the
	// store answers).
	mux.Handle("GET /metrics", s.operatorOnly(s.metricsHandler()))
	mux.Handle("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeMessage(w, http.StatusOK, "ok", nil)
	}))
	mux.Handle("GET /readyz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.Store.Ping(r.Context()); err != nil {
			s.log.Warn("not ready: store unreachable", "error", err)
			writeMessage(w, http.StatusServiceUnavailable, "store unreachable", nil)
			return
		}
		writeMessage(w, http.StatusOK, "ready", nil)
	}))
}

// metricsHandler serves the registry's metrics. The route tables read
// without a registry (the REST document, tests) get a 404 in its place.
func (s *server) metricsHandler() http.Handler {
	if s.Registry == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{Registry: s.Registry})
}

// queuedOr is the success status of a response whose outcome is either
// the result or, when the work was queued, a job id to poll: 202 with a
// job id, else done.
func queuedOr(jobID string, done int) int {
	if jobID != "" {
		return http.StatusAccepted
	}
	return done
}

// createdOr is the success status of a create that may find the resource
// already there: 201 when created, else existing.
func createdOr(created bool, existing int) int {
	if created {
		return http.StatusCreated
	}
	return existing
}

// connectService mounts a generated Connect handler, records the service
// for health and reflection, and sets the auth policy of its procedures:
// policy for all of them, overrides for single procedures.
func (s *server) connectService(mux muxer, name string, policy auth.Policy, overrides map[string]auth.Policy) func(path string, h http.Handler) {
	s.services = append(s.services, name)
	s.servicePolicies["/"+name+"/"] = policy
	if d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name)); err == nil {
		if sd, ok := d.(protoreflect.ServiceDescriptor); ok {
			for i := 0; i < sd.Methods().Len(); i++ {
				s.procedures["/"+name+"/"+string(sd.Methods().Get(i).Name())] = struct{}{}
			}
		}
	}
	for proc, p := range overrides {
		s.policies[proc] = p
	}
	return func(path string, h http.Handler) { mux.Handle(path, h) }
}
