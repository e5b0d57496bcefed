// Package traffic tracks visits that AI assistants send to a team's
// website. A site gets a public key and a script tag; the script (t.js)
// posts beacons to the public collect route; Classify tells AI visits,
// AI crawler hits and other bots apart; a group-commit Writer stores each
// accepted beacon durably before it is answered; stats read daily rollups
// that are upserted in the same transaction as the events. It implements
// herald.api.v1.AITrafficService; routes.go maps the REST face onto it.
//
// AI traffic (`traffic.New(Deps)`: store, beacon writer, base URL, quota):
// sites and keys (`NewSite`), beacons (`Beacon.validate`), `Classify` (AI
// referrers, AI crawlers, other bots), the group-commit `Writer` (one
// transaction per batch of beacons; a beacon is answered only after its
// commit; on SQLite the commit is an append to the beacon inbox,
// `store.TrafficInbox`, a log of checksummed frames in segment files of its
// own (one write(2) per group), and `inbox.go` folds the groups into the
// tables behind it, many per transaction, writing its position in the same
// transaction so a start replays exactly what was not applied; the answer's
// outcome comes from `Sessionize` over a view of the sessions not yet
// applied plus a Bloom filter of the stored ones, so a new session needs no
// read; `Writer.Sync` lets stats see every accepted beacon), stats built
// from rollups. The visit rules (first pageview starts a visit and sets its
// source, engaged at a second pageview or 10 s visible, engagement attaches
// to the session's latest pageview) are `traffic.Sessionize`, a pure
// function from the events and the loaded sessions to a `store.TrafficBatch`
// (inserts, updates, rollup deltas); `store.RecordTraffic` loads and locks
// the sessions, calls it, and writes the batch — raw events, sessions and
// the rollups (`traffic_daily`, `traffic_pages`, `traffic_crawlers`) — in
// one transaction, with the multi-row/IN-list helpers of `store/batch.go`;
// `store/traffic_pages.go` keeps pages per nested 1/8/64/512-day block and
// reads any window as a signed sum of a few blocks. `Stats` returns a
// `traffic.Report` (domain types; `handler_stats.go` converts it to the
// proto response). `Retention` prunes raw events (`Start`/`Stop`).
// Invariant: stats never read raw events, so their cost grows with the days
// asked for, not the events stored; rows dated after today must not exist (a
// block holding today is read whole).
package traffic
