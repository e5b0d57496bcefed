// Package config is Herald's configuration: the HCL schema, its defaults,
// environment overrides and validation. It is public so that operators' tools
// can read and check the same files the host reads.
//
// Load order: defaults, then the HCL file (if any), then HERALD_* environment
// variables, then Validate. No file and no environment gives the embedded
// default: SQLite under ./data, in-process signalling, listening on
// 127.0.0.1:8080.
//
// HCL schema, defaults, env overrides, validation with file:line:field
// errors. `settings.go` is the one table of top-level settings (name, env
// variable, default, Config field, file field, doc): defaults, the file, the
// environment and `envOf` follow it, and so does the configuration
// table (`config/gen`, run by `make generate`, writes it between its
// markers; `TestConfigurationTable` fails when it is stale). Blocks (`plan`,
// `queue`, `plugin`, `model`, `limits`, …) are applied beside it.
// First-party plugin names and kinds come from `plugins/names`, a list with
// no plugin code (package `plugins` serves exactly those names; a test there
// pins them), so importing config does not pull in the plugins and their
// provider SDKs. `QueueNames` must equal `jobs.QueueNames` (config cannot
// import `host/internal`; a test in `host/` pins them).
package config
