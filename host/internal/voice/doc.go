// Package voice manages brand voices: stored writing-style profiles made
// from text, a website or a file, scoped to a team or to one user. It
// implements herald.api.v1.BrandVoiceService; the REST face reaches the same
// methods through routes.go.
//
// Brand voices: validation (`validate()` on `NewText`, `NewWebsite`,
// `NewFile`, `Update`), scope rules, soft delete, website and file voices
// (`sources.go`, queued on contentQueue: `RunCreate`/`RunRefresh`, rows of
// `host/jobs.go`) and their refresh loop (`Start`/`Stop`); `voice.New(Deps)`
// (store, quota, fetcher, queue, profile model); a profile written by the
// model costs one AI credit through quota's kit (`credits.go`); the service
// returns `voice.Voice`; `handler.go` implements `BrandVoiceService`.
package voice
