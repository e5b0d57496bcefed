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
// plugins_cmd.go, finetune_cmd.go, visibility_cmd.go, mcp.go; bootstrap.go
// is the first start's default workspace and key, secretkey.go the
// HERALD_SECRET_KEY rules, version.go `herald version`.
//
// Package main: `main.go` calls `run(ctx, args, getenv, stdout, stderr)` in
// `run.go`, which dispatches the subcommands from one table (`commands`);
// `cmd.go` holds what they share (the common flags, `commonFlags.open` for
// the config and the migrated store, `verbs` for a command with verbs such
// as `keys create`, `workspaceNamed`). `serve.go` builds the host as a list
// of named steps, each returning what the next needs: `listen`; `openStore`,
// `bootstrap` (`bootstrap.go`: on the first start, workspace "default" and
// its key) and `ensureSecretKey` (`secretkey.go`); `buildBase` (beacon
// writer, blobs, plugin manager, plans table and sync, job queue, leases,
// quota checker, site fetcher); `buildAreas` (one block per area service,
// then the job handlers mounted from the job table, `jobs.go`, before the
// queue starts); `buildAPI` (serve_api.go: one Connect handler per area, MCP,
// `api.NewServer`); `newHTTPServer` (`httpserver.go`); `reloadPart` (SIGHUP,
// `reload.go`); `backgroundParts`: one ordered list of `lifecycle`s
// (`lifecycle.go`), started in order and stopped in reverse, so the HTTP
// server drains first, the queue's running jobs finish within
// `shutdown_timeout`, and the plugins go last. `agent_tools.go` is the glue
// between areas (what the agent's tools need of visibility and content,
// typed on the agent's side), `providers.go` which providers have a key.
// Each other subcommand has its file: `migrate.go`, `keys.go`,
// `workspaces.go`, `plans_cmd.go` (`plans.go` is the stored plans for
// `serve`), `plugins_cmd.go` (`plugins [--check]`), `finetune_cmd.go`,
// `visibility_cmd.go`, `mcp.go` (`mcp --stdio`), `version.go`. `host/` tests
// call `run` in-process (commands, and `serve` up to a clean stop);
// `integration/` runs the built binary.
package main
