package main

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
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
	if err := applyReload(log, cur, next, func(c *config.Config) error { reloaded = c; return nil }); err != nil {
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
	if err := applyReload(log, cur, again, func(*config.Config) error { return errors.New("bad plugin") }); err == nil {
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
	if err := applyReload(log, cur, next, func(*config.Config) error { return nil }); err != nil {
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
