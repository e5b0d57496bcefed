package config

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// fileSchema mirrors the HCL file. Pointers tell "unset" from zero so that a
// file overrides only what it names.
type fileSchema struct {
	Listen                     *string   `hcl:"listen,optional"`
	DataDir                    *string   `hcl:"data_dir,optional"`
	PublicURL                  *string   `hcl:"public_url,optional"`
	DatabaseURL                *string   `hcl:"database_url,optional"`
	RedisURL                   *string   `hcl:"redis_url,optional"`
	SecretKey                  *string   `hcl:"secret_key,optional"`
	LinkedInClientID           *string   `hcl:"linkedin_client_id,optional"`
	LinkedInClientSecret       *string   `hcl:"linkedin_client_secret,optional"`
	LinkedInRedirectURL        *string   `hcl:"linkedin_redirect_url,optional"`
	LinkedInOAuthURL           *string   `hcl:"linkedin_oauth_url,optional"`
	LinkedInAPIURL             *string   `hcl:"linkedin_api_url,optional"`
	JWTSecret                  *string   `hcl:"jwt_secret,optional"`
	AllowedPrivateCIDRs        *[]string `hcl:"allowed_private_cidrs,optional"`
	LogFormat                  *string   `hcl:"log_format,optional"`
	LogLevel                   *string   `hcl:"log_level,optional"`
	MaxBodyBytes               *int64    `hcl:"max_body_bytes,optional"`
	ShutdownTimeout            *string   `hcl:"shutdown_timeout,optional"`
	JobRetention               *string   `hcl:"job_retention,optional"`
	TrafficRetention           *string   `hcl:"traffic_retention,optional"`
	JobPollInterval            *string   `hcl:"job_poll_interval,optional"`
	JobLease                   *string   `hcl:"job_lease,optional"`
	SchedulerRepeatAhead       *string   `hcl:"scheduler_repeat_ahead,optional"`
	SchedulerReconcileInterval *string   `hcl:"scheduler_reconcile_interval,optional"`
	ConcurrencyLease           *string   `hcl:"concurrency_lease,optional"`
	EventDeliveryLease         *string   `hcl:"event_delivery_lease,optional"`
	PluginCallTimeout          *string   `hcl:"plugin_call_timeout,optional"`
	ModelRetries               *int      `hcl:"model_retries,optional"`
	ModelRetryBackoff          *string   `hcl:"model_retry_backoff,optional"`
	ModelMaxRetryAfter         *string   `hcl:"model_max_retry_after,optional"`
	ModelAllowedFails          *int      `hcl:"model_allowed_fails,optional"`
	ModelCooldown              *string   `hcl:"model_cooldown,optional"`
	Plans                      []struct {
		Name               string    `hcl:"name,label"`
		PromptsPerReport   *int      `hcl:"prompts_per_report,optional"`
		RefreshesPer24h    *int      `hcl:"refreshes_per_24h,optional"`
		MonthlyAICredits   *int      `hcl:"monthly_ai_credits,optional"`
		FreeAudits         *int      `hcl:"free_audits,optional"`
		SchedulerAPIAccess *bool     `hcl:"scheduler_api_access,optional"`
		JobsRunning        *int      `hcl:"jobs_running,optional"`
		JobsQueued         *int      `hcl:"jobs_queued,optional"`
		Trackers           *int      `hcl:"trackers,optional"`
		TrackerCadences    *[]string `hcl:"tracker_cadences,optional"`
		ReportSamples      *int      `hcl:"report_samples,optional"`
		TrackerSamples     *int      `hcl:"tracker_samples,optional"`
		LogLinesPerDay     *int      `hcl:"log_lines_per_day,optional"`
		LogIPStorage       *string   `hcl:"log_ip_storage,optional"`
		PostDestinations   *int      `hcl:"post_destinations,optional"`
		RepeatHorizonDays  *int      `hcl:"repeat_horizon_days,optional"`
	} `hcl:"plan,block"`
	Queues []struct {
		Name        string `hcl:"name,label"`
		Concurrency *int   `hcl:"concurrency,optional"`
	} `hcl:"queue,block"`
	BrandVoice *struct {
		Model *string `hcl:"model,optional"`
	} `hcl:"brand_voice,block"`
	Plugins []struct {
		Name    string            `hcl:"name,label"`
		Kind    string            `hcl:"kind"`
		Command string            `hcl:"command,optional"`
		Args    []string          `hcl:"args,optional"`
		Env     map[string]string `hcl:"env,optional"`
		SHA256  string            `hcl:"sha256,optional"`
		// Settings is evaluated on its own, with env() (plugin_settings.go).
		Settings hcl.Expression `hcl:"settings,optional"`
	} `hcl:"plugin,block"`
	Visibility *struct {
		Engines     *[]string `hcl:"engines,optional"`
		JudgeModel  *string   `hcl:"judge_model,optional"`
		Concurrency *int      `hcl:"concurrency,optional"`
		TrackerTick *string   `hcl:"tracker_tick,optional"`
	} `hcl:"visibility,block"`
	Models []struct {
		Name        string `hcl:"name,label"`
		Deployments []struct {
			Provider string `hcl:"provider"`
			Model    string `hcl:"model,optional"`
		} `hcl:"deployment,block"`
	} `hcl:"model,block"`
	Limits *limitsSchema `hcl:"limits,block"`
}

// Load reads the configuration: defaults, then the HCL file at path (empty:
// none), then the environment as getenv reports it, then validation. Errors
// name the file, line and field.
func Load(path string, getenv func(string) string) (*Config, error) {
	c := Default()
	var body *hclsyntax.Body
	if path != "" {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read config: %w", err)
		}
		file, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, diagError(diags)
		}
		body = file.Body.(*hclsyntax.Body)
		var fs fileSchema
		if diags := gohcl.DecodeBody(file.Body, nil, &fs); diags.HasErrors() {
			return nil, diagError(diags)
		}
		if err := c.applyFile(&fs, getenv, func(field string) (string, int) { return path, lineOf(body, field) }); err != nil {
			return nil, err
		}
		c.Source = path
	}
	if err := c.applyEnv(getenv); err != nil {
		return nil, err
	}
	var pos func(string) (string, int)
	if body != nil {
		pos = func(field string) (string, int) {
			if line := lineOf(body, field); line > 0 {
				return path, line
			}
			if env := envOf(field); env != "" && getenv(env) != "" {
				return "env " + env, 0
			}
			return path, 0
		}
	} else {
		pos = func(field string) (string, int) {
			if env := envOf(field); env != "" && getenv(env) != "" {
				return "env " + env, 0
			}
			return "", 0
		}
	}
	if err := c.validate(pos); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) applyFile(fs *fileSchema, getenv func(string) string, pos func(string) (string, int)) error {
	if err := c.applyLimitsFile(fs.Limits, pos); err != nil {
		return err
	}
	located := func(field string, err error) error {
		file, line := pos(field)
		return &Error{File: file, Line: line, Field: field, Msg: err.Error()}
	}
	if err := c.applyFileSettings(fs, located); err != nil {
		return err
	}
	for _, p := range fs.Plans {
		plan, ok := c.Plans[p.Name]
		if !ok {
			return located("plan."+p.Name, fmt.Errorf("unknown plan %q (plans: %s)", p.Name, strings.Join(PlanNames, ", ")))
		}
		setInt(&plan.PromptsPerReport, p.PromptsPerReport)
		setInt(&plan.RefreshesPer24h, p.RefreshesPer24h)
		setInt(&plan.MonthlyAICredits, p.MonthlyAICredits)
		setInt(&plan.FreeAudits, p.FreeAudits)
		setInt(&plan.JobsRunning, p.JobsRunning)
		setInt(&plan.JobsQueued, p.JobsQueued)
		setInt(&plan.Trackers, p.Trackers)
		setInt(&plan.ReportSamples, p.ReportSamples)
		setInt(&plan.TrackerSamples, p.TrackerSamples)
		setInt(&plan.LogLinesPerDay, p.LogLinesPerDay)
		setInt(&plan.PostDestinations, p.PostDestinations)
		setInt(&plan.RepeatHorizonDays, p.RepeatHorizonDays)
		if p.LogIPStorage != nil {
			plan.LogIPStorage = *p.LogIPStorage
		}
		if p.TrackerCadences != nil {
			plan.TrackerCadences = *p.TrackerCadences
		}
		if p.SchedulerAPIAccess != nil {
			plan.SchedulerAPIAccess = *p.SchedulerAPIAccess
		}
		c.Plans[p.Name] = plan
	}
	for _, q := range fs.Queues {
		queue := c.Queues[q.Name]
		setInt(&queue.Concurrency, q.Concurrency)
		c.Queues[q.Name] = queue
	}
	if bv := fs.BrandVoice; bv != nil && bv.Model != nil {
		c.BrandVoice.Model = *bv.Model
	}
	for _, p := range fs.Plugins {
		settings, err := pluginSettings(p.Name, p.Settings, getenv)
		if err != nil {
			return err
		}
		c.Plugins[p.Name] = Plugin{Name: p.Name, Kind: p.Kind, Command: p.Command, Args: p.Args, Env: p.Env, SHA256: strings.ToLower(p.SHA256), Settings: settings}
	}
	if v := fs.Visibility; v != nil {
		if v.Engines != nil {
			c.Visibility.Engines = *v.Engines
		}
		if v.JudgeModel != nil {
			c.Visibility.JudgeModel = *v.JudgeModel
		}
		setInt(&c.Visibility.Concurrency, v.Concurrency)
		if v.TrackerTick != nil {
			d, err := time.ParseDuration(*v.TrackerTick)
			if err != nil {
				return located("visibility.tracker_tick", fmt.Errorf("%q is not a duration", *v.TrackerTick))
			}
			c.Visibility.TrackerTick = d
		}
	}
	for _, m := range fs.Models {
		model := Model{Name: m.Name}
		for _, d := range m.Deployments {
			model.Deployments = append(model.Deployments, Deployment{Provider: d.Provider, Model: d.Model})
		}
		c.Models[m.Name] = model
	}
	return nil
}

func setInt(dst *int, src *int) {
	if src != nil {
		*dst = *src
	}
}

func envOf(field string) string {
	if v, ok := settingEnv(field); ok {
		return v
	}
	// plan.NAME.FIELD and queue.NAME.FIELD: HERALD_PLAN_NAME_FIELD.
	parts := strings.Split(field, ".")
	if len(parts) == 2 && parts[0] == "limits" {
		return limitsEnv(parts[1])
	}
	if len(parts) == 3 && (parts[0] == "plan" || parts[0] == "queue") {
		return "HERALD_" + strings.ToUpper(parts[0]+"_"+parts[1]+"_"+parts[2])
	}
	return ""
}

func (c *Config) applyEnv(getenv func(string) string) error {
	if err := c.applyLimitsEnv(getenv); err != nil {
		return err
	}
	envErr := func(field string, err error) error {
		return &Error{File: "env " + envOf(field), Field: field, Msg: err.Error()}
	}
	if err := c.applyEnvSettings(getenv, envErr); err != nil {
		return err
	}
	for _, name := range PlanNames {
		plan := c.Plans[name]
		for field, dst := range map[string]*int{
			"prompts_per_report": &plan.PromptsPerReport, "refreshes_per_24h": &plan.RefreshesPer24h,
			"monthly_ai_credits": &plan.MonthlyAICredits, "free_audits": &plan.FreeAudits,
			"jobs_running": &plan.JobsRunning, "jobs_queued": &plan.JobsQueued,
			"trackers": &plan.Trackers, "report_samples": &plan.ReportSamples, "tracker_samples": &plan.TrackerSamples, "log_lines_per_day": &plan.LogLinesPerDay,
			"post_destinations": &plan.PostDestinations, "repeat_horizon_days": &plan.RepeatHorizonDays,
		} {
			key := envOf("plan." + name + "." + field)
			if v := getenv(key); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					return envErr("plan."+name+"."+field, fmt.Errorf("%q is not an integer", v))
				}
				*dst = n
			}
		}
		if v := getenv(envOf("plan." + name + ".scheduler_api_access")); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return envErr("plan."+name+".scheduler_api_access", fmt.Errorf("%q is not a boolean", v))
			}
			plan.SchedulerAPIAccess = b
		}
		c.Plans[name] = plan
	}
	for _, name := range QueueNames {
		if v := getenv(envOf("queue." + name + ".concurrency")); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return envErr("queue."+name+".concurrency", fmt.Errorf("%q is not an integer", v))
			}
			q := c.Queues[name]
			q.Concurrency = n
			c.Queues[name] = q
		}
	}
	return nil
}

func parseCIDRs(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// lineOf finds the line of a field ("listen", "plan.free.prompts_per_report",
// "plugin.openai") in the parsed file; 0 when it is not there.
func lineOf(body *hclsyntax.Body, field string) int {
	parts := strings.Split(field, ".")
	if len(parts) == 1 {
		if a, ok := body.Attributes[parts[0]]; ok {
			return a.SrcRange.Start.Line
		}
		return 0
	}
	for _, b := range body.Blocks {
		if b.Type != parts[0] || len(b.Labels) == 0 || b.Labels[0] != parts[1] {
			continue
		}
		if len(parts) == 2 {
			return b.TypeRange.Start.Line
		}
		if a, ok := b.Body.Attributes[parts[2]]; ok {
			return a.SrcRange.Start.Line
		}
		for _, nb := range b.Body.Blocks {
			if nb.Type == parts[2] {
				return nb.TypeRange.Start.Line
			}
		}
		return b.TypeRange.Start.Line
	}
	return 0
}

func diagError(diags hcl.Diagnostics) error {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		e := &Error{Msg: d.Summary}
		if d.Detail != "" {
			e.Msg += ": " + d.Detail
		}
		if d.Subject != nil {
			e.File, e.Line = d.Subject.Filename, d.Subject.Start.Line
		}
		e.Field = "config"
		return e
	}
	return diags
}
