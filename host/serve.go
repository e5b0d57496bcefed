package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/analytics"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/events"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/impact"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/lease"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/tracker"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/traffic/crawlers"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

// serve is `herald serve`: it builds the host in named steps, each
// returning what the next needs (the base every area stands on, the areas,
// the API over them, the background parts), starts the parts in order and
// stops them in reverse when ctx ends or the HTTP server fails.
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
	ln, err := listen(cfg)
	if err != nil {
		return err
	}
	defer ln.Close()
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
	b, err := buildBase(ctx, cfg, log, st)
	if err != nil {
		return err
	}
	handedOver := false
	defer func() {
		// Error paths before the parts started; afterwards they own these.
		if !handedOver {
			b.close()
		}
	}()
	a, err := buildAreas(b, getenv)
	if err != nil {
		return err
	}
	web := newHTTPServer(buildAPI(b, a), ln, cfg, b.reg)
	sighup := reloadPart(log, f, getenv, &loaded, b.pluginMgr, sighupPlans(b.planSync), a.generator.RedactAlso)
	// The first parts (plugins, sighup, beacons) cannot fail to start, so
	// from here the parts own the plugins and the beacon writer.
	handedOver = true
	stop, err := startAll(ctx, log, backgroundParts(b, a, sighup, web), shutdownCtx(cfg))
	if err != nil {
		return err
	}
	log.Info("serving", "url", "http://"+ln.Addr().String(), "store", string(st.Dialect))
	return serveUntilDone(ctx, log, cfg, web, stop)
}

// shutdownCtx gives a stop its shutdown_timeout.
func shutdownCtx(cfg *config.Config) func() (context.Context, context.CancelFunc) {
	return func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	}
}

// serveUntilDone waits for ctx to end or the HTTP server to fail, then
// stops the started parts within the shutdown timeout.
func serveUntilDone(ctx context.Context, log hclog.Logger, cfg *config.Config, web *httpServer, stop func(context.Context) error) (err error) {
	select {
	case err = <-web.errc:
		err = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String()) // a string: JSON logs would print nanoseconds
	sctx, cancel := shutdownCtx(cfg)()
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

// listen listens first: with port 0 the address is known only now, and
// hosted URLs (blobs, scriptUrl) default to it when public_url is unset.
func listen(cfg *config.Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	return ln, nil
}

// base is what the areas are built on: the store, the plugins, the plans,
// the job queue and the shared limits and fetchers.
type base struct {
	cfg         *config.Config
	log         hclog.Logger
	st          *store.Store
	reg         *prometheus.Registry
	beacons     *traffic.Writer
	retention   *traffic.Retention
	blobs       blob.Store
	pluginMgr   *pluginhost.Manager
	planTable   *plans.Table
	queue       *jobs.Queue
	planSync    *plans.Sync
	slots       *lease.Limiter
	caps        *quota.Checker
	siteFetcher *site.Fetcher
}

// buildBase builds the base. On an error it closes what it opened.
func buildBase(ctx context.Context, cfg *config.Config, log hclog.Logger, st *store.Store) (_ *base, err error) {
	b := &base{cfg: cfg, log: log, st: st}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	// Group commit for AI traffic beacons; closed after the HTTP server has
	// drained (see backgroundParts), so every beacon answered 202 is
	// committed before exit.
	if b.beacons, err = traffic.NewWriter(ctx, st, traffic.WriterOptions{Logger: log.Named("traffic")}); err != nil {
		return nil, err
	}
	// Raw traffic events older than traffic_retention go; rollups stay.
	b.retention = &traffic.Retention{Store: st, Keep: cfg.TrafficRetention, Every: time.Hour, Logger: log.Named("traffic")}

	// Blobs live under the data dir on one host, in the database when
	// several hosts share one, so that any host serves any object.
	b.blobs = blob.NewDB(st, cfg.BaseURL())
	if cfg.Embedded() {
		if b.blobs, err = blob.NewFS(filepath.Join(cfg.DataDir, "blobs"), cfg.BaseURL()); err != nil {
			return nil, err
		}
	}
	b.reg = prometheus.NewRegistry()
	b.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	// Plugins start lazily, on their first call, so serving starts fast.
	// SIGHUP reloads their config: new calls use the new set, calls in
	// flight finish on the old one. Closed after the job queue has stopped.
	if b.pluginMgr, err = pluginhost.NewManager(log, cfg, b.reg); err != nil {
		return nil, err
	}
	// Services read the plans at request time; SIGHUP sets them, and the
	// job queue's per-plan caps with them.
	b.planTable = plans.New(cfg.Plans)
	// The job queue runs on every host.
	if b.queue, err = newJobQueue(st, cfg, log, b.reg); err != nil {
		return nil, err
	}
	// Every host applies the newest stored plans version (host/plans.go).
	if b.planSync, err = startPlans(ctx, st, cfg, log, b.planTable, b.queue); err != nil {
		return nil, err
	}
	// "At most N at once" rules across hosts: leases in Redis, else in the
	// database (package lease).
	if b.slots, err = lease.New(lease.Deps{Store: st, RedisURL: cfg.RedisURL, TTL: cfg.ConcurrencyLease, Logger: log}); err != nil {
		return nil, err
	}
	// Per-workspace counts and name lengths, with the caps of
	// the stored plans version.
	b.caps = quota.New(st, cfg.Limits).Follow(b.planTable)
	// One guarded fetcher of public pages for website voices and reports.
	b.siteFetcher = site.New(site.Deps{UserAgent: site.UserAgent(version, cfg.BaseURL()), AllowedPrivateCIDRs: cfg.AllowedPrivateCIDRs})
	return b, nil
}

// close closes what the base opened before the parts own it.
func (b *base) close() {
	if b.pluginMgr != nil {
		b.pluginMgr.Close()
	}
	if b.beacons != nil {
		b.beacons.Close()
	}
}

// areas are the area services of this host.
type areas struct {
	voices       *voice.Service
	generator    *generate.Service
	content      *content.Service
	destinations *destination.Service
	scheduler    *schedule.Service
	publisher    *schedule.Publisher
	sweeper      *schedule.ImageSweeper
	reports      *visibility.Service
	trackerSvc   *tracker.Service
	trackers     *tracker.Scheduler
	impact       *impact.Service
	traffic      *traffic.Service
	analytics    *analytics.Service
	agent        *agent.Service
	events       *events.Service
	deliverer    *events.Deliverer
}

// buildAreas builds every area's service on the base, one block per area,
// and mounts their job handlers from the job table (host/jobs.go).
func buildAreas(b *base, getenv func(string) string) (*areas, error) {
	a := &areas{}
	return a, a.build(b, getenv)
}

func (a *areas) build(b *base, getenv func(string) string) error {
	// The base's parts under the names the area blocks use.
	st, cfg, log, reg, queue, blobs := b.st, b.cfg, b.log, b.reg, b.queue, b.blobs
	pluginMgr, planTable, caps, slots, siteFetcher, beacons := b.pluginMgr, b.planTable, b.caps, b.slots, b.siteFetcher, b.beacons
	// Website and file voices fetch through the guarded site fetcher; the
	// profile model is brand_voice.model, else the default text model.
	profileModel := cfg.BrandVoice.Model
	if profileModel == "" {
		profileModel = generate.DefaultTextModelOf(pluginMgr.Models())
	} else if profileModel == "none" {
		profileModel = ""
	}
	voices, err := voice.New(voice.Deps{
		Store: st, Quota: caps, Fetcher: siteFetcher, Queue: queue, Logger: log,
		Models: pluginMgr, Model: profileModel, ProfileText: cfg.BrandVoice.Model != "" && cfg.BrandVoice.Model != "none",
	})
	if err != nil {
		return err
	}
	tuned := finetune.NewResolver(st, pluginMgr) // ft:<workspace name>, for generation and the agent
	generator, err := generate.New(generate.Deps{
		Models: pluginMgr, Queue: queue, Store: st, Quota: caps, Blobs: blobs, Voices: voices, Tuned: tuned,
		Secrets: configuredSecrets(cfg), // provider errors in the log
		Logger:  log,
	})
	if err != nil {
		return err
	}
	contentSvc, err := content.New(content.Deps{Logger: log, Generator: generator, Queue: queue, Quota: caps})
	if err != nil {
		return err
	}
	destinations, err := destination.New(destination.Deps{
		Store: st, Plugins: pluginMgr, SecretKey: cfg.SecretKey, Plans: planTable,
		Quota: caps, Logger: log.Named("destinations"),
		LinkedIn: cfg.LinkedIn, HTTPClient: sdk.GuardedHTTPClient(30*time.Second, cfg.AllowedPrivateCIDRs),
	})
	if err != nil {
		return err
	}
	targets := &lateTargets{} // set once the tracker service is built
	scheduler, err := schedule.New(schedule.Deps{
		Store: st, Queue: queue, Destinations: pluginMgr, Credentials: destinations, Blobs: blobs,
		Plans: planTable, AllowedPrivateCIDRs: cfg.AllowedPrivateCIDRs, Trackers: targets,
		Quota:  caps, // per-workspace caps
		Logger: log.Named("scheduler"), RepeatAhead: cfg.SchedulerRepeatAhead,
	})
	if err != nil {
		return err
	}
	publisher, err := schedule.NewPublisher(schedule.PublisherDeps{
		Store: st, Queue: queue, Destinations: pluginMgr, Blobs: blobs, Credentials: destinations, Logger: log.Named("scheduler"),
	}, schedule.PublisherOptions{Registerer: reg, RepeatAhead: cfg.SchedulerRepeatAhead, ReconcileInterval: cfg.SchedulerReconcileInterval})
	if err != nil {
		return err
	}
	visCfg := cfg.Visibility
	if len(visCfg.Engines) == 0 {
		visCfg.Engines = visibility.DefaultEngines(cfg.Models, func(provider string) bool {
			return providerHasKey(cfg, provider, getenv)
		})
	}
	engineProvider := func(engine string) string { // engine → AI traffic source and operator
		if m, ok := cfg.Models[engine]; ok && len(m.Deployments) > 0 {
			return m.Deployments[0].Provider
		}
		return ""
	}
	reports, err := visibility.New(visibility.Deps{
		Store: st, Queue: queue, Quota: caps, Models: pluginMgr, Plans: planTable, Config: visCfg, Logger: log,
		Site: siteFetcher, Slots: slots, EngineProvider: engineProvider,
	})
	if err != nil {
		return err
	}
	// The agent runs its tools through the same services as the routes
	// behind them.
	// Google Analytics through the ga4 analytics source plugin: stats come
	// from GA4 for the sites mapped to a property.
	analyticsSvc, err := analytics.New(analytics.Deps{
		Store: st, Plugin: pluginMgr.Analytics(analytics.PluginName), SecretKey: cfg.SecretKey, Logger: log,
	})
	if err != nil {
		return err
	}
	ranges, err := traffic.LoadRanges(context.Background(), st)
	if err != nil {
		return err
	}
	trafficSvc, err := traffic.New(traffic.Deps{Store: st, Writer: beacons, BaseURL: cfg.BaseURL(), Quota: caps, External: analyticsSvc,
		Plans: planTable, Verifier: crawlers.NewVerifier(ranges, nil), Citations: reports})
	if err != nil {
		return err
	}
	trackerSvc, err := tracker.New(tracker.Deps{
		Store: st, Queue: queue, Quota: caps, Plans: planTable, Logger: log, Reports: reports, Traffic: trafficSvc, EngineProvider: engineProvider,
	})
	if err != nil {
		return err
	}
	trackers := tracker.NewScheduler(trackerSvc, cfg.Visibility.TrackerTick)
	targets.svc = trackerSvc
	impactSvc, err := impact.New(impact.Deps{Schedules: scheduler, Trackers: trackerSvc, Pages: trafficSvc, Logger: log,
		Writer: generator, Credits: caps, Proposals: scheduler})
	if err != nil {
		return err
	}
	tuning, err := finetune.New(finetune.Deps{Store: st, Plugins: pluginMgr, Logger: log})
	if err != nil {
		return err
	}
	agentSvc, err := agent.New(agent.Deps{
		Store: st, Quota: caps, Models: pluginMgr, Plans: planTable, Traffic: trafficSvc, Scheduler: scheduler, Jobs: queue,
		Voices: voices, Images: generator, Registerer: reg, Logger: log,
		Visibility: agentVisibility(reports), SEOScore: agentSEOScore(contentSvc), GapBrief: agentGapBrief(impactSvc), GapDraft: agentGapDraft(impactSvc),
		FineTune: tuning, Tuned: tuned, Events: true,
	})
	if err != nil {
		return err
	}
	// Every area's job handlers, from the one job table, before the queue starts.
	queue.Mount(jobTable(jobAreas{voices: voices, generate: generator, content: contentSvc, visibility: reports, publisher: publisher}))
	// schedule images no schedule needs are deleted after the grace.
	sweeper, err := schedule.NewImageSweeper(schedule.ImageSweeperDeps{
		Images: scheduler, Grace: cfg.Limits.BlobGracePeriod, Interval: time.Hour, Logger: log.Named("scheduler"),
	})
	if err != nil {
		return err
	}
	// Events: subscriptions, and the deliverer of the outbox the areas
	// write (one attempt sequence per delivery across hosts).
	eventSvc, err := events.New(events.Deps{Store: st, Quota: caps, SecretKey: cfg.SecretKey,
		AllowedPrivateCIDRs: cfg.AllowedPrivateCIDRs, BaseURL: cfg.BaseURL(), Logger: log})
	if err != nil {
		return err
	}
	hostName, _ := os.Hostname()
	hostName = fmt.Sprintf("%s-%d", hostName, os.Getpid())
	var wake *events.RedisWake
	if cfg.RedisURL != "" {
		if wake, err = events.NewRedisWake(cfg.RedisURL, "herald", hostName); err != nil {
			return err
		}
	}
	deliverer := events.NewDeliverer(eventSvc, events.DelivererOptions{Host: hostName, Wake: wake, Lease: cfg.EventDeliveryLease})
	*a = areas{
		events: eventSvc, deliverer: deliverer,
		voices: voices, generator: generator, content: contentSvc, destinations: destinations,
		scheduler: scheduler, publisher: publisher, sweeper: sweeper, reports: reports, trackerSvc: trackerSvc, trackers: trackers, impact: impactSvc,
		traffic: trafficSvc, analytics: analyticsSvc, agent: agentSvc,
	}
	return nil
}

// backgroundParts is everything that runs in the background, started in
// this order and stopped in reverse: the HTTP server shuts down first
// (in-flight requests finish), then the loops that queue work, then the
// job queue (running jobs finish within the shutdown timeout and the rest
// are handed to other hosts), then the beacon writer commits what the
// server accepted, and the plugin processes go last.
func backgroundParts(b *base, a *areas, sighup lifecycle, web *httpServer) []part {
	return []part{
		{"plugins", funcs{stop: b.pluginMgr.Close}},
		{"sighup", sighup},
		{"beacons", funcs{stop: b.beacons.Close}},
		// Stops after the queue: running reports release their slots first.
		{"leases", funcs{stop: func() { b.slots.Close() }}},
		// Folds the pages view's deltas into page_days every 10 s, on
		// one host at a time (stops before the leases).
		{"page fold", &traffic.PageFold{Store: b.st, Lease: b.slots, Logger: b.log.Named("traffic")}},
		{"plans", b.planSync},
		{"traffic retention", b.retention},
		{"jobs", b.queue},
		// Sends the events the areas wrote (stops before the queue).
		{"event deliverer", a.deliverer},
		// Publishes schedules that fell due while no host ran and whose
		// job is gone; the queue itself runs the jobs of the others.
		{"publisher", a.publisher},
		// Re-fetches website voices whose fetchInterval is due.
		{"voice refresh", a.voices},
		{"image sweeper", a.sweeper},
		// Queues tracker runs at their slots (once per slot across hosts).
		{"visibility trackers", a.trackers},
		{"http", web},
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
