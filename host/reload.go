package main

import (
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"maps"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
)

// reloadedFields are the config.Config fields a SIGHUP applies: the plugin
// manager rebuilds plugins and model routes from the new file (calls in
// flight finish on the old set; plugin_call_timeout and plugin settings
// apply to plugin processes started after the reload, each configured
// once it starts, and their literal values join the redaction list of
// logged provider errors), the log level is switched on the shared root
// logger, and the plan blocks with the limits block's per-workspace caps
// are stored as the next plans version, which every host (this one
// included) applies to the live plan table services read at request time
// and to the job queue's per-plan caps (jobs already queued or running
// stay). Everything else is read once by services built at start (the
// rest of limits, queues, listen address, stores...), so a change there
// is reported as needing a restart instead of being claimed.
var reloadedFields = []string{"Plugins", "Models", "Router", "PluginCallTimeout", "LogLevel", "Plans"}

// ignoredFields are not settings (Source names the file).
var ignoredFields = []string{"Source"}

// applyReload applies next over the start config cur (the file as loaded
// at start, before public_url and secret_key were filled in) as far as a
// running host can and logs exactly what was applied and which settings
// changed but need a restart.
// reloadPlugins is the plugin manager's Reload; on its error nothing is
// applied and cur stays. applyPlans publishes next's plans and caps (on a
// host: as the next stored version, which every host applies) and returns
// the version in force; it runs after the plugins reloaded.
func applyReload(log hclog.Logger, cur, next *config.Config, reloadPlugins func(*config.Config) error, applyPlans func(*config.Config) (int64, error)) error {
	applied, restart := diffConfig(cur, next)
	if err := reloadPlugins(next); err != nil {
		return err
	}
	// Always set: cur is the start config (never mutated: services read it
	// concurrently), so a level or plan set back to its start value after
	// an earlier reload must apply too.
	log.SetLevel(hclog.LevelFromString(next.LogLevel))
	version, err := applyPlans(next)
	if err != nil {
		// The plugins and the log level are applied; the plans stay.
		log.Error("plans not applied on SIGHUP; the running version stays", "version", version, "error", err)
	}
	log.Info("configuration reloaded on SIGHUP",
		"applied", strings.Join(applied, ","),
		"plans_version", version,
		"plugin_settings", strings.Join(changedSettings(cur, next), " "),
		"needs_restart", strings.Join(restart, ","))
	if len(restart) > 0 {
		log.Warn("changed settings need a restart to apply; the running values stay until then", "settings", strings.Join(restart, ","))
	}
	return nil
}

// planApplier applies a config's plans to this host alone (no stored
// version: tests of the reload): the plans replace the live table and
// their jobs_running/jobs_queued the queue's caps.
func planApplier(table *plans.Table, setCaps func(jobstore.JobCaps)) func(*config.Config) (int64, error) {
	return func(c *config.Config) (int64, error) {
		table.Set(c.Plans)
		setCaps(jobCaps(c.Plans))
		return table.Version(), nil
	}
}

// jobCaps are the job queue's per-plan caps (jobs_running, jobs_queued).
func jobCaps(byName map[string]config.Plan) jobstore.JobCaps {
	caps := jobstore.JobCaps{ByPlan: map[string]jobstore.JobCap{}}
	for name, p := range byName {
		caps.ByPlan[name] = jobstore.JobCap{Running: p.JobsRunning, Queued: p.JobsQueued}
	}
	// A workspace whose plan config does not know gets the free plan's caps.
	caps.Default = caps.ByPlan["free"]
	return caps
}

// diffConfig lists the changed fields of config.Config by their setting
// names: those a reload applies, and those that need a restart. Plugins
// and models always count as applied (their files and environment may have
// changed even when the blocks did not).
func diffConfig(cur, next *config.Config) (applied, restart []string) {
	a, b := reflect.ValueOf(cur).Elem(), reflect.ValueOf(next).Elem()
	t := a.Type()
	for i := range t.NumField() {
		name := t.Field(i).Name
		if slices.Contains(ignoredFields, name) {
			continue
		}
		changed := !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface())
		switch {
		case name == "Limits":
			// The per-workspace caps travel with the plans; the rest of
			// the block is read at start.
			if plans.CapsOf(cur.Limits) != plans.CapsOf(next.Limits) {
				applied = append(applied, "limits_caps")
			}
			if withoutCaps(cur.Limits) != withoutCaps(next.Limits) {
				restart = append(restart, "limits")
			}
		case name == "Plugins" || name == "Models":
			applied = append(applied, settingName(name))
		case !changed:
		case slices.Contains(reloadedFields, name):
			applied = append(applied, settingName(name))
		default:
			restart = append(restart, settingName(name))
		}
	}
	return applied, restart
}

// withoutCaps is l without the per-workspace caps.
func withoutCaps(l config.Limits) config.Limits {
	l.MaxVoices, l.MaxWebhooks, l.MaxSites, l.MaxSchedules, l.MaxNameLength, l.MaxEventSubscriptions = 0, 0, 0, 0, 0, 0
	return l
}

// changedSettings names, for each plugin whose settings differ between cur
// and next, the keys added, removed or given another value:
// "openai(api_key)". Values are never shown.
func changedSettings(cur, next *config.Config) []string {
	plugins := map[string]bool{}
	for name := range cur.Plugins {
		plugins[name] = true
	}
	for name := range next.Plugins {
		plugins[name] = true
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(plugins)) {
		a, b := cur.Plugins[name].Settings, next.Plugins[name].Settings
		keys := map[string]bool{}
		for k, v := range a {
			if w, ok := b[k]; !ok || w != v {
				keys[k] = true
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				keys[k] = true
			}
		}
		if len(keys) > 0 {
			out = append(out, name+"("+strings.Join(slices.Sorted(maps.Keys(keys)), ",")+")")
		}
	}
	return out
}

// settingName turns a Go field name into the snake_case config name
// (LogLevel -> log_level, AllowedPrivateCIDRs -> allowed_private_cidrs).
func settingName(field string) string {
	if field == "JWTSecret" {
		return "jwt_secret"
	}
	var b strings.Builder
	prevLower := false
	for _, r := range field {
		upper := r >= 'A' && r <= 'Z'
		if upper {
			if prevLower {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		prevLower = !upper
		b.WriteRune(r)
	}
	return b.String()
}

// reloadPart is the lifecycle that reloads the config on SIGHUP while it
// runs: the plugins (their new settings redacted from then on) and the
// plans (host/reload.go, host/plans.go).
func reloadPart(log hclog.Logger, f *commonFlags, getenv func(string) string, loaded *config.Config,
	pluginMgr *pluginhost.Manager, publishPlans func(*config.Config) (int64, error), redactAlso func([]string)) lifecycle {
	var stopHUP func()
	return funcs{start: func() {
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
			return applyReload(log, loaded, next, reloadPlugins, publishPlans) // host/reload.go
		})
	}, stop: func() { stopHUP() }}
}

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
