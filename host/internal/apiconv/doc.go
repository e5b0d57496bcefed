// Package apiconv holds the few conversions every area's Connect handler
// shares, so that each is written once: epoch milliseconds to a proto
// Timestamp and the message of a queued job.
//
// The conversions every area's handler shares (epoch ms → Timestamp, the
// queued-job message). `host/internal/jsonenc` — the API's JSON for proto
// messages, written by the REST face and the MCP face alike.
// `host/internal/api/apitest` — a test's API server (`Start`) and client
// (`Do`, `Send`, `Want`, `WantError`, `Data`), used by every package's API
// tests.
package apiconv
