package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

const visibilityUsage = "usage: herald visibility rescore [--workspace NAME]"

// visibilityCmd is `herald visibility rescore`: it recomputes stored
// visibility reports from their stored answers under the current mention
// rules (no engine is asked again) and prints each report's score before
// and after with the scoring versions.
func visibilityCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "rescore" {
		return errors.New(visibilityUsage)
	}
	fs, f := newFlagSet("visibility rescore", stderr, false)
	workspace := fs.String("workspace", "", "workspace name (default: every workspace)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	st, cfg, err := f.open(ctx, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	wsID, err := workspaceFilter(ctx, st, "visibility rescore: --workspace", *workspace)
	if err != nil {
		return err
	}
	done, err := visibility.Rescore(ctx, st, wsID, newLogger(cfg, stderr))
	for _, r := range done {
		fmt.Fprintf(stdout, "report %s (workspace %s): aiVisibility %.1f (scoring v%d) -> %.1f (v%d)\n", r.ReportID, r.WorkspaceID, r.Before, r.From, r.After, r.To)
	}
	if err != nil {
		return fmt.Errorf("visibility rescore: %w", err)
	}
	fmt.Fprintf(stdout, "Rescored %d report(s) under scoring version %d.\n", len(done), analysis.ScoringVersion)
	return nil
}
