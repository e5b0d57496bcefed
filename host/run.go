package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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
  logs      herald logs ship --file ACCESS_LOG --url URL --site-key KEY --secret-file FILE: post a server's access log
  mcp       MCP for desktop assistants: herald mcp --stdio [--url URL] (key in HERALD_API_KEY)
  version   print the version

common flags: --config FILE, --data-dir DIR, --log-format text|json
`

// commands are the subcommands that take the arguments after their name.
var commands = map[string]command{
	"serve":      serve,
	"migrate":    migrate,
	"keys":       keysCmd,
	"workspaces": workspacesCmd,
	"plans":      plansCmd,
	"crawlers":   crawlersCmd,
	"plugins":    listPlugins,
	"finetune":   finetuneCmd,
	"visibility": visibilityCmd,
	"mcp":        mcpStdio,
	"logs":       logsCmd,
}

// run is the whole program; tests call it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return errors.New("missing command")
	}
	cmd, rest := args[1], args[2:]
	if c, ok := commands[cmd]; ok {
		return c(ctx, rest, getenv, stdout, stderr)
	}
	switch cmd {
	case "plugin":
		if len(rest) != 1 {
			return fmt.Errorf("usage: herald plugin NAME (one of %s)", strings.Join(firstparty.Names(), ", "))
		}
		return firstparty.Serve(rest[0])
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
