// What every subcommand shares: the common flags, loading the config,
// the logger and the migrated store.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/adminstore"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/store"
)

// commonFlags are the flags every store-using command accepts; set flags
// win over the environment, which wins over the config file.
type commonFlags struct {
	config, listen, dataDir, logFormat string
}

// newFlagSet returns the flag set of a subcommand with the common flags
// registered on it.
func newFlagSet(name string, stderr io.Writer, withListen bool) (*flag.FlagSet, *commonFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &commonFlags{}
	f.register(fs, withListen)
	return fs, f
}

func (f *commonFlags) register(fs *flag.FlagSet, withListen bool) {
	fs.StringVar(&f.config, "config", "", "HCL config file (default $HERALD_CONFIG)")
	fs.StringVar(&f.dataDir, "data-dir", "", "data dir for SQLite and blobs (default $HERALD_DATA_DIR or ./data)")
	fs.StringVar(&f.logFormat, "log-format", "", "log format: text or json")
	if withListen {
		fs.StringVar(&f.listen, "listen", "", "listen address (default $HERALD_LISTEN or 127.0.0.1:8080)")
	}
}

func (f *commonFlags) load(getenv func(string) string) (*config.Config, error) {
	overrides := map[string]string{"HERALD_LISTEN": f.listen, "HERALD_DATA_DIR": f.dataDir, "HERALD_LOG_FORMAT": f.logFormat}
	env := func(k string) string {
		if v := overrides[k]; v != "" {
			return v
		}
		return getenv(k)
	}
	path := f.config
	if path == "" {
		path = getenv("HERALD_CONFIG")
	}
	return config.Load(path, env)
}

func newLogger(c *config.Config, w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "herald",
		Level:      hclog.LevelFromString(c.LogLevel),
		Output:     w,
		JSONFormat: c.LogFormat == "json",
	})
}

func openStore(ctx context.Context, c *config.Config) (*store.Store, error) {
	s, err := store.Open(ctx, c.DatabaseURL, c.DataDir)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// open loads the config (flags over environment over file) and opens the
// migrated store; the caller closes the store.
func (f *commonFlags) open(ctx context.Context, getenv func(string) string) (*store.Store, *config.Config, error) {
	cfg, err := f.load(getenv)
	if err != nil {
		return nil, nil, err
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return st, cfg, nil
}

// adminStore parses the common flags and opens the migrated store, for
// commands whose flags need no check before.
func adminStore(ctx context.Context, fs *flag.FlagSet, f *commonFlags, args []string, getenv func(string) string) (*store.Store, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	st, _, err := f.open(ctx, getenv)
	return st, err
}

// command is a subcommand: run passes it the arguments after its name.
type command func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error

// verbs returns the command `herald name VERB`: it runs the verb args[0]
// with the arguments after it, prints usage for help, and answers usage
// as the error when the verb is missing or unknown.
func verbs(name, usage string, table map[string]command) command {
	return func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			return errors.New(usage)
		}
		if run, ok := table[args[0]]; ok {
			return run(ctx, args[1:], getenv, stdout, stderr)
		}
		switch args[0] {
		case "-h", "--help", "help":
			fmt.Fprintln(stdout, usage)
			return nil
		}
		return fmt.Errorf("unknown %s command %q\n%s", name, args[0], usage)
	}
}

// workspaceNamed looks a workspace up by name; a missing one is the error
// "<what>: no workspace NAME".
func workspaceNamed(ctx context.Context, st *store.Store, what, name string) (store.Workspace, error) {
	ws, err := adminstore.New(st).WorkspaceByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return ws, fmt.Errorf("%s: no workspace %q", what, name)
	}
	return ws, err
}

// ms formats a Unix-millisecond timestamp for tables.
func ms(t int64) string { return time.UnixMilli(t).UTC().Format(time.RFC3339) }

// workspaceFilter is the id of an optional --workspace NAME: "" (every
// workspace) when name is empty, else workspaceNamed's.
func workspaceFilter(ctx context.Context, st *store.Store, what, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	ws, err := workspaceNamed(ctx, st, what, name)
	return ws.ID, err
}
