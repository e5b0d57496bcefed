// Package impact reads the impact of a published post on the tracker
// prompts it targets (docs/IMPACT.md): the tracker's per-prompt figures of
// the brand itself over the 14 days before publishing (the baseline) and
// the days since (after, at least 7 before an effect is shown), the effect
// (after − baseline on the targeted prompts) − (after − baseline on the
// tracker's other prompts) with a 95% interval from a bootstrap over
// prompts (package visibility/interval), and the post's page: answers
// citing it, verified crawler hits and AI visits landing on it, before and
// after.
//
// The package reaches its areas through small interfaces declared here:
// Schedules (*schedule.Service), Trackers (*tracker.Service) and Pages
// (*traffic.Service), wired in host/. compute.go is pure: the rules are
// tested on it without a store.
package impact
