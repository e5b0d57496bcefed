package main

import (
	"net/http"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/analytics"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	heraldmcp "github.com/heraldhq/herald/host/internal/mcp"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
)

// buildAPI builds one authenticator (and key cache) and one Connect
// handler per area, served by the API's faces and by MCP.
func buildAPI(b *base, a *areas) http.Handler {
	st, cfg, log, reg, queue, blobs := b.st, b.cfg, b.log, b.reg, b.queue, b.blobs
	scheduler, destinations, generator, voices, contentSvc := a.scheduler, a.destinations, a.generator, a.voices, a.content
	reports, trafficSvc, agentSvc := a.reports, a.traffic, a.agent
	authn := auth.NewAuthenticator(st, cfg.JWTSecret)
	var (
		schedulerAPI   = schedule.NewHandler(scheduler)
		destinationAPI = destination.NewHandler(destinations)
		generateAPI    = generate.NewHandler(generator)
		voiceAPI       = voice.NewHandler(voices)
		contentAPI     = content.NewHandler(contentSvc)
		visibilityAPI  = visibility.NewHandler(reports)
		trackerAPI     = tracker.NewHandler(a.trackerSvc)
		trafficAPI     = traffic.NewHandler(trafficSvc)
		crawlerAPI     = traffic.NewCrawlerHandler(trafficSvc)
		eventsAPI      = events.NewHandler(a.events)
	)
	mcpServer := heraldmcp.New(heraldmcp.Deps{
		Auth: authn, Logger: log, Version: version, MaxBodyBytes: cfg.MaxBodyBytes,
		ApprovalKey: mcpApprovalKey(cfg.SecretKey),
		Scheduler:   schedulerAPI, Generate: generateAPI, Voices: voiceAPI,
		Content: contentAPI, Visibility: visibilityAPI, Traffic: trafficAPI, Trackers: trackerAPI,
		Crawlers: crawlerAPI,
		Events:   eventsAPI,
	})

	return api.NewServer(api.Deps{
		Logger:       log,
		Store:        st,
		Auth:         authn,
		Registry:     reg,
		MaxBodyBytes: cfg.MaxBodyBytes,
		Blobs:        blobs,
		Voices:       voiceAPI,
		Traffic:      trafficAPI,
		Crawlers:     crawlerAPI,
		Jobs:         jobs.NewAPIHandler(queue),
		Generate:     generateAPI,
		Scheduler:    schedulerAPI,
		Destinations: destinationAPI,
		Agent:        agent.NewHandler(agentSvc),
		Content:      contentAPI,

		// Hardening: body read deadlines and the metrics token.
		BodyReadTimeout:    cfg.Limits.BodyReadTimeout,
		CollectReadTimeout: cfg.Limits.CollectReadTimeout,
		UploadReadTimeout:  cfg.Limits.UploadReadTimeout,
		MetricsToken:       cfg.Limits.MetricsToken,
		Visibility:         visibilityAPI,
		Trackers:           trackerAPI,
		Events:             eventsAPI,
		Analytics:          analytics.NewHandler(a.analytics),
		MCP:                mcpServer.Handler(),
	})
}
