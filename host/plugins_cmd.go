package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/heraldhq/herald/host/internal/pluginhost"
)

// listPlugins is `herald plugins [--check]`: the configured plugins with
// their commands, the names of their settings (never the values) and
// checksum status; --check starts each one (sending its settings) and
// prints what its Info answers.
func listPlugins(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("plugins", stderr, false)
	check := fs.Bool("check", false, "start each plugin and print what its Info answers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := f.load(getenv)
	if err != nil {
		return err
	}
	statuses := pluginhost.Statuses(cfg)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tCOMMAND\tSETTINGS\tSHA256")
	for _, s := range statuses {
		settings := "-"
		if len(s.Settings) > 0 {
			settings = strings.Join(s.Settings, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Kind, s.Command, settings, s.Checksum)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A pinned checksum that does not match (or cannot be checked) fails the
	// command, as --check does: scripts gate deploys on the exit code.
	bad := 0
	for _, s := range statuses {
		if strings.HasPrefix(s.Checksum, "MISMATCH") || strings.HasPrefix(s.Checksum, "error") {
			bad++
		}
	}
	if !*check {
		if bad > 0 {
			return fmt.Errorf("plugins: %d of %d failed the checksum check", bad, len(statuses))
		}
		return nil
	}
	m, err := pluginhost.NewManager(newLogger(cfg, stderr), cfg, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	failed := 0
	fmt.Fprintln(stdout)
	for _, s := range statuses {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		line, err := m.Check(cctx, s.Name)
		cancel()
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "%s: FAILED: %v\n", s.Name, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s\n", s.Name, line)
	}
	if failed > 0 || bad > 0 {
		return fmt.Errorf("plugins: %d of %d failed the check", max(failed, bad), len(statuses))
	}
	return nil
}
