// Package lease enforces "at most N at once" rules across hosts: a named
// set of N slots, each taken by one holder with a lease that expires unless
// renewed. A host renews the slots it holds every TTL/3 and releases them
// when done; a host that dies (SIGKILL, a crash, a partition) stops
// renewing, and its slots free themselves when the lease runs out. There is
// no counter to leak.
//
// With Redis configured the slots are Redis keys (SET NX PX, Redis's clock
// decides expiry); without, rows of the database's concurrency_leases
// table, taken by a conditional upsert (the embedded SQLite default is one
// host, and PostgreSQL/CockroachDB serve several). Every host of a
// deployment must use the same backend, which the shared config ensures.
//
// "at most N at once" across hosts: `Limiter.Acquire(ctx, name, n)` waits
// for one of n named slots, each a lease renewed every TTL/3
// (`concurrency_lease`) and freed on release or when its host dies.
// Backends: Redis keys (`SET NX PX` in a Lua script,
// compare-and-renew/delete) when `redis_url` is set, else `store/leases.go`
// (rows of `concurrency_leases` taken by a conditional upsert on expired
// slots). Used by visibility's per-workspace engine cap
// (`visibility.Deps.Slots`).
package lease
