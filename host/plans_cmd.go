package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/plansstore"
	"io"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/store"
)

// plansApply is `herald plans apply FILE`: FILE's plan blocks and limits
// caps (over the defaults, with HERALD_PLAN_* overrides) become the next
// stored version; hosts apply it within a poll, at once with Redis.
func plansApply(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("plans apply", stderr, false)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(plansUsage)
	}
	file, err := config.Load(fs.Arg(0), getenv)
	if err != nil {
		return err
	}
	st, cfg, err := f.open(ctx, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	sync, err := plans.NewSync(plans.SyncDeps{Store: plansstore.New(st), RedisURL: cfg.RedisURL})
	if err != nil {
		return err
	}
	defer sync.Stop(ctx)
	v, created, err := sync.Publish(ctx, plans.FromConfig(file, "apply "+hostName()+" "+fs.Arg(0)), false)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(stdout, "plans version %d stored; every host applies it within seconds\n", v)
	} else {
		fmt.Fprintf(stdout, "plans unchanged: version %d is already in force\n", v)
	}
	return nil
}

// plansShow prints the version in force as JSON.
func plansShow(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("plans show", stderr, false)
	st, err := adminStore(ctx, fs, f, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	pv, err := plansstore.New(st).LatestPlanVersion(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return errors.New("no plans version is stored yet: the first `herald serve` stores one")
	}
	if err != nil {
		return err
	}
	var body any
	if err := json.Unmarshal([]byte(pv.Body), &body); err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"version": pv.Version, "source": pv.Source, "createdAt": pv.CreatedAt, "digest": pv.Digest, "body": body})
}

const plansUsage = `usage:
  herald plans apply FILE   store FILE's plan blocks and limits caps as the next version; every host applies it within seconds
  herald plans show         print the version in force (JSON)`

// plansCmd is `herald plans`: the store and Redis come from the common
// flags and environment, like the other admin commands.
var plansCmd = verbs("plans", plansUsage, map[string]command{
	"apply": plansApply,
	"show":  plansShow,
})
