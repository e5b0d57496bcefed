package pluginhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// Restart backoff: the first restart after a crash is immediate, so that the
// retried call lands on a fresh process; further ones without a successful
// call in between wait longer, up to maxRestartBackoff.
const (
	restartBackoff    = 250 * time.Millisecond
	maxRestartBackoff = 30 * time.Second
	startTimeout      = 30 * time.Second
	// exitWait bounds how long a failed call waits for go-plugin to notice
	// that the process died (its transport error usually arrives first).
	exitWait = 500 * time.Millisecond
)

// hostSecrets are the host's own settings that no plugin needs; they are
// removed from the environment plugins inherit.
var hostSecrets = []string{"HERALD_SECRET_KEY", "HERALD_JWT_SECRET", "HERALD_DATABASE_URL", "HERALD_REDIS_URL"}

// ErrChecksumMismatch is matched (errors.Is) by a *ChecksumError.
var ErrChecksumMismatch = errors.New("plugin checksum mismatch")

// ChecksumError reports a plugin executable whose SHA-256 differs from the
// one pinned in config; the plugin is not started.
type ChecksumError struct {
	Plugin, Path, Want, Got string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("plugin %q: refusing to start %s: sha256 is %s, config pins %s", e.Plugin, e.Path, e.Got, e.Want)
}

// Is reports whether target is ErrChecksumMismatch.
func (e *ChecksumError) Is(target error) bool { return target == ErrChecksumMismatch }

// process is one configured plugin of one generation: the executable, how
// to start it, and the running go-plugin client, if any. It starts lazily,
// on the first call, and again after a crash.
type process struct {
	name    string
	kind    string // sdk.ProviderPluginName, sdk.DestinationPluginName or sdk.AnalyticsPluginName
	path    string
	args    []string
	env     []string
	sha256  string
	timeout time.Duration
	// settings go to the plugin's Configure after every start; values are
	// secrets and never logged (config.Settings prints keys only).
	settings config.Settings
	log      hclog.Logger
	met      *processMetrics

	live   atomic.Pointer[handle]
	closed atomic.Bool
	done   chan struct{} // closed by close, so a backoff wait ends at once
	// sem serialises starts and restarts; the fields below it are guarded by it.
	sem       chan struct{}
	failures  int // crashes and failed starts since the last healthy process
	notBefore time.Time
	lastErr   error
}

// pluginClient is the part of *plugin.Client a handle uses.
type pluginClient interface {
	Exited() bool
	Kill()
}

// handle is one running plugin process.
type handle struct {
	client      pluginClient
	pid         int
	provider    *sdk.ProviderClient
	destination *sdk.DestinationClient
	analytics   *sdk.AnalyticsClient
	// healthy is set once a call succeeded on this process; a crash of a
	// healthy process restarts without backoff.
	healthy atomic.Bool
}

// newProcess prepares (but does not start) the plugin p. self is the host's
// own executable, which serves first-party plugins as `herald plugin NAME`.
func newProcess(p config.Plugin, self string, cfg *config.Config, log hclog.Logger, met *metrics) (*process, error) {
	proc := &process{
		name:     p.Name,
		kind:     p.Kind,
		sha256:   strings.ToLower(p.SHA256),
		timeout:  cfg.PluginCallTimeout,
		settings: p.Settings,
		log:      log,
		met:      met.forPlugin(p.Name),
		sem:      make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	if p.Command == "" {
		proc.path, proc.args = self, []string{"plugin", p.Name}
	} else {
		path, err := exec.LookPath(p.Command)
		if err != nil {
			return nil, fmt.Errorf("plugin %q: command %q: %w", p.Name, p.Command, err)
		}
		proc.path, proc.args = path, p.Args
	}
	proc.env = pluginEnv(os.Environ(), cfg, p.Env)
	return proc, nil
}

// pluginEnv builds a plugin's environment: the host's (without the host's
// own secrets), then HERALD_ALLOWED_PRIVATE_CIDRS from config, then the
// plugin block's env, later entries winning. go-plugin would append the
// host environment after the block's and so override it; the manager sets
// SkipHostEnv and passes this instead.
func pluginEnv(host []string, cfg *config.Config, block map[string]string) []string {
	env := make([]string, 0, len(host)+len(block)+2)
	hasLevel := false
	for _, kv := range host {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(hostSecrets, k) || k == sdk.AllowedPrivateCIDRsEnv {
			continue
		}
		hasLevel = hasLevel || k == sdk.LogLevelEnv
		env = append(env, kv)
	}
	if !hasLevel && cfg.LogLevel != "" {
		env = append(env, sdk.LogLevelEnv+"="+cfg.LogLevel)
	}
	cidrs := make([]string, len(cfg.AllowedPrivateCIDRs))
	for i, c := range cfg.AllowedPrivateCIDRs {
		cidrs[i] = c.String()
	}
	env = append(env, sdk.AllowedPrivateCIDRsEnv+"="+strings.Join(cidrs, ","))
	keys := make([]string, 0, len(block))
	for k := range block {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+block[k])
	}
	return env
}

// fileSHA256 returns the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// acquire returns the running process, starting or restarting it first if
// needed. Restarts after repeated failures wait a backoff; a caller whose
// deadline comes sooner gets the last failure at once.
func (p *process) acquire(ctx context.Context) (*handle, error) {
	if h := p.live.Load(); h != nil && !h.client.Exited() {
		return h, nil
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, sdk.AsError(ctx.Err())
	}
	defer func() { <-p.sem }()
	if p.closed.Load() {
		return nil, fmt.Errorf("plugin %q: %w", p.name, ErrClosed)
	}
	h := p.live.Load()
	if h != nil {
		if !h.client.Exited() {
			return h, nil
		}
		p.live.Store(nil)
		h.client.Kill() // the process is gone; this only releases go-plugin's resources
		if h.healthy.Load() {
			p.failures = 0
		}
		p.failures++
		p.notBefore = time.Now().Add(backoff(p.failures))
		p.lastErr = &sdk.Error{Code: sdk.CodeUnavailable, Message: fmt.Sprintf("plugin %s exited", p.name)}
		p.met.restarts.Inc()
		p.log.Warn("plugin process exited; restarting", "restarts_in_a_row", p.failures, "backoff", backoff(p.failures).String()) // a string: JSON logs would print nanoseconds
	}
	if wait := time.Until(p.notBefore); wait > 0 {
		if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
			return nil, fmt.Errorf("plugin %q is backing off for %s after failing: %w", p.name, wait.Round(time.Millisecond), p.lastErr)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.done:
			t.Stop()
			return nil, fmt.Errorf("plugin %q: %w", p.name, ErrClosed)
		case <-ctx.Done():
			t.Stop()
			return nil, sdk.AsError(ctx.Err())
		}
	}
	h, err := p.start()
	if err != nil {
		p.failures++
		p.notBefore = time.Now().Add(backoff(p.failures))
		p.lastErr = err
		p.met.starts.WithLabelValues("error").Inc()
		p.log.Error("plugin failed to start", "error", err)
		return nil, err
	}
	p.met.starts.WithLabelValues("ok").Inc()
	p.live.Store(h)
	return h, nil
}

// backoff is the wait before the n-th start in a row without a healthy
// process: none for the first restart, then doubling from restartBackoff.
func backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := restartBackoff
	for i := 2; i < n && d < maxRestartBackoff; i++ {
		d *= 2
	}
	return min(d, maxRestartBackoff)
}

// start verifies the checksum and launches the executable through go-plugin.
func (p *process) start() (*handle, error) {
	var secure *plugin.SecureConfig
	if p.sha256 != "" {
		got, err := fileSHA256(p.path)
		if err != nil {
			return nil, fmt.Errorf("plugin %q: checksum of %s: %w", p.name, p.path, err)
		}
		if got != p.sha256 {
			return nil, &ChecksumError{Plugin: p.name, Path: p.path, Want: p.sha256, Got: got}
		}
		sum, _ := hex.DecodeString(p.sha256)
		// go-plugin checks again right before exec.
		secure = &plugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = p.env
	cmd.SysProcAttr = sysProcAttr()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.VersionedPlugins(),
		Cmd:              cmd,
		SkipHostEnv:      true,
		SecureConfig:     secure,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     startTimeout,
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Logger:           p.log,
	})
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			got, _ := fileSHA256(p.path)
			return nil, &ChecksumError{Plugin: p.name, Path: p.path, Want: p.sha256, Got: got}
		}
		return nil, fmt.Errorf("start plugin %q (%s): %w", p.name, p.path, err)
	}
	raw, err := rpc.Dispense(p.kind)
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("plugin %q does not serve a %s: %w", p.name, p.kind, err)
	}
	h := &handle{client: client}
	if rc := client.ReattachConfig(); rc != nil {
		h.pid = rc.Pid
	}
	switch c := raw.(type) {
	case *sdk.ProviderClient:
		h.provider = c
	case *sdk.DestinationClient:
		h.destination = c
	case *sdk.AnalyticsClient:
		h.analytics = c
	default:
		client.Kill()
		return nil, fmt.Errorf("plugin %q: unexpected client %T", p.name, raw)
	}
	if err := p.configure(h); err != nil {
		client.Kill()
		return nil, err
	}
	p.log.Debug("plugin started", "path", p.path, "settings", p.settings.Keys())
	return h, nil
}

// close kills the running process, if any, and refuses later starts.
func (p *process) close() {
	if p.closed.Swap(true) {
		return
	}
	close(p.done)
	p.sem <- struct{}{}
	defer func() { <-p.sem }()
	if h := p.live.Swap(nil); h != nil {
		h.client.Kill()
	}
}

// pid returns the running process's id, or 0.
func (p *process) pid() int {
	if h := p.live.Load(); h != nil {
		return h.pid
	}
	return 0
}

// errCallTimeout is the cause of a call context canceled by the default
// call timeout.
var errCallTimeout = errors.New("plugin call timeout")

// call runs fn on the running process and records its metrics. When the
// process dies during the call, the next call restarts it, and this one is
// repeated once on the new process if idempotent() says it may be (the
// Vault pattern). Each attempt gets the default call timeout unless the
// caller's deadline is sooner; waiting for a start does not count.
func call[T any](ctx context.Context, p *process, m method, idempotent func() bool, fn func(context.Context, *handle) (T, error)) (T, error) {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		h, err := p.acquire(ctx)
		if err != nil {
			var zero T
			p.met.observe(m, start, "start_failed")
			return zero, err
		}
		cctx, stop := p.callContext(ctx)
		v, err := fn(cctx, h)
		timedOut := stop()
		if err == nil {
			if !h.healthy.Load() {
				h.healthy.Store(true)
			}
			p.met.observeOK(m, start)
			return v, nil
		}
		if timedOut {
			p.met.observe(m, start, "timeout")
			return v, &sdk.Error{Code: sdk.CodeUnavailable, Retryable: true, Message: fmt.Sprintf("plugin %s did not answer %s within %s (plugin_call_timeout)", p.name, m, p.timeout)}
		}
		if ctx.Err() == nil && transportFailure(err) && exited(h) {
			if attempt == 0 && idempotent() {
				p.log.Warn("plugin process exited during a call; retrying it once", "method", m.String())
				continue
			}
			p.met.observe(m, start, "crashed")
			return v, &sdk.Error{Code: sdk.CodeUnavailable, Message: fmt.Sprintf("plugin %s exited during %s; the call was not repeated", p.name, m)}
		}
		p.met.observe(m, start, outcome(err))
		return v, err
	}
}

func noTimeout() bool { return false }

// callContext returns the context of one plugin call and a stop function
// that releases it and reports whether the default call timeout ended it.
//
// The timeout cancels the call from the host (gRPC cancels the plugin's
// context) instead of setting a context deadline: a deadline costs a
// grpc-timeout header and a timer on both sides of every call, about 5% of
// a local round trip. A caller's own deadline is sent as usual.
func (p *process) callContext(ctx context.Context) (context.Context, func() bool) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= p.timeout {
		return ctx, noTimeout
	}
	cctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(p.timeout, func() { cancel(errCallTimeout) })
	return cctx, func() bool {
		t.Stop()
		cancel(nil)
		return errors.Is(context.Cause(cctx), errCallTimeout)
	}
}

// transportFailure reports whether err came from the gRPC transport rather
// than from the plugin: errors the plugin sends carry no local cause.
func transportFailure(err error) bool {
	var e *sdk.Error
	if !errors.As(err, &e) {
		return false
	}
	cause := errors.Unwrap(e)
	if cause == nil {
		return false
	}
	switch status.Code(cause) {
	case codes.Unavailable, codes.Canceled, codes.Internal, codes.Unknown:
		return true
	}
	return false
}

// exited waits briefly for go-plugin to notice that h's process died.
func exited(h *handle) bool {
	deadline := time.Now().Add(exitWait)
	for {
		if h.client.Exited() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// outcome is the metrics label of a failed call: the sdk error code.
func outcome(err error) string {
	if c := sdk.ErrorCode(err); c != "" {
		return string(c)
	}
	return string(sdk.CodeInternal)
}
