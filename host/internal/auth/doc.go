// Package auth verifies who calls the API: API keys (header api-key) and
// session JWTs (HS256, Authorization: Bearer), and carries the resulting
// Principal in the request context. Every resource query is scoped by the
// Principal's workspace.
//
// API keys (`hk_`, SHA-256 at rest, constant-time compare, 5 s cache),
// session JWTs (HS256, `sub` + `wsp` + `exp`), the Principal in the context,
// route policies.
package auth
