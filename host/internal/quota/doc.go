// Package quota enforces the plan's rules on a workspace: AI credits
// (credits.go: Reserve before a provider call, refund on failure) and the
// per-workspace caps: how many voices,
// webhooks, sites and waiting schedules a workspace may hold (429 over the
// cap) and how long a name may be (400). Areas call it from their create
// methods. The caps come from the stored plans version every host applies
// (plans.Table, when Follow gave one and it holds caps), else from the
// host's limits block.
//
// The scheduler routes' plan rule (`SchedulerAPI`) and the per-workspace
// caps (voices, webhooks, sites, waiting schedules → 429; name length → 400)
// of the stored plans version (`Follow(table)`), else of `config.Limits`,
// called from the areas' create methods. `Room` is a cheap early answer; the
// cap holds at the insert: the store's create methods take `quota.Cap(kind)`
// and count under the workspace row's lock in the insert's transaction
// (`store/caps.go`: `LockWorkspace`, `*OverCapError`, turned into the 429 by
// `quota.Err`). The counts are `store/quota.go`. Edge hardening lives in
// `api`: `limits.go` (body read deadlines per route, the connection-capping
// listener, the metrics token, the Connect Collect cap) and `freeform.go`
// (free-form depth/size and NUL checks on every decoded request, both
// faces). Invariant: no user string with a NUL reaches the store (refused at
// the edge, stripped in beacons and again in the traffic writer).
package quota
