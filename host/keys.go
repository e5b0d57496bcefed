package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// bootstrap creates workspace "default" (plan business) on the first start
// against an empty store and prints its API key once.
func bootstrap(ctx context.Context, st *store.Store, stdout io.Writer) error {
	n, err := st.CountWorkspaces(ctx)
	if err != nil || n > 0 {
		return err
	}
	key, err := auth.CreateKey(ctx, st, "default", "business", "owner@default")
	if err != nil {
		return fmt.Errorf("create default workspace: %w", err)
	}
	fmt.Fprintf(stdout, "Created workspace \"default\" (plan business). Its API key is shown once, keep it:\n%s\n", key)
	return nil
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("migrate", stderr, false)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := f.load(getenv)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	st.Close()
	fmt.Fprintf(stdout, "migrations applied (%s)\n", st.Dialect)
	return nil
}

func keys(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: herald keys create --workspace NAME [--plan free|pro|business|enterprise] [--user EMAIL] [--website URL] [--team-website URL]")
	}
	fs, f := newFlagSet("keys create", stderr, false)
	workspace := fs.String("workspace", "", "workspace name (created when missing)")
	plan := fs.String("plan", "business", "plan of a new workspace: "+strings.Join(config.PlanNames, ", "))
	user := fs.String("user", "", "user email (default owner@WORKSPACE)")
	website := fs.String("website", "", "the user's own website (https://example.com); AI traffic's sites/ensure tracks it when the team has none")
	teamWebsite := fs.String("team-website", "", "the team (workspace) website; sites/ensure tracks it first")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *workspace == "" {
		return errors.New("keys create: --workspace is required")
	}
	if !slices.Contains(config.PlanNames, *plan) {
		return fmt.Errorf("keys create: --plan must be one of %s", strings.Join(config.PlanNames, ", "))
	}
	if *user == "" {
		*user = "owner@" + *workspace
	}
	for flag, v := range map[string]string{"website": *website, "team-website": *teamWebsite} {
		if v == "" {
			continue
		}
		if _, err := traffic.NormalizeDomain(v); err != nil {
			return fmt.Errorf("keys create: --%s: %w", flag, err)
		}
	}
	cfg, err := f.load(getenv)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	key, err := auth.CreateKey(ctx, st, *workspace, *plan, *user)
	if err != nil {
		return err
	}
	if *website != "" || *teamWebsite != "" {
		if err := setWebsites(ctx, st, *workspace, *plan, *user, *website, *teamWebsite); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "API key for workspace %q, user %s (shown once):\n%s\n", *workspace, *user, key)
	return nil
}

// setWebsites records the user's and the team's websites given to keys
// create (either may be empty: left as is).
func setWebsites(ctx context.Context, st *store.Store, workspace, plan, user, website, teamWebsite string) error {
	withScheme := func(w string) string {
		if !strings.Contains(w, "://") {
			return "https://" + w
		}
		return w
	}
	ws, u, err := st.EnsureWorkspaceUser(ctx, workspace, plan, user)
	if err != nil {
		return err
	}
	if website != "" {
		if err := st.SetUserWebsite(ctx, u.ID, withScheme(website)); err != nil {
			return err
		}
	}
	if teamWebsite != "" {
		return st.SetWorkspaceWebsite(ctx, ws.ID, withScheme(teamWebsite))
	}
	return nil
}
