package main

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/plansstore"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
)

// The plans and the limits block's per-workspace caps are data in the
// database (table plan_versions), not per-host config: an apply stores a
// new version and every host applies the newest (package plans), so all
// hosts answer a workspace with the same plan within seconds.
//   - The first start on an empty database stores the file's plans as
//     version 1.
//   - Later starts apply the newest stored version, and warn when their
//     own file proposes other plans: a restart never undoes an apply.
//   - SIGHUP on any host, and `herald plans apply FILE` from anywhere,
//     store the file's plans as the next version (nothing when equal).

// hostName names this host in a version's source.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return fmt.Sprintf("%s[%d]", h, os.Getpid())
}

// startPlans seeds the stored plans on a first start, applies the newest
// version to table and the queue's caps before anything serves, and
// returns the Sync that keeps them current (a lifecycle part).
func startPlans(ctx context.Context, st *store.Store, cfg *config.Config, log hclog.Logger, table *plans.Table, queue *jobs.Queue) (*plans.Sync, error) {
	sync, err := plans.NewSync(plans.SyncDeps{
		Store: plansstore.New(st), Table: table, RedisURL: cfg.RedisURL, Logger: log,
		OnApply: func(s plans.Snapshot) { queue.SetCaps(jobCaps(s.Plans)) },
	})
	if err != nil {
		return nil, err
	}
	mine := plans.FromConfig(cfg, "first start "+hostName()+" "+cfg.Source)
	if _, _, err := sync.Publish(ctx, mine, true); err != nil {
		return nil, fmt.Errorf("plans: %w", err)
	}
	if pv, err := plansstore.New(st).LatestPlanVersion(ctx); err == nil && pv.Digest != plans.Digest(mine) {
		log.Warn("the plans and caps in this host's configuration differ from the stored version every host applies; SIGHUP or `herald plans apply FILE` stores them",
			"version", pv.Version, "source", pv.Source)
	}
	return sync, nil
}

// sighupPlans is applyReload's applyPlans on a host: next's plans and caps
// become the next stored version, applied here at once and by the other
// hosts within a poll (or a Redis notice).
func sighupPlans(sync *plans.Sync) func(*config.Config) (int64, error) {
	return func(next *config.Config) (int64, error) {
		v, _, err := sync.Publish(context.Background(), plans.FromConfig(next, "sighup "+hostName()+" "+next.Source), false)
		return v, err
	}
}
