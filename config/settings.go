package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// settings is the one table of Herald's top-level settings: each row is
// the HCL attribute, its environment override, its default, where it lives
// in Config and in the file schema. Default, applyFile, applyEnv, envOf and
// the configuration table of docs/CONFIGURATION.md (checked by TestConfigurationTable) all
// follow it, so a new setting is one row here plus its Config and
// fileSchema fields. Blocks (plan, queue, plugin, model, visibility,
// brand_voice, limits) have their own shapes and are applied beside it.
var settings = []setting{
	{name: "listen", env: "HERALD_LISTEN", def: "127.0.0.1:8080", doc: "(HTTP, Connect and gRPC on one port)",
		cfg: func(c *Config) any { return &c.Listen }, file: func(f *fileSchema) any { return f.Listen }},
	{name: "data_dir", env: "HERALD_DATA_DIR", def: "./data", doc: "(the embedded mode's SQLite file, blobs and `secret.key`)",
		cfg: func(c *Config) any { return &c.DataDir }, file: func(f *fileSchema) any { return f.DataDir }},
	{name: "public_url", env: "HERALD_PUBLIC_URL", doc: "empty: `http://{listen}`; the URL clients reach (blob and script URLs use it)",
		cfg: func(c *Config) any { return &c.PublicURL }, file: func(f *fileSchema) any { return f.PublicURL }},
	{name: "database_url", env: "HERALD_DATABASE_URL", doc: "empty: embedded SQLite `{data_dir}/herald.db`; a `postgres://` or `postgresql://` URL for PostgreSQL or CockroachDB",
		cfg: func(c *Config) any { return &c.DatabaseURL }, file: func(f *fileSchema) any { return f.DatabaseURL }},
	{name: "redis_url", env: "HERALD_REDIS_URL", doc: "empty: in-process signalling; Redis wakes every host's workers at once",
		cfg: func(c *Config) any { return &c.RedisURL }, file: func(f *fileSchema) any { return f.RedisURL }},
	{name: "secret_key", env: "HERALD_SECRET_KEY", doc: "embedded: generated on first start into `{data_dir}/secret.key` (0600); distributed: unset, and credentials are refused until every host shares one (at least 32 characters, no whitespace)",
		cfg: func(c *Config) any { return &c.SecretKey }, file: func(f *fileSchema) any { return f.SecretKey }},
	{name: "jwt_secret", env: "HERALD_JWT_SECRET", doc: "empty: session JWTs disabled",
		cfg: func(c *Config) any { return &c.JWTSecret }, file: func(f *fileSchema) any { return f.JWTSecret }},
	{name: "linkedin_client_id", env: "HERALD_LINKEDIN_CLIENT_ID", doc: "empty: LinkedIn connects with a pasted token only; set with the secret and redirect URL to connect with OAuth 2.0 from the dashboard",
		cfg: func(c *Config) any { return &c.LinkedIn.ClientID }, file: func(f *fileSchema) any { return f.LinkedInClientID }},
	{name: "linkedin_client_secret", env: "HERALD_LINKEDIN_CLIENT_SECRET", doc: "the LinkedIn app's client secret",
		cfg: func(c *Config) any { return &c.LinkedIn.ClientSecret }, file: func(f *fileSchema) any { return f.LinkedInClientSecret }},
	{name: "linkedin_redirect_url", env: "HERALD_LINKEDIN_REDIRECT_URL", doc: "Herald's `/v1/destinations/linkedin/oauth/callback` as LinkedIn reaches it, registered in the LinkedIn app",
		cfg: func(c *Config) any { return &c.LinkedIn.RedirectURL }, file: func(f *fileSchema) any { return f.LinkedInRedirectURL }},
	{name: "linkedin_oauth_url", env: "HERALD_LINKEDIN_OAUTH_URL", def: "https://www.linkedin.com/oauth/v2", doc: "(its /authorization and /accessToken)",
		cfg: func(c *Config) any { return &c.LinkedIn.OAuthURL }, file: func(f *fileSchema) any { return f.LinkedInOAuthURL }},
	{name: "linkedin_api_url", env: "HERALD_LINKEDIN_API_URL", def: "https://api.linkedin.com", doc: "(its /v2/userinfo names the connected member)",
		cfg: func(c *Config) any { return &c.LinkedIn.APIURL }, file: func(f *fileSchema) any { return f.LinkedInAPIURL }},
	{name: "allowed_private_cidrs", env: "HERALD_ALLOWED_PRIVATE_CIDRS", doc: "empty: outbound fetches reach only public addresses; comma-separated CIDRs let destinations and voice websites on them through",
		cfg: func(c *Config) any { return &c.AllowedPrivateCIDRs }, file: func(f *fileSchema) any { return f.AllowedPrivateCIDRs }},
	{name: "log_format", env: "HERALD_LOG_FORMAT", def: "text", doc: "(or `json`)",
		cfg: func(c *Config) any { return &c.LogFormat }, file: func(f *fileSchema) any { return f.LogFormat }},
	{name: "log_level", env: "HERALD_LOG_LEVEL", def: "info", doc: "(trace, debug, info, warn, error)",
		cfg: func(c *Config) any { return &c.LogLevel }, file: func(f *fileSchema) any { return f.LogLevel }},
	{name: "max_body_bytes", env: "HERALD_MAX_BODY_BYTES", def: int64(1 << 20), doc: "(a larger request body is a 413)",
		cfg: func(c *Config) any { return &c.MaxBodyBytes }, file: func(f *fileSchema) any { return f.MaxBodyBytes }},
	{name: "shutdown_timeout", env: "HERALD_SHUTDOWN_TIMEOUT", def: 15 * time.Second, doc: "(in-flight requests and running jobs finish within it)",
		cfg: func(c *Config) any { return &c.ShutdownTimeout }, file: func(f *fileSchema) any { return f.ShutdownTimeout }},
	{name: "job_retention", env: "HERALD_JOB_RETENTION", def: 7 * 24 * time.Hour, doc: "(finished jobs are pruned after it)",
		cfg: func(c *Config) any { return &c.JobRetention }, file: func(f *fileSchema) any { return f.JobRetention }},
	{name: "traffic_retention", env: "HERALD_TRAFFIC_RETENTION", def: 400 * 24 * time.Hour, doc: "(400 days; raw beacon events, rollups are kept)",
		cfg: func(c *Config) any { return &c.TrafficRetention }, file: func(f *fileSchema) any { return f.TrafficRetention }},
	{name: "job_poll_interval", env: "HERALD_JOB_POLL_INTERVAL", def: time.Second, doc: "(how often idle workers look for due jobs; Redis wakes them sooner)",
		cfg: func(c *Config) any { return &c.JobPollInterval }, file: func(f *fileSchema) any { return f.JobPollInterval }},
	{name: "job_lease", env: "HERALD_JOB_LEASE", def: 30 * time.Second, doc: "(a running job's claim; renewed while it runs, taken over by another host after a crash)",
		cfg: func(c *Config) any { return &c.JobLease }, file: func(f *fileSchema) any { return f.JobLease }},
	{name: "scheduler_repeat_ahead", env: "HERALD_SCHEDULER_REPEAT_AHEAD", def: 7 * 24 * time.Hour, doc: "(a repeat rule's occurrences are created this long before they are due)",
		cfg: func(c *Config) any { return &c.SchedulerRepeatAhead }, file: func(f *fileSchema) any { return f.SchedulerRepeatAhead }},
	{name: "scheduler_reconcile_interval", env: "HERALD_SCHEDULER_RECONCILE_INTERVAL", def: 30 * time.Second, doc: "(how often a host creates due repeat occurrences and requeues due posts whose job is gone)",
		cfg: func(c *Config) any { return &c.SchedulerReconcileInterval }, file: func(f *fileSchema) any { return f.SchedulerReconcileInterval }},
	{name: "concurrency_lease", env: "HERALD_CONCURRENCY_LEASE", def: 15 * time.Second, doc: "(a slot of an \"at most N at once\" rule across hosts, such as a workspace's engine calls; renewed while held, freed after a crash)",
		cfg: func(c *Config) any { return &c.ConcurrencyLease }, file: func(f *fileSchema) any { return f.ConcurrencyLease }},
	{name: "event_delivery_lease", env: "HERALD_EVENT_DELIVERY_LEASE", def: time.Minute, doc: "(the event deliveries a host claimed; another host sends them after a crash, and an attempt is given up at three quarters of it or 15 s)",
		cfg: func(c *Config) any { return &c.EventDeliveryLease }, file: func(f *fileSchema) any { return f.EventDeliveryLease }},
	{name: "plugin_call_timeout", env: "HERALD_PLUGIN_CALL_TIMEOUT", def: 3 * time.Minute, doc: "(host-side cancel of one plugin call)",
		cfg: func(c *Config) any { return &c.PluginCallTimeout }, file: func(f *fileSchema) any { return f.PluginCallTimeout }},
	{name: "model_retries", env: "HERALD_MODEL_RETRIES", def: 2, doc: "(extra rounds over a model's deployments)",
		cfg: func(c *Config) any { return &c.Router.Retries }, file: func(f *fileSchema) any { return f.ModelRetries }},
	{name: "model_retry_backoff", env: "HERALD_MODEL_RETRY_BACKOFF", def: 250 * time.Millisecond,
		cfg: func(c *Config) any { return &c.Router.RetryBackoff }, file: func(f *fileSchema) any { return f.ModelRetryBackoff }},
	{name: "model_max_retry_after", env: "HERALD_MODEL_MAX_RETRY_AFTER", def: 20 * time.Second, doc: "(a longer provider Retry-After ends the call: 429 with `Retry-After`)",
		cfg: func(c *Config) any { return &c.Router.MaxRetryAfter }, file: func(f *fileSchema) any { return f.ModelMaxRetryAfter }},
	{name: "model_allowed_fails", env: "HERALD_MODEL_ALLOWED_FAILS", def: 3, doc: "(failures in a row before a deployment cools down)",
		cfg: func(c *Config) any { return &c.Router.AllowedFails }, file: func(f *fileSchema) any { return f.ModelAllowedFails }},
	{name: "model_cooldown", env: "HERALD_MODEL_COOLDOWN", def: 30 * time.Second, doc: "(how long a failing deployment is skipped)",
		cfg: func(c *Config) any { return &c.Router.Cooldown }, file: func(f *fileSchema) any { return f.ModelCooldown }},
}

// setting is one row of settings.
type setting struct {
	name, env string
	// doc follows the default in the configuration table: a remark in
	// parentheses, or the whole default column when def is nil.
	doc string
	// def is the default (nil: the zero value), of the field's type.
	def any
	// cfg returns a pointer to the Config field: *string, *int, *int64,
	// *time.Duration or *[]netip.Prefix.
	cfg func(*Config) any
	// file returns the fileSchema field (nil when the file does not set it):
	// *string (also for durations), *int, *int64 or *[]string.
	file func(*fileSchema) any
}

// applyDefaults sets every setting with a default.
func applyDefaults(c *Config) {
	for _, s := range settings {
		switch dst := s.cfg(c).(type) {
		case *string:
			if v, ok := s.def.(string); ok {
				*dst = v
			}
		case *int:
			if v, ok := s.def.(int); ok {
				*dst = v
			}
		case *int64:
			if v, ok := s.def.(int64); ok {
				*dst = v
			}
		case *time.Duration:
			if v, ok := s.def.(time.Duration); ok {
				*dst = v
			}
		}
	}
}

// applyFileSettings sets what the file names; errors are located at the
// setting's line.
func (c *Config) applyFileSettings(fs *fileSchema, located func(field string, err error) error) error {
	for _, s := range settings {
		switch src := s.file(fs).(type) {
		case *string:
			if src == nil {
				continue
			}
			switch dst := s.cfg(c).(type) {
			case *string:
				*dst = *src
			case *time.Duration:
				v, err := time.ParseDuration(*src)
				if err != nil {
					return located(s.name, fmt.Errorf("%q is not a duration such as 30s or 168h", *src))
				}
				*dst = v
			}
		case *int:
			if src != nil {
				*s.cfg(c).(*int) = *src
			}
		case *int64:
			if src != nil {
				*s.cfg(c).(*int64) = *src
			}
		case *[]string:
			if src == nil {
				continue
			}
			cidrs, err := parseCIDRs(*src)
			if err != nil {
				return located(s.name, err)
			}
			*s.cfg(c).(*[]netip.Prefix) = cidrs
		}
	}
	return nil
}

// applyEnvSettings sets what the environment names (an empty variable is
// unset).
func (c *Config) applyEnvSettings(getenv func(string) string, envErr func(field string, err error) error) error {
	for _, s := range settings {
		v := getenv(s.env)
		if v == "" {
			continue
		}
		switch dst := s.cfg(c).(type) {
		case *string:
			*dst = v
		case *int:
			n, err := strconv.Atoi(v)
			if err != nil {
				return envErr(s.name, fmt.Errorf("%q is not an integer", v))
			}
			*dst = n
		case *int64:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return envErr(s.name, fmt.Errorf("%q is not an integer", v))
			}
			*dst = n
		case *time.Duration:
			d, err := time.ParseDuration(v)
			if err != nil {
				return envErr(s.name, fmt.Errorf("%q is not a duration", v))
			}
			*dst = d
		case *[]netip.Prefix:
			cidrs, err := parseCIDRs(strings.Split(v, ","))
			if err != nil {
				return envErr(s.name, err)
			}
			*dst = cidrs
		}
	}
	return nil
}

// settingEnv returns the environment variable of a top-level setting.
func settingEnv(name string) (string, bool) {
	for _, s := range settings {
		if s.name == name {
			return s.env, true
		}
	}
	return "", false
}

// formatDefault writes a default as the configuration table shows it ("" for none).
func formatDefault(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case time.Duration:
		s := v.String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		return s
	default:
		return fmt.Sprint(v)
	}
}

// Reference is the configuration table of docs/CONFIGURATION.md (its header and one row
// per setting), generated from settings by `make generate` and checked by
// TestConfigurationTable.
func Reference() string {
	var b strings.Builder
	b.WriteString("| setting | env | default |\n|---|---|---|\n")
	for _, s := range settings {
		def := formatDefault(s.def)
		switch {
		case def == "":
			def = s.doc
		case s.doc != "":
			def += " " + s.doc
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.name, s.env, def)
	}
	return b.String()
}
