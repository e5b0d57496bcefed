// Package pluginhost is the host side of Herald's plugins: the Manager starts
// the configured provider and destination plugins as go-plugin subprocesses
// (lazily, on their first call), restarts them when they crash, and routes
// model names to provider deployments with retries, fallbacks and cooldowns.
//
// Every plugin runs out of process, first-party ones too: a plugin block
// without a command runs the host's own executable as `herald plugin NAME`.
// Calls go over gRPC with AutoMTLS; a pinned SHA-256 is checked before each
// start. SIGHUP (Manager.Reload) builds a new generation of plugins from the
// new config: new calls use it, calls in flight finish on the old one, whose
// processes are killed when its last call returns.
//
// The plugin `Manager` and model router. Plugins come from config `plugin`
// blocks; a block without `command` is first-party, run as the host's own
// executable (`herald plugin NAME`). Each starts lazily on its first call
// through go-plugin (gRPC only, AutoMTLS, `SkipHostEnv` with the env built
// as host env minus host secrets, then `HERALD_ALLOWED_PRIVATE_CIDRS`, then
// the block's `env`; a pinned `sha256` checked before every start; the
// block's `settings`, evaluated by config with `env()`, sent to `Configure`
// before the process serves any call, `configure.go`). A process that exited
// is restarted on the next call (no wait the first time, then a backoff from
// 250 ms to 30 s). An idempotent call in flight when its process died is
// repeated once; Export is repeated only for destinations whose Info
// declares `Idempotent`. Plugins run in their own process group with a
// parent-death signal and exit with their host. Calls carry the caller's
// deadline; the default `plugin_call_timeout` is a host-side cancel. Config
// lives in *generations*: `Reload` (SIGHUP in `serve`) swaps in a new one,
// and a retired generation's processes are killed when its last call
// returns. `routeCall` tries a model's deployments in order, then again over
// `model_retries` rounds. Transient errors (429/5xx) fall back and return
// after the backoff and the Retry-After, up to `model_max_retry_after`.
// Deployment errors (unconfigured, unauthenticated) fall back and do not
// return. Request errors end the call. `model_allowed_fails` failures in a
// row put a deployment in `model_cooldown`, skipped unless it is the last
// one. Errors: `sdk.ErrUnknownModel`/`sdk.ErrUnknownDestination` (codes),
// and otherwise the plugin's `*sdk.Error` (unwrap with `errors.As`). Metrics
// `herald_plugin_*`, `herald_model_*`.
package pluginhost
