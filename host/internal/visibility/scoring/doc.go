// Package scoring computes a report's figures from analysed answers
// (docs/METRICS.md): `scoring.go` (mentions, positions, share of voice),
// `sources.go` (cited domains and source gaps), `understanding.go` (the
// entity probes and site checks), `figures.go` (per-brand and per-engine
// figures, sentiment, changes), `spread.go` (the prompt table behind every
// interval and change's significance, over `visibility/interval`) and
// `report.go` (`Compute`, the report's numbers and recommendations). It
// imports analysis, never the reports or trackers above it.
package scoring
