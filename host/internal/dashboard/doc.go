// Package dashboard is Herald's web face for people: a few static pages
// (HTML, CSS, plain ES modules and a vendored chart library) embedded in
// the binary and served by the host at / and /dashboard/. The pages sign
// in with an API key kept in the browser session and read the same REST
// API any client reads; this package serves files only and holds no rule.
//
// The web dashboard: static files (HTML, CSS, plain ES modules, vendored
// uPlot) embedded with `go:embed` and served at `/` and `/dashboard/` under
// a self-only CSP, gzip-compressed once at start. Invariant: it holds no
// rule and no route of its own; its pages call the public REST API with the
// `api-key` header, like any client. Pages are modules listed in one table
// (`static/app.js`) and loaded on first use.
package dashboard
