package config

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/heraldhq/herald/plugins/names"
)

// Config is the whole configuration of a herald host.
type Config struct {
	// Listen is the address the API listens on (HERALD_LISTEN).
	Listen string
	// DataDir holds the SQLite file and the filesystem blob store (HERALD_DATA_DIR).
	DataDir string
	// PublicURL is the base URL used in hosted URLs, snippets and scriptUrl
	// (HERALD_PUBLIC_URL). Empty: http://<Listen>.
	PublicURL string
	// DatabaseURL selects CockroachDB or PostgreSQL (postgres:// or
	// postgresql://). Empty: embedded SQLite (HERALD_DATABASE_URL).
	DatabaseURL string
	// RedisURL carries job wake-ups between hosts (HERALD_REDIS_URL). Empty:
	// in-process signalling.
	RedisURL string
	// SecretKey encrypts stored credentials (HERALD_SECRET_KEY).
	SecretKey string
	// LinkedIn is the LinkedIn app that connects workspaces with OAuth
	// 2.0 (HERALD_LINKEDIN_*); without a client id it is off.
	LinkedIn LinkedInApp
	// JWTSecret is the HS256 secret of session JWTs (HERALD_JWT_SECRET).
	JWTSecret string
	// AllowedPrivateCIDRs are private or loopback ranges that outbound
	// fetches and deliveries may reach (HERALD_ALLOWED_PRIVATE_CIDRS).
	AllowedPrivateCIDRs []netip.Prefix
	// LogFormat is "text" or "json" (HERALD_LOG_FORMAT).
	LogFormat string
	// LogLevel is trace, debug, info, warn or error (HERALD_LOG_LEVEL).
	LogLevel string
	// MaxBodyBytes caps JSON request bodies; larger bodies get 413
	// (HERALD_MAX_BODY_BYTES).
	MaxBodyBytes int64
	// ShutdownTimeout bounds how long a stopping host waits for in-flight
	// requests and jobs (HERALD_SHUTDOWN_TIMEOUT).
	ShutdownTimeout time.Duration
	// Plans carries the limits of each plan, by plan name.
	Plans map[string]Plan
	// Queues carries per-queue settings, by queue name.
	Queues map[string]Queue
	// JobRetention is how long finished jobs are kept before pruning
	// (HERALD_JOB_RETENTION).
	JobRetention time.Duration
	// JobPollInterval is how often an idle host looks for queued jobs
	// without a wake-up, the bound on delay while Redis is unreachable
	// (HERALD_JOB_POLL_INTERVAL).
	JobPollInterval time.Duration
	// JobLease is how long a host holds a claimed job without renewing the
	// lease; the jobs of a crashed host run elsewhere after it
	// (HERALD_JOB_LEASE).
	JobLease time.Duration
	// SchedulerRepeatAhead is how long before they are due a repeat rule's
	// occurrences are created (HERALD_SCHEDULER_REPEAT_AHEAD).
	SchedulerRepeatAhead time.Duration
	// SchedulerReconcileInterval is how often a host creates due repeat
	// occurrences and requeues due posts whose job is gone
	// (HERALD_SCHEDULER_RECONCILE_INTERVAL).
	SchedulerReconcileInterval time.Duration
	// ConcurrencyLease is how long a host holds a slot of an "at most N at
	// once" rule across hosts (the engine calls of a workspace's reports)
	// without renewing it; the slots of a crashed host free after it
	// (HERALD_CONCURRENCY_LEASE).
	ConcurrencyLease time.Duration
	// EventDeliveryLease is how long a host holds the event deliveries it
	// claimed; a crashed host's claims are sent by another after it, and
	// an attempt is given up before its claim ends
	// (HERALD_EVENT_DELIVERY_LEASE).
	EventDeliveryLease time.Duration
	// TrafficRetention is how long raw AI-traffic events and sessions are
	// kept; daily rollups (what stats read) are kept for good
	// (HERALD_TRAFFIC_RETENTION).
	TrafficRetention time.Duration
	// Plugins lists the plugins the host may start, by name.
	Plugins map[string]Plugin
	// Models maps model names and aliases to provider deployments.
	Models map[string]Model
	// PluginCallTimeout bounds each plugin call whose context has no earlier
	// deadline (HERALD_PLUGIN_CALL_TIMEOUT).
	PluginCallTimeout time.Duration
	// Router holds the model router's retry, fallback and cooldown settings.
	Router Router
	// BrandVoice configures how website, file and text voices are profiled.
	BrandVoice BrandVoice
	// Limits bounds connections, body reads, objects per workspace and
	// name lengths (config/limits.go).
	Limits Limits
	// Visibility configures AI visibility reports (block visibility).
	Visibility Visibility

	// Source names the file the configuration came from, if any.
	Source string
}

// BrandVoice is the brand_voice block.
type BrandVoice struct {
	// Model writes the writing-style profile of website and file voices,
	// and of text voices (keeping their raw text). Empty: the default text
	// model writes website and file profiles, text voices stay as given;
	// "none": measured profiles only, no model.
	Model string
}

// Visibility configures AI visibility reports.
type Visibility struct {
	// Engines are the model routes asked as answer engines; empty means
	// every configured chat model route, at most 4.
	Engines []string
	// JudgeModel judges entity probe answers against the site's facts and
	// suggests prompts; empty means the first engine.
	JudgeModel string
	// Concurrency caps the engine calls one workspace's report makes at
	// once.
	Concurrency int
	// TrackerTick is how often a host looks for trackers whose slot has
	// come (tracker_tick, default 30s): a run starts at most this long
	// after its slot. Tests set it low to see slots without waiting.
	TrackerTick time.Duration
}

// Queue is the setting of one job queue.
type Queue struct {
	// Concurrency is how many jobs of the queue one host runs at once.
	Concurrency int
}

// Plugin is one plugin the host may start.
type Plugin struct {
	// Name is how config and routes refer to the plugin.
	Name string
	// Kind is "provider", "destination" or "analytics".
	Kind string
	// Command is the executable; empty means the first-party plugin Name,
	// served by the herald executable itself (`herald plugin NAME`).
	Command string
	// Args are passed to Command.
	Args []string
	// Env is added to the plugin's environment.
	Env map[string]string
	// SHA256 is the expected hex checksum of Command; empty skips the check.
	SHA256 string
	// Settings are sent to the plugin's Configure after each start (the
	// block's settings = { ... }, values possibly read with env("NAME")).
	// Values are secrets: never log them (Settings prints keys only).
	Settings Settings
}

// Model routes a model name or alias to provider deployments, tried in order.
type Model struct {
	// Name is the model name clients send.
	Name string
	// Deployments are tried in order; later ones are fallbacks.
	Deployments []Deployment
}

// Deployment is one provider serving a model.
type Deployment struct {
	// Provider is the name of a provider plugin.
	Provider string
	// Model is the provider's own model name; empty means the routed name.
	Model string
}

// Router tunes how a model's deployments are tried, as LiteLLM's router
// does: each deployment in order, then again after a backoff, skipping
// deployments that failed too often lately.
type Router struct {
	// Retries is how many more rounds over the deployments follow the first
	// when every deployment failed with a retryable error (HERALD_MODEL_RETRIES).
	Retries int
	// RetryBackoff is the wait before the second round, doubling each round
	// (HERALD_MODEL_RETRY_BACKOFF).
	RetryBackoff time.Duration
	// MaxRetryAfter caps how long a call waits for a deployment's
	// Retry-After; a deployment asking for longer is not retried in that call
	// (HERALD_MODEL_MAX_RETRY_AFTER).
	MaxRetryAfter time.Duration
	// AllowedFails is how many consecutive failures put a deployment in
	// cooldown (HERALD_MODEL_ALLOWED_FAILS).
	AllowedFails int
	// Cooldown is how long a failing deployment is skipped, unless it is the
	// only one left (HERALD_MODEL_COOLDOWN).
	Cooldown time.Duration
}

// QueueNames lists the job queues the API names: the queues of
// host/internal/jobs (jobs.QueueNames). config is a public package and
// cannot import host/internal, so host/queues_test.go keeps the two equal.
var QueueNames = []string{"aiQueue", "seoQueue", "contentQueue"}

// Default returns the embedded default configuration.
func Default() *Config {
	c := &Config{
		Plans:      DefaultPlans(),
		Queues:     map[string]Queue{},
		Plugins:    map[string]Plugin{},
		Models:     map[string]Model{},
		Limits:     DefaultLimits(),
		Visibility: Visibility{Concurrency: 16, TrackerTick: 30 * time.Second},
	}
	applyDefaults(c)
	for _, q := range QueueNames {
		c.Queues[q] = Queue{Concurrency: 8}
	}
	for name, kind := range FirstPartyPlugins {
		c.Plugins[name] = Plugin{Name: name, Kind: kind}
	}
	for _, m := range OpenAIModels {
		c.Models[m] = Model{Name: m, Deployments: []Deployment{{Provider: "openai"}}}
	}
	for provider, models := range EngineModels {
		for _, m := range models {
			c.Models[m] = Model{Name: m, Deployments: []Deployment{{Provider: provider}}}
		}
	}
	return c
}

// FirstPartyPlugins are the plugins every host has unless config replaces
// them: served by the herald executable itself (`herald plugin NAME`).
// Names and kinds (provider, destination) come from package plugins/names,
// the list the executable's registry (package plugins) serves, so the two
// cannot drift and config does not import the plugins' code.
var FirstPartyPlugins = firstPartyPlugins()

func firstPartyPlugins() map[string]string {
	m := map[string]string{}
	for _, name := range names.Names() {
		kind, _ := names.KindOf(name)
		m[name] = string(kind)
	}
	return m
}

// ProviderKeyEnv names the environment variable that holds each
// first-party provider's API key; a provider without it answers 503.
var ProviderKeyEnv = map[string]string{
	"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
	"gemini": "GEMINI_API_KEY", "perplexity": "PERPLEXITY_API_KEY",
	"xai": "XAI_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "mistral": "MISTRAL_API_KEY",
	"serpapi": "SERPAPI_API_KEY", "dataforseo": "DATAFORSEO_LOGIN",
}

// DefaultEngineModels are the routes a visibility report asks by default,
// one per assistant: the model its users get unless they choose (ChatGPT,
// Claude, Gemini, Perplexity), so a report measures what buyers see.
var DefaultEngineModels = []string{"gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash", "sonar"}

// OpenAIModels are routed to the openai plugin by default.
var OpenAIModels = []string{
	"gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-5", "gpt-5-mini",
	"gpt-image-1", "gpt-image-1-mini", "gpt-image-1.5", "gpt-image-2",
}

// EngineModels are routed by default to the answer-engine plugins, keyed by
// plugin name; without the plugin's key a call answers 503 "set …_API_KEY".
var EngineModels = map[string][]string{
	"anthropic":  {"claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"},
	"gemini":     {"gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite"},
	"perplexity": {"sonar", "sonar-pro", "sonar-reasoning-pro"},
	"xai":        {"grok-4", "grok-4-fast", "grok-3-mini"},
	"deepseek":   {"deepseek-chat", "deepseek-reasoner"},
	"mistral":    {"mistral-medium-latest", "mistral-large-latest", "mistral-small-latest"},
	// Google's answers read from its result pages through SerpApi: the AI
	// Overview above the results, and AI Mode.
	"serpapi": {"google-ai-overview", "google-ai-mode"},
}

// OffEngines are answer engines Herald knows and cannot ask, each with
// the reason: no provider offers a documented API for their answers, and
// Herald does not scrape consumer websites. Naming one in visibility
// engines is a configuration error that gives the reason.
var OffEngines = map[string]string{
	"copilot": "Microsoft offers no API that returns Copilot's consumer answers: the Bing Search APIs " +
		"(and their Copilot answers) were retired in August 2025, the Microsoft 365 Copilot APIs answer " +
		"over a tenant's own work data, and Azure's Grounding with Bing Search gives an agent Bing " +
		"results under Azure's models, not Copilot's answer; Herald does not scrape copilot.microsoft.com",
}

// Embedded reports whether the config runs on the embedded SQLite store.
func (c *Config) Embedded() bool { return c.DatabaseURL == "" }

// BaseURL is PublicURL, or the listen address as an http URL.
func (c *Config) BaseURL() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	return "http://" + c.Listen
}

// Error is a configuration problem located in a file, when it came from one.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s: %s", e.File, e.Field, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	}
}

// Validate checks the configuration. pos locates a field in the source file
// (nil when the config has no file); fields set from the environment report
// the variable instead.
func (c *Config) validate(pos func(field string) (string, int)) error {
	fail := func(field, format string, args ...any) error {
		e := &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
		if pos != nil {
			e.File, e.Line = pos(field)
		}
		return e
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fail("listen", "%q is not host:port", c.Listen)
	}
	if c.DataDir == "" {
		return fail("data_dir", "must not be empty")
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("public_url", "%q is not an http(s) URL", c.PublicURL)
		}
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return fail("database_url", "must start with postgres:// or postgresql:// (empty selects embedded SQLite)")
	}
	if c.RedisURL != "" && !strings.HasPrefix(c.RedisURL, "redis://") && !strings.HasPrefix(c.RedisURL, "rediss://") {
		return fail("redis_url", "must start with redis:// or rediss://")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fail("log_format", "%q is not text or json", c.LogFormat)
	}
	switch c.LogLevel {
	case "trace", "debug", "info", "warn", "error":
	default:
		return fail("log_level", "%q is not trace, debug, info, warn or error", c.LogLevel)
	}
	if err := c.Limits.validate(fail); err != nil {
		return err
	}
	if c.MaxBodyBytes < 1024 {
		return fail("max_body_bytes", "must be at least 1024, got %d", c.MaxBodyBytes)
	}
	if c.ShutdownTimeout <= 0 {
		return fail("shutdown_timeout", "must be positive")
	}
	if c.JobRetention <= 0 {
		return fail("job_retention", "must be positive")
	}
	if c.TrafficRetention < 24*time.Hour {
		return fail("traffic_retention", "must be at least 24h, got %s", c.TrafficRetention)
	}
	if c.JobPollInterval < 10*time.Millisecond {
		return fail("job_poll_interval", "must be at least 10ms, got %s", c.JobPollInterval)
	}
	if c.SchedulerRepeatAhead < time.Second || c.SchedulerReconcileInterval < 100*time.Millisecond {
		return fail("scheduler_repeat_ahead", "scheduler_repeat_ahead must be at least 1s and scheduler_reconcile_interval at least 100ms")
	}
	if c.JobLease < time.Second {
		return fail("job_lease", "must be at least 1s, got %s", c.JobLease)
	}
	if c.ConcurrencyLease < time.Second {
		return fail("concurrency_lease", "must be at least 1s, got %s", c.ConcurrencyLease)
	}
	if c.EventDeliveryLease < 2*time.Second {
		return fail("event_delivery_lease", "must be at least 2s, got %s", c.EventDeliveryLease)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Plans)) {
		if !slices.Contains(PlanNames, name) {
			return fail("plan."+name, "unknown plan %q (plans: %s)", name, strings.Join(PlanNames, ", "))
		}
		p := c.Plans[name]
		if p.PromptsPerReport < 1 {
			return fail("plan."+name+".prompts_per_report", "must be at least 1")
		}
		if p.RefreshesPer24h < 0 || p.MonthlyAICredits < 0 || p.FreeAudits < 0 || p.Trackers < 0 {
			return fail("plan."+name, "limits must not be negative")
		}
		for field, n := range map[string]int{"report_samples": p.ReportSamples, "tracker_samples": p.TrackerSamples} {
			if n < 1 || n > MaxSamples {
				return fail("plan."+name+"."+field, "must be between 1 and %d, got %d", MaxSamples, n)
			}
		}
		if p.PostDestinations < 0 || p.RepeatHorizonDays < 0 {
			return fail("plan."+name, "post_destinations and repeat_horizon_days must not be negative (0: the default)")
		}
		if p.LogLinesPerDay < 0 {
			return fail("plan."+name+".log_lines_per_day", "must not be negative (0: no cap)")
		}
		if p.LogIPStorage != "" && !slices.Contains(LogIPStorageModes, p.LogIPStorage) {
			return fail("plan."+name+".log_ip_storage", "unknown mode %q (modes: %s)", p.LogIPStorage, strings.Join(LogIPStorageModes, ", "))
		}
		for _, c := range p.TrackerCadences {
			if !slices.Contains(TrackerCadenceNames, c) {
				return fail("plan."+name+".tracker_cadences", "unknown cadence %q (cadences: %s)", c, strings.Join(TrackerCadenceNames, ", "))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Queues)) {
		if !slices.Contains(QueueNames, name) {
			return fail("queue."+name, "unknown queue %q (queues: %s)", name, strings.Join(QueueNames, ", "))
		}
		if q := c.Queues[name]; q.Concurrency < 1 || q.Concurrency > 1000 {
			return fail("queue."+name+".concurrency", "must be between 1 and 1000, got %d", q.Concurrency)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Plugins)) {
		p := c.Plugins[name]
		if p.Kind != "provider" && p.Kind != "destination" && p.Kind != "analytics" {
			return fail("plugin."+name+".kind", "%q is not provider, destination or analytics", p.Kind)
		}
		if p.SHA256 != "" && (len(p.SHA256) != 64 || strings.Trim(strings.ToLower(p.SHA256), "0123456789abcdef") != "") {
			return fail("plugin."+name+".sha256", "must be 64 hex digits")
		}
	}
	if c.PluginCallTimeout <= 0 {
		return fail("plugin_call_timeout", "must be positive")
	}
	if c.Router.Retries < 0 || c.Router.Retries > 10 {
		return fail("model_retries", "must be between 0 and 10, got %d", c.Router.Retries)
	}
	for field, d := range map[string]time.Duration{"model_retry_backoff": c.Router.RetryBackoff, "model_max_retry_after": c.Router.MaxRetryAfter, "model_cooldown": c.Router.Cooldown} {
		if d < 0 {
			return fail(field, "must not be negative")
		}
	}
	if c.Router.AllowedFails < 1 {
		return fail("model_allowed_fails", "must be at least 1, got %d", c.Router.AllowedFails)
	}
	if m := c.BrandVoice.Model; m != "" && m != "none" {
		if _, ok := c.Models[m]; !ok {
			return fail("brand_voice.model", "%q is not a configured model", m)
		}
	}
	if c.Visibility.TrackerTick < 10*time.Millisecond {
		return fail("visibility.tracker_tick", "must be at least 10ms, got %s", c.Visibility.TrackerTick)
	}
	if c.Visibility.Concurrency < 1 || c.Visibility.Concurrency > 256 {
		return fail("visibility.concurrency", "must be between 1 and 256, got %d", c.Visibility.Concurrency)
	}
	for _, e := range append(slices.Clone(c.Visibility.Engines), c.Visibility.JudgeModel) {
		if why, off := OffEngines[e]; off {
			if _, routed := c.Models[e]; !routed {
				return fail("visibility", "engine %q is off: %s", e, why)
			}
		}
		if _, ok := c.Models[e]; e != "" && !ok {
			return fail("visibility", "model %q is not a configured model route", e)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Models)) {
		m := c.Models[name]
		if len(m.Deployments) == 0 {
			return fail("model."+name, "needs at least one deployment")
		}
		for _, d := range m.Deployments {
			p, ok := c.Plugins[d.Provider]
			if !ok || p.Kind != "provider" {
				return fail("model."+name+".deployment", "provider %q is not a configured provider plugin", d.Provider)
			}
		}
	}
	return nil
}

// LinkedInApp is a LinkedIn app's OAuth 2.0 settings.
type LinkedInApp struct {
	ClientID, ClientSecret, RedirectURL string
	// OAuthURL and APIURL are LinkedIn's (tests point them at fakes).
	OAuthURL, APIURL string
}
