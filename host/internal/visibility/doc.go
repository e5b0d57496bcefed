// Package visibility runs AI visibility reports: how a brand shows up in
// answer engines' answers to its buyers' questions, against named
// competitors, over time (docs/METRICS.md). A report is a
// seoQueue job that crawls the brand's site (package site), asks every
// engine every prompt and the entity probes through the provider plugins,
// has a judge model grade the probe answers against the site's facts, and
// stores every answer as it arrives. Every score is a pure function of
// those stored answers (scoring.go), so it can be recomputed and shown
// with its evidence. It implements herald.api.v1.VisibilityService.
//
// AI visibility reports. `scoring.go`, `understanding.go` and `report.go`
// are pure functions of a report's stored answers, judged probes and site
// checks (`Compute`), so every number can be recomputed and shown with its
// evidence; `visibility.go` takes a report request
// (`ReportRequest.validate`, once), `engines.go` picks the engines, and
// `admit.go` applies the plan rules in the API's order and reserves the
// credits (quota's `ReserveTx`) in the transaction that stores and queues
// the report; `job.go` is the `seoQueue` job (`RunReport`, a row of
// `host/jobs.go`): it crawls once, asks engines in parallel under a
// per-workspace cap held across hosts with `lease` slots (`slots.go`;
// talking to providers only through its `Models` interface, which the plugin
// manager satisfies), stores every answer as it arrives in
// `visibility_answers` (so a resumed job asks only what is missing, and
// identical questions within 10 minutes reuse answers), has the judge grade
// the probes, then stores the computed result and gives back the credits of
// answers not obtained. Invariant: a failed engine's answers are missing,
// never zeros, in every mean. Mentions (scoring version 2):
// `inputs.go` (competitor forms, `CompetitorInput`, reused by trackers),
// `prose.go` (URLs, sources lists, `AnswerSources`), `tokens.go` and
// `fold.go` (one tokenising pass, case and diacritics folded), `mentions.go`
// (the `Matcher`: one trie of every alias; ambiguity from `commonwords`), `infer.go` (a
// name-only competitor's domain from the report's sources, `InferDomains`,
// applied by `ScoreMentions`), `analysis.go` (per answer every brand: mentioned, position, cited, judge
// verdicts). At completion the judge decides the pending sentence-initial
// ordinary-word names (`judge.go`, verdicts in `visibility_answer_mentions`)
// and the evidence is stored once (`visibility_evidence`); `rescore.go`
// recomputes stored reports for `herald visibility rescore`. Trackers
// (docs/METRICS.md "Tracking"): `tracker.go` (setup, validation, plan
// rules), `tracker_slots.go` (slots and `RunDue`; `TrackerScheduler` is the
// `serve` lifecycle that looks every `visibility { tracker_tick }`),
// `tracker_handler.go` (`TrackerService`), `trend.go` and `traffic_join.go`
// (the trend and the visibility-and-visits join, which reads traffic rollups
// through the store), `figures.go`, `sources.go`, `sentiment.go` (the
// per-brand figures added to every report by `Extend` at completion;
// sentiment is judged per answer and brand and stored in
// `visibility_answers.sentiment`). Invariant: a slot runs at most once
// across hosts — a host claims it in the same transaction that reserves the
// credits and queues the report (`store.ClaimTrackerSlot`: conditional
// `UPDATE … WHERE next_run_at = slot` plus the `(tracker_id, slot)` row of
// `visibility_tracker_runs`); a slot nobody claimed stays due, so the next
// host to look runs it late and records how late.
package visibility
