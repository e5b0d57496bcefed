package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "herald.hcl")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNoFileAndNoEnvIsTheEmbeddedDefault(t *testing.T) {
	t.Parallel()
	c, err := config.Load("", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.DataDir != "./data" || !c.Embedded() || c.RedisURL != "" || c.BaseURL() != "http://127.0.0.1:8080" {
		t.Fatalf("default: %+v", c)
	}
	if c.Plugins["openai"].Kind != "provider" || c.Plugins["webhook"].Kind != "destination" || c.Models["gpt-4o"].Deployments[0].Provider != "openai" || c.Models["gpt-image-1"].Name == "" {
		t.Fatalf("default plugins and models: %+v %+v", c.Plugins, c.Models)
	}
	if !c.Plans["business"].SchedulerAPIAccess || c.Plans["pro"].SchedulerAPIAccess || c.Plans["free"].RefreshesPer24h != 0 || c.Plans["free"].FreeAudits != 1 {
		t.Fatalf("default plans: %+v", c.Plans)
	}
}

func TestFileThenEnvOverride(t *testing.T) {
	t.Parallel()
	p := write(t, `
listen       = "0.0.0.0:9000"
database_url = "postgres://db/herald"
shutdown_timeout = "3s"
allowed_private_cidrs = ["10.0.0.0/8"]
plan "pro" {
  prompts_per_report = 30
}
queue "aiQueue" {
  concurrency = 2
}
plugin "openai" {
  kind = "provider"
}
model "gpt-4o" {
  deployment {
    provider = "openai"
  }
}
`)
	c, err := config.Load(p, env(map[string]string{"HERALD_LISTEN": "127.0.0.1:7000", "HERALD_PLAN_PRO_MONTHLY_AI_CREDITS": "9"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:7000" || c.DatabaseURL != "postgres://db/herald" || c.ShutdownTimeout != 3*time.Second {
		t.Fatalf("merge: %+v", c)
	}
	if pro := c.Plans["pro"]; pro.PromptsPerReport != 30 || pro.MonthlyAICredits != 9 || pro.RefreshesPer24h != 3 {
		t.Fatalf("plan merge: %+v", pro)
	}
	if c.Queues["aiQueue"].Concurrency != 2 || c.Queues["seoQueue"].Concurrency != 8 {
		t.Fatalf("queues: %+v", c.Queues)
	}
	if len(c.AllowedPrivateCIDRs) != 1 || c.Models["gpt-4o"].Deployments[0].Provider != "openai" {
		t.Fatalf("lists: %+v", c)
	}
}

func TestRouterSettingsComeFromFileThenEnv(t *testing.T) {
	t.Parallel()
	p := write(t, "plugin_call_timeout = \"45s\"\nmodel_retries = 1\nmodel_cooldown = \"10s\"\nmodel_max_retry_after = \"5s\"\n")
	c, err := config.Load(p, env(map[string]string{"HERALD_MODEL_ALLOWED_FAILS": "5", "HERALD_MODEL_RETRY_BACKOFF": "1s"}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Router{Retries: 1, RetryBackoff: time.Second, MaxRetryAfter: 5 * time.Second, AllowedFails: 5, Cooldown: 10 * time.Second}
	if c.PluginCallTimeout != 45*time.Second || c.Router != want {
		t.Fatalf("timeout %s, router %+v, want 45s and %+v", c.PluginCallTimeout, c.Router, want)
	}
}

func TestErrorsNameFileLineAndField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		env        map[string]string
		want       string
	}{
		{"a bad listen address", "data_dir = \"x\"\nlisten = \"nope\"\n", nil, ":2: listen:"},
		{"a wrong type", "max_body_bytes = \"big\"\n", nil, ":1:"},
		{"an unknown plan", "plan \"gold\" {\n}\n", nil, ":1: plan.gold:"},
		{"a zero prompt limit", "\nplan \"free\" {\n  prompts_per_report = 0\n}\n", nil, ":3: plan.free.prompts_per_report:"},
		{"eleven report samples", "\nplan \"pro\" {\n  report_samples = 11\n}\n", nil, ":3: plan.pro.report_samples:"},
		{"zero tracker samples", "\nplan \"pro\" {\n  tracker_samples = 0\n}\n", nil, ":3: plan.pro.tracker_samples:"},
		{"an unknown queue", "queue \"fastQueue\" {\n concurrency = 1\n}\n", nil, ":1: queue.fastQueue:"},
		{"a bad duration", "job_retention = \"forever\"\n", nil, ":1: job_retention:"},
		{"a bad CIDR", "allowed_private_cidrs = [\"10.0.0.0/99\"]\n", nil, ":1: allowed_private_cidrs:"},
		{"a model on a missing provider", "model \"m\" {\n  deployment {\n    provider = \"ghost\"\n  }\n}\n", nil, ":2: model.m.deployment:"},
		{"a bad plugin checksum", "plugin \"x\" {\n  kind = \"destination\"\n  sha256 = \"abc\"\n}\n", nil, ":3: plugin.x.sha256:"},
		{"a syntax error", "listen = \n", nil, ":1:"},
		{"a bad env value", "", map[string]string{"HERALD_DATABASE_URL": "mysql://x"}, "env HERALD_DATABASE_URL: database_url:"},
		{"a bad env integer", "", map[string]string{"HERALD_MAX_BODY_BYTES": "lots"}, "env HERALD_MAX_BODY_BYTES: max_body_bytes:"},
		{"a zero plugin call timeout", "\nplugin_call_timeout = \"0s\"\n", nil, ":2: plugin_call_timeout:"},
		{"a negative model cooldown", "model_cooldown = \"-1s\"\n", nil, ":1: model_cooldown:"},
		{"zero allowed fails", "model_allowed_fails = 0\n", nil, ":1: model_allowed_fails:"},
		{"a bad env model retries", "", map[string]string{"HERALD_MODEL_RETRIES": "many"}, "env HERALD_MODEL_RETRIES: model_retries:"},
	}
	for _, c := range cases {
		t.Run(c.name+" is reported with its place", func(t *testing.T) {
			p := write(t, c.body)
			_, err := config.Load(p, env(c.env))
			if err == nil {
				t.Fatal("no error")
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("not a config.Error: %T %v", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%q does not contain %q", err, c.want)
			}
			if c.env == nil && !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("%q does not start with the file name", err)
			}
		})
	}
}
