// Package api is Herald's transport: it serves every herald.api.v1 service
// as Connect, gRPC and gRPC-Web (with reflection and health) and, through a
// thin REST adapter, at the exact paths, statuses and JSON shapes of the documented API (docs/API.md).
// Both faces call the same methods in the area packages; routes.go lists
// every route. Business logic never lives here.
//
// `routes.go` lists every route of both faces. REST routes are `rest(s,
// policy, status, area.Method)`, or `restStatus(s, policy, rule,
// area.Method, …)` where the success status depends on the answer: the rule
// is written beside the route from the response's fields (`queuedOr`: 202
// when the answer holds a job id; `createdOr`: 201 when the proto's
// `created` is true, else the existing resource's 200), never from a message
// or a header. `api.Deps` holds the generated `apiv1connect` handler
// interfaces (plus `ChatHandler` and `DestinationsHandler`, which join two),
// so api imports no area's types (only `traffic`'s script handler and beacon
// cap). The adapter authenticates, decodes body + query + path values into
// the proto request (field JSON names = wildcard and parameter names), calls
// the same method the Connect face serves, and renders the response with
// package `jsonenc` (the API's JSON, shared with `mcp`: int64 as numbers,
// unset optional fields as null). Errors: `apierr` errors carry a Connect
// code; `status.go` is the one code→HTTP table. The Connect face gets the
// same auth through an interceptor; gRPC health and reflection cover every
// mounted service.
package api
