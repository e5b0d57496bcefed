// Package visibility runs AI visibility reports: how a brand shows up in
// answer engines' answers to its buyers' questions, against named
// competitors, over time (docs/METRICS.md). A report is a seoQueue job
// that crawls the brand's site (package site), asks every engine every
// prompt and the entity probes through the provider plugins, has a judge
// model grade the probe answers against the site's facts, and stores every
// answer as it arrives. Every score is a pure function of those stored
// answers (package visibility/scoring over visibility/analysis), so it can
// be recomputed and shown with its evidence. It implements
// herald.api.v1.VisibilityService; trackers, which run reports at their
// slots, are their own area (package tracker).
//
// The reports area, one direction of imports: analysis (text and brands)
// ← scoring (figures) ← visibility (reports) ← tracker. `visibility.go`
// takes a report request (`ReportRequest.validate`, once), `engines.go`
// picks the engines, and `admit.go` applies the plan rules in the API's
// order and reserves the credits (quota's `ReserveTx`) in the transaction
// that stores and queues the report; `job.go` is the `seoQueue` job
// (`RunReport`, a row of `host/jobs.go`): it crawls once, asks engines in
// parallel under a per-workspace cap held across hosts with `lease` slots
// (`slots.go`; talking to providers only through its `Models` interface,
// which the plugin manager satisfies), stores every answer as it arrives
// in `visibility_answers` (so a resumed job asks only what is missing, and
// identical questions within 10 minutes reuse answers), has the judge
// grade the probes, then stores the computed result and gives back the
// credits of answers not obtained. Invariant: a failed engine's answers
// are missing, never zeros, in every mean. At completion the judge decides
// the pending sentence-initial ordinary-word names (`judge.go`, verdicts in
// `visibility_answer_mentions`) and the sentiment of each brand per answer
// (`sentiment_judge.go`, stored in `visibility_answers.sentiment`), the
// figures are extended against the previous run (`tracking.go`), the
// evidence is stored once (`visibility_evidence`, `view.go`) and the
// completion events are written (`events.go`); `rescore.go` recomputes
// stored reports for `herald visibility rescore`; `page_citations.go`
// answers traffic's pages view with the pages engines cited.
package visibility
