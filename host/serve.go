package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/lease"
	heraldmcp "github.com/heraldhq/herald/host/internal/mcp"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
)

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("serve", stderr, true)
	keyFile := fs.String("key-file", "", "on the first start, write the default workspace's API key to this file (mode 0600) instead of stderr")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil // --help printed the flags: not a failure
	} else if err != nil {
		return err
	}
	cfg, err := f.load(getenv)
	if err != nil {
		return err
	}
	// A reload compares the new file with the file as loaded, before start
	// fills public_url and secret_key, so those are not reported as changed.
	loaded := *cfg
	log := newLogger(cfg, stderr)
	// Listen first: with port 0 the address is known only now, and hosted
	// URLs (blobs, scriptUrl) default to it when public_url is unset.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	defer ln.Close()
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := bootstrap(ctx, st, stderr, *keyFile); err != nil {
		return err
	}
	if err := ensureSecretKey(cfg, log); err != nil {
		return err
	}

	// Group commit for AI traffic beacons; closed after the HTTP server has
	// drained (see parts below), so every beacon answered 202 is committed
	// before exit.
	beacons := traffic.NewWriter(st, traffic.WriterOptions{Logger: log.Named("traffic")})
	// Raw traffic events older than traffic_retention go; rollups stay.
	retention := &traffic.Retention{Store: st, Keep: cfg.TrafficRetention, Every: time.Hour, Logger: log.Named("traffic")}

	// Blobs live under the data dir on one host, in the database when
	// several hosts share one, so that any host serves any object.
	var blobs blob.Store = blob.NewDB(st, cfg.BaseURL())
	if cfg.Embedded() {
		if blobs, err = blob.NewFS(filepath.Join(cfg.DataDir, "blobs"), cfg.BaseURL()); err != nil {
			return err
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	// Plugins start lazily, on their first call, so serving starts fast.
	// SIGHUP reloads their config: new calls use the new set, calls in
	// flight finish on the old one. Closed after the job queue has stopped.
	pluginMgr, err := pluginhost.NewManager(log, cfg, reg)
	if err != nil {
		beacons.Close()
		return err
	}
	// Services read the plans at request time; SIGHUP sets them, and the
	// job queue's per-plan caps with them.
	planTable := plans.New(cfg.Plans)
	var queue *jobs.Queue
	var stopHUP func()
	// Set below, before the SIGHUP handler starts (host/plans.go).
	var publishPlans func(*config.Config) (int64, error)
	var redactAlso func([]string)
	sighup := funcs{start: func() {
		stopHUP = reloadOnSIGHUP(log, func() error {
			next, err := f.load(getenv)
			if err != nil {
				return err
			}
			reloadPlugins := func(c *config.Config) error {
				if err := pluginMgr.Reload(c); err != nil {
					return err
				}
				redactAlso(configuredSecrets(c)) // new plugin settings, redacted from now on
				return nil
			}
			return applyReload(log, &loaded, next, reloadPlugins, publishPlans) // host/reload.go
		})
	}, stop: func() { stopHUP() }}

	defer func() {
		// Error paths before the parts started; afterwards they own these.
		if stopHUP == nil {
			pluginMgr.Close()
			beacons.Close()
		}
	}()

	// The job queue runs on every host.
	queue, err = newJobQueue(st, cfg, log, reg)
	if err != nil {
		return err
	}
	// Every host applies the newest stored plans version (host/plans.go).
	planSync, err := startPlans(ctx, st, cfg, log, planTable, queue)
	if err != nil {
		return err
	}
	publishPlans = sighupPlans(planSync)
	// "At most N at once" rules across hosts: leases in Redis, else in the
	// database (package lease).
	slots, err := lease.New(lease.Deps{Store: st, RedisURL: cfg.RedisURL, TTL: cfg.ConcurrencyLease, Logger: log})
	if err != nil {
		return err
	}
	// Area services register their job handlers before the queue starts.
	// Per-workspace counts and name lengths (issue 16), with the caps of
	// the stored plans version.
	caps := quota.New(st, cfg.Limits).Follow(planTable)
	// One guarded fetcher of public pages for website voices and reports.
	siteFetcher := site.New(site.Deps{UserAgent: site.UserAgent(version, cfg.BaseURL()), AllowedPrivateCIDRs: cfg.AllowedPrivateCIDRs})
	// Website and file voices fetch through the guarded site fetcher; the
	// profile model is brand_voice.model, else the default text model.
	profileModel := cfg.BrandVoice.Model
	if profileModel == "" {
		profileModel = generate.DefaultTextModelOf(pluginMgr.Models())
	} else if profileModel == "none" {
		profileModel = ""
	}
	voices, err := voice.New(voice.Deps{
		Store: st, Quota: caps, Fetcher: siteFetcher, Queue: queue, Logger: log, Plans: planTable,
		Models: pluginMgr, Model: profileModel, ProfileText: cfg.BrandVoice.Model != "" && cfg.BrandVoice.Model != "none",
	})
	if err != nil {
		return err
	}
	tuned := finetune.NewResolver(st, pluginMgr) // ft:<workspace name>, for generation and the agent
	generator, err := generate.New(generate.Deps{
		Models: pluginMgr, Queue: queue, Store: st, Blobs: blobs, Plans: planTable, Voices: voices, Tuned: tuned,
		Secrets: configuredSecrets(cfg), // issue 16: provider errors in the log
		Logger:  log,
	})
	if err != nil {
		return err
	}
	redactAlso = generator.RedactAlso
	contentSvc, err := content.New(content.Deps{Log: log, Generator: generator, Credits: st, Queue: queue, Plans: planTable})
	if err != nil {
		return err
	}
	destinations, err := destination.New(destination.Deps{
		Store: st, Plugins: pluginMgr, SecretKey: cfg.SecretKey, Plans: planTable,
		Limits: cfg.Limits, Logger: log.Named("destinations"),
	})
	if err != nil {
		return err
	}
	scheduler, err := schedule.New(schedule.Deps{
		Store: st, Queue: queue, Destinations: pluginMgr, Credentials: destinations, Blobs: blobs,
		Plans: planTable, AllowedPrivateCIDRs: cfg.AllowedPrivateCIDRs,
		Limits: cfg.Limits, // issue 16: per-workspace caps
		Logger: log.Named("scheduler"),
	})
	if err != nil {
		return err
	}
	publisher, err := schedule.NewPublisher(schedule.PublisherDeps{
		Store: st, Queue: queue, Destinations: pluginMgr, Blobs: blobs, Credentials: destinations, Logger: log.Named("scheduler"),
	}, schedule.PublisherOptions{Registerer: reg})
	if err != nil {
		return err
	}
	visCfg := cfg.Visibility
	if len(visCfg.Engines) == 0 {
		visCfg.Engines = visibility.DefaultEngines(cfg.Models, func(provider string) bool {
			return providerHasKey(cfg, provider, getenv)
		})
	}
	reports, err := visibility.New(visibility.Deps{
		Store: st, Queue: queue, Quota: caps, Models: pluginMgr, Plans: planTable, Config: visCfg, Logger: log,
		Site: siteFetcher, Slots: slots,
		EngineProvider: func(engine string) string { // trackers: engine → AI traffic source
			if m, ok := cfg.Models[engine]; ok && len(m.Deployments) > 0 {
				return m.Deployments[0].Provider
			}
			return ""
		},
	})
	if err != nil {
		return err
	}
	trackers := visibility.NewTrackerScheduler(reports, cfg.Visibility.TrackerTick)
	// The agent runs its tools through the same services as the routes
	// behind them.
	trafficSvc, err := traffic.New(traffic.Deps{Store: st, Writer: beacons, BaseURL: cfg.BaseURL(), Quota: caps})
	if err != nil {
		return err
	}
	agentSvc, err := agent.New(agent.Deps{
		Store: st, Models: pluginMgr, Plans: planTable, Traffic: trafficSvc, Scheduler: scheduler,
		Voices: voices, Images: generator, Registerer: reg, Logger: log,
		Visibility: agentVisibility(reports), SEOScore: agentSEOScore(contentSvc),
		FineTuneStatus: finetune.StatusFunc(pluginMgr), Tuned: tuned,
	})
	if err != nil {
		return err
	}
	// Every area's job handlers, from the one job table, before the queue starts.
	queue.Mount(jobTable(jobAreas{voices: voices, generate: generator, content: contentSvc, visibility: reports, publisher: publisher}))
	// Issue 16: schedule images no schedule needs are deleted after the grace.
	sweeper, err := schedule.NewImageSweeper(schedule.ImageSweeperDeps{
		Images: scheduler, Grace: cfg.Limits.BlobGracePeriod, Interval: time.Hour, Logger: log.Named("scheduler"),
	})
	if err != nil {
		return err
	}

	// One authenticator (and key cache) and one Connect handler per area,
	// served by the API's faces and by MCP.
	authn := auth.NewAuthenticator(st, cfg.JWTSecret)
	var (
		schedulerAPI   = schedule.NewHandler(scheduler)
		destinationAPI = destination.NewHandler(destinations)
		generateAPI    = generate.NewHandler(generator)
		voiceAPI       = voice.NewHandler(voices)
		contentAPI     = content.NewHandler(contentSvc)
		visibilityAPI  = visibility.NewHandler(reports)
		trackerAPI     = visibility.NewTrackerHandler(reports)
		trafficAPI     = traffic.NewHandler(trafficSvc)
	)
	mcpServer := heraldmcp.New(heraldmcp.Deps{
		Auth: authn, Logger: log, Version: version, MaxBodyBytes: cfg.MaxBodyBytes,
		ApprovalKey: mcpApprovalKey(cfg.SecretKey),
		Scheduler:   schedulerAPI, Generate: generateAPI, Voices: voiceAPI,
		Content: contentAPI, Visibility: visibilityAPI, Traffic: trafficAPI, Trackers: trackerAPI,
	})

	handler := api.NewServer(api.Deps{
		Logger:       log,
		Store:        st,
		Auth:         authn,
		Registry:     reg,
		MaxBodyBytes: cfg.MaxBodyBytes,
		Blobs:        blobs,
		Voices:       voiceAPI,
		Traffic:      trafficAPI,
		Jobs:         jobs.NewAPIHandler(queue),
		Generate:     generateAPI,
		Scheduler:    schedulerAPI,
		Destinations: destinationAPI,
		Agent:        agent.NewHandler(agentSvc),
		Content:      contentAPI,

		// Hardening (issue 16): body read deadlines and the metrics token.
		BodyReadTimeout:    cfg.Limits.BodyReadTimeout,
		CollectReadTimeout: cfg.Limits.CollectReadTimeout,
		UploadReadTimeout:  cfg.Limits.UploadReadTimeout,
		MetricsToken:       cfg.Limits.MetricsToken,
		Visibility:         visibilityAPI,
		Trackers:           trackerAPI,
		MCP:                mcpServer.Handler(),
	})

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		Protocols:         new(http.Protocols),
	}
	// HTTP/1.1 for REST and Connect, cleartext HTTP/2 for gRPC clients
	// (grpcurl -plaintext) without TLS.
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)

	// Cap open connections (issue 16): over the cap, a 503 and a count in /metrics.
	web := &httpServer{srv: srv, ln: api.LimitListener(ln, cfg.Limits.MaxConnections, reg)}

	// Everything that runs in the background, started in this order and
	// stopped in reverse: the HTTP server shuts down first (in-flight
	// requests finish), then the loops that queue work, then the job queue
	// (running jobs finish within the shutdown timeout and the rest are
	// handed to other hosts), then the beacon writer commits what the
	// server accepted, and the plugin processes go last.
	parts := []part{
		{"plugins", funcs{stop: pluginMgr.Close}},
		{"sighup", sighup},
		{"beacons", funcs{stop: beacons.Close}},
		// Stops after the queue: running reports release their slots first.
		{"leases", funcs{stop: func() { slots.Close() }}},
		{"plans", planSync},
		{"traffic retention", retention},
		{"jobs", queue},
		// Publishes schedules that fell due while no host ran and whose
		// job is gone; the queue itself runs the jobs of the others.
		{"publisher", publisher},
		// Re-fetches website voices whose fetchInterval is due.
		{"voice refresh", voices},
		{"image sweeper", sweeper},
		// Queues tracker runs at their slots (once per slot across hosts).
		{"visibility trackers", trackers},
		{"http", web},
	}
	shutdownCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	}
	stop, err := startAll(ctx, log, parts, shutdownCtx)
	if err != nil {
		return err
	}
	log.Info("serving", "url", "http://"+ln.Addr().String(), "store", string(st.Dialect))

	select {
	case err = <-web.errc:
		err = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String()) // a string: JSON logs would print nanoseconds
	sctx, cancel := shutdownCtx()
	defer cancel()
	if serr := stop(sctx); serr != nil && err == nil {
		err = fmt.Errorf("shutdown: %w", serr)
	}
	if err != nil {
		return err
	}
	log.Info("stopped")
	return nil
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

// reloadOnSIGHUP calls reload on every SIGHUP until the returned stop is
// called; a failed reload is logged and the running config stays.
func reloadOnSIGHUP(log hclog.Logger, reload func() error) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				if err := reload(); err != nil {
					log.Error("reload on SIGHUP failed; keeping the running configuration", "error", err)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

// newJobQueue builds the job queue from config: Redis wake-ups when
// HERALD_REDIS_URL is set, in-process otherwise.
func newJobQueue(st *store.Store, cfg *config.Config, log hclog.Logger, reg prometheus.Registerer) (*jobs.Queue, error) {
	concurrency := map[string]int{}
	for name, q := range cfg.Queues {
		concurrency[name] = q.Concurrency
	}
	return jobs.New(jobs.Options{
		Caps:         jobCaps(cfg.Plans),
		Store:        st,
		RedisURL:     cfg.RedisURL,
		Concurrency:  concurrency,
		PollInterval: cfg.JobPollInterval,
		Lease:        cfg.JobLease,
		Retention:    cfg.JobRetention,
		Logger:       log,
		Registerer:   reg,
	})
}

// configuredSecrets lists the secret values this host knows of (its own
// keys, plugin environments and settings, and *KEY*, *TOKEN*, *SECRET*,
// *PASSWORD* variables that plugins inherit), for redaction from logged
// provider errors.
func configuredSecrets(cfg *config.Config) []string {
	out := []string{cfg.SecretKey, cfg.JWTSecret, cfg.Limits.MetricsToken}
	for _, p := range cfg.Plugins {
		for _, v := range p.Env {
			out = append(out, v)
		}
		out = append(out, p.Settings.Values()...)
	}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		name = strings.ToUpper(name)
		for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD"} {
			if strings.Contains(name, w) {
				out = append(out, value)
				break
			}
		}
	}
	return out
}
