// Command herald is the Herald host: the API, job queue, scheduler and
// traffic collector, plus the operator subcommands. main only wires the
// process to run.
//
// Who does what: run.go dispatches the subcommands (one table) and cmd.go
// holds what they share (common flags, config, store). serve.go builds and
// wires the host in named steps (base, areas, API, background parts);
// jobs.go is the job table it mounts, agent_tools.go the glue between
// areas (what the agent's tools need), providers.go which providers have a
// key, lifecycle.go the ordered start and stop, reload.go SIGHUP, plans.go
// the stored plans, httpserver.go the HTTP part. The other subcommands have a
// file each: migrate.go, keys.go, workspaces.go, plans_cmd.go,
// plugins_cmd.go, finetune_cmd.go, visibility_cmd.go, mcp.go, logs_cmd.go; bootstrap.go
// is the first start's default workspace and key, secretkey.go the
// HERALD_SECRET_KEY rules, version.go `herald version`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "herald:", err)
		os.Exit(1)
	}
}
