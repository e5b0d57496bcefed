// Package tracker runs visibility trackers (docs/METRICS.md "Tracking"):
// stored report setups run as reports (package visibility) at their daily
// or weekly slot, and their trend. `tracker.go` is the service (setup,
// validation, plan rules; `QueueRun` by hand), `types.go` its domain
// types, `slots.go` the slots (`QueueDue`; `Scheduler` is the `serve`
// lifecycle that looks every `visibility { tracker_tick }`), `trend.go`
// the trend and its CSV, `traffic_join.go` the visibility-and-visits join
// (visits asked of traffic through `Traffic`), `handler.go` the
// `TrackerService` handler. Invariant: a slot runs at most once across
// hosts — a host claims it in the same transaction that reserves the
// credits and queues the report (`store.ClaimTrackerSlot`: conditional
// `UPDATE … WHERE next_run_at = slot` plus the `(tracker_id, slot)` row
// of `visibility_tracker_runs`); a slot nobody claimed stays due, so the
// next host to look runs it late and records how late.
package tracker
