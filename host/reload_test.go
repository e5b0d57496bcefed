package main

import (
	"bytes"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/plans"
)

func TestReloadAppliesLogLevelAndNamesWhatNeedsARestart(t *testing.T) {
	t.Parallel()
	load := func(level string, timeout time.Duration) *config.Config {
		env := map[string]string{"HERALD_LOG_LEVEL": level, "HERALD_DATA_DIR": t.TempDir()}
		c, err := config.Load("", func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		c.ShutdownTimeout = timeout
		return c
	}
	cur, next := load("info", time.Second), load("debug", 5*time.Second)
	next.DataDir = cur.DataDir
	var buf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info})
	child := log.Named("scheduler")
	var reloaded *config.Config
	if err := applyReload(log, cur, next, func(c *config.Config) error { reloaded = c; return nil }, noPlans); err != nil {
		t.Fatal(err)
	}
	if reloaded != next {
		t.Fatal("the plugin manager was not reloaded with the new config")
	}
	if !child.IsDebug() {
		t.Fatal("log level not applied to a named logger")
	}
	if cur.ShutdownTimeout != time.Second {
		t.Fatalf("a setting that needs a restart was changed in the running config: %s", cur.ShutdownTimeout)
	}
	out := buf.String()
	if !strings.Contains(out, `applied="log_level,plugins,models"`) || !strings.Contains(out, "needs_restart=shutdown_timeout") {
		t.Fatalf("reload log does not say what was applied and what needs a restart:\n%s", out)
	}

	// A failed plugin reload applies nothing.
	again := load("error", time.Second)
	if err := applyReload(log, cur, again, func(*config.Config) error { return errors.New("bad plugin") }, noPlans); err == nil {
		t.Fatal("want the plugin reload error")
	}
	if !child.IsDebug() {
		t.Fatal("a failed reload changed the log level")
	}
}

func TestSettingName(t *testing.T) {
	t.Parallel()
	for field, want := range map[string]string{"LogLevel": "log_level", "AllowedPrivateCIDRs": "allowed_private_cidrs", "DatabaseURL": "database_url", "JWTSecret": "jwt_secret", "JobPollInterval": "job_poll_interval"} {
		if got := settingName(field); got != want {
			t.Errorf("settingName(%s) = %s, want %s", field, got, want)
		}
	}
}

func TestReloadNamesChangedPluginSettingsByKeyOnly(t *testing.T) {
	t.Parallel()
	load := func(settings config.Settings) *config.Config {
		c, err := config.Load("", func(k string) string { return map[string]string{"HERALD_DATA_DIR": "d"}[k] })
		if err != nil {
			t.Fatal(err)
		}
		p := c.Plugins["openai"]
		p.Settings = settings
		c.Plugins["openai"] = p
		return c
	}
	cur := load(config.Settings{"api_key": "sk-old-value-1234", "base_url": "http://a.example/v1"})
	next := load(config.Settings{"api_key": "sk-new-value-5678", "base_url": "http://a.example/v1", "org": "acme-org"})
	var buf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info})
	if err := applyReload(log, cur, next, func(*config.Config) error { return nil }, noPlans); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `plugin_settings="openai(api_key,org)"`) {
		t.Errorf("reload log does not name the changed settings by key:\n%s", out)
	}
	for _, v := range []string{"sk-old-value-1234", "sk-new-value-5678", "acme-org"} {
		if strings.Contains(out, v) {
			t.Errorf("reload log shows the setting value %q", v)
		}
	}
	// Provider errors echoing a setting value are redacted in the log.
	if secrets := configuredSecrets(next); !slices.Contains(secrets, "sk-new-value-5678") {
		t.Error("plugin settings values are not on the redaction list")
	}
}

func noPlans(*config.Config) (int64, error) { return 0, nil }

func TestReloadAppliesPlansToTheTableAndTheJobCaps(t *testing.T) {
	t.Parallel()
	load := func(src string) *config.Config {
		path := filepath.Join(t.TempDir(), "herald.hcl")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(path, func(k string) string { return map[string]string{"HERALD_DATA_DIR": "d"}[k] })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cur := load("")
	next := load(`plan "pro" {
  prompts_per_report = 7
  monthly_ai_credits = 3
  jobs_running       = 1
  jobs_queued        = 2
}
`)
	table := plans.New(cur.Plans)
	var caps []jobstore.JobCaps
	apply := planApplier(table, func(c jobstore.JobCaps) { caps = append(caps, c) })
	var buf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Info})

	// A failed plugin reload leaves the plans too.
	if err := applyReload(log, cur, next, func(*config.Config) error { return errors.New("bad plugin") }, apply); err == nil {
		t.Fatal("want the plugin reload error")
	}
	if pro, _ := table.Get("pro"); pro.MonthlyAICredits != cur.Plans["pro"].MonthlyAICredits || len(caps) != 0 {
		t.Fatalf("a failed reload applied the plans: pro %+v, caps %v", pro, caps)
	}

	if err := applyReload(log, cur, next, func(*config.Config) error { return nil }, apply); err != nil {
		t.Fatal(err)
	}
	if pro, ok := table.Get("pro"); !ok || pro.PromptsPerReport != 7 || pro.MonthlyAICredits != 3 {
		t.Fatalf("plan table after reload: pro %+v, %v; want prompts_per_report 7, monthly_ai_credits 3", pro, ok)
	}
	if len(caps) != 1 || caps[0].ByPlan["pro"] != (jobstore.JobCap{Running: 1, Queued: 2}) {
		t.Fatalf("job caps after reload: %+v; want pro running 1, queued 2", caps)
	}
	if caps[0].Default != caps[0].ByPlan["free"] {
		t.Fatalf("an unknown plan's caps are not the free plan's: %+v", caps[0])
	}
	out := buf.String()
	if !strings.Contains(out, `applied="plans,plugins,models"`) {
		t.Fatalf("reload log does not list plans as applied:\n%s", out)
	}
	if !strings.Contains(out, `needs_restart=""`) {
		t.Fatalf("reload log says a plan change needs a restart:\n%s", out)
	}
}
