package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/adminstore"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/heraldhq/herald/config"
)

const workspacesUsage = `usage:
  herald workspaces list
  herald workspaces set-plan --workspace NAME --plan PLAN`

// workspacesCmd is `herald workspaces SUBCOMMAND`.
var workspacesCmd = verbs("workspaces", workspacesUsage, map[string]command{
	"list":     workspacesList,
	"set-plan": workspacesSetPlan,
})

func workspacesList(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("workspaces list", stderr, false)
	st, err := adminStore(ctx, fs, f, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := adminstore.New(st).ListWorkspaces(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE_ID\tNAME\tPLAN\tUSERS\tACTIVE_KEYS\tWEBSITE\tCREATED")
	for _, w := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", w.ID, w.Name, w.Plan, w.Users, w.ActiveKeys, w.Website, ms(w.CreatedAt))
	}
	return tw.Flush()
}

func workspacesSetPlan(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("workspaces set-plan", stderr, false)
	workspace := fs.String("workspace", "", "workspace name")
	plan := fs.String("plan", "", "new plan: "+strings.Join(config.PlanNames, ", "))
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *workspace == "" || *plan == "" {
		return errors.New(workspacesUsage)
	}
	if !slices.Contains(config.PlanNames, *plan) {
		return fmt.Errorf("workspaces set-plan: --plan must be one of %s", strings.Join(config.PlanNames, ", "))
	}
	st, _, err := f.open(ctx, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	ws, err := workspaceNamed(ctx, st, "workspaces set-plan", *workspace)
	if err != nil {
		return err
	}
	if err := st.SetWorkspacePlan(ctx, ws.ID, *plan); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "workspace %q (id %s): plan %s -> %s\n", ws.Name, ws.ID, ws.Plan, *plan)
	return nil
}
