// Package plans holds the live table of plans (config.Plan by name) and the
// per-workspace caps that services read at request time, and keeps every
// host's table on the same stored version (sync.go): an apply (SIGHUP,
// `herald plans apply`, the first start) stores a new version in the
// database and every host applies it within seconds.
//
// The live plan table (`plans.Table`: `Get`, `Caps`, `Version`; `Apply`
// swaps an atomic snapshot of plans + per-workspace caps). Services take it
// in their `Deps` and read it at request time. Plans are data: `Snapshot`s
// are stored as versions in `plan_versions` (`store/plans.go`; `Encode` is
// the JSON, its SHA-256 the digest) and `plans.Sync` keeps every host on the
// newest (a poll of `MAX(version)` each second plus a Redis notice on
// `herald:plans`), applying it to the table and, through `OnApply`, to the
// job queue's caps. `host/plans.go` wires it: the first start seeds version
// 1 from the file, SIGHUP (`host/reload.go`) and `herald plans apply FILE`
// (`host/plans_cmd.go`) publish a new version. Invariant: hosts only move
// forward in versions, and a restart never publishes.
package plans
