package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/store"
	firstparty "github.com/heraldhq/herald/plugins"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage: herald <command> [flags]

commands:
  serve     start the API (embedded default: SQLite under ./data, 127.0.0.1:8080)
  migrate   apply database migrations
  keys      API keys: herald keys create|list|revoke|rotate (herald keys --help)
  workspaces  herald workspaces list|set-plan: ids, plans, users and keys
  plans     herald plans apply FILE|show: the plans and caps every host applies (stored versions)
  plugins   list configured plugins and their checksums; --check starts each and prints its Info
  finetune  start a workspace's fine-tuning job: herald finetune start --workspace NAME --model MODEL [--voice ID]
  visibility  recompute stored visibility reports under the current mention rules: herald visibility rescore [--workspace NAME]
  plugin    serve a first-party plugin to a host: herald plugin NAME (the host runs this itself)
  mcp       MCP for desktop assistants: herald mcp --stdio [--url URL] (key in HERALD_API_KEY)
  version   print the version

common flags: --config FILE, --data-dir DIR, --log-format text|json
`

// run is the whole program; tests call it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return errors.New("missing command")
	}
	switch cmd, rest := args[1], args[2:]; cmd {
	case "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, rest, getenv, stdout, stderr)
	case "keys":
		return keysCmd(ctx, rest, getenv, stdout, stderr)
	case "workspaces":
		return workspacesCmd(ctx, rest, getenv, stdout, stderr)
	case "plans":
		return plansCmd(ctx, rest, getenv, stdout, stderr)
	case "plugins":
		return listPlugins(ctx, rest, getenv, stdout, stderr)
	case "finetune":
		return finetuneCmd(ctx, rest, getenv, stdout, stderr)
	case "visibility":
		return visibilityCmd(ctx, rest, getenv, stdout, stderr)
	case "plugin":
		if len(rest) != 1 {
			return fmt.Errorf("usage: herald plugin NAME (one of %s)", strings.Join(firstparty.Names(), ", "))
		}
		return firstparty.Serve(rest[0])
	case "mcp":
		return mcpStdio(ctx, rest, getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "herald", buildVersion())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

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
