package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// ErrClosed means the Manager was closed. An unknown model or destination
// is an *sdk.Error matching sdk.ErrUnknownModel or sdk.ErrUnknownDestination
// (errors.Is) whose message names what was asked for and what is
// configured.
var ErrClosed = errors.New("plugin manager closed")

// Manager owns the plugin processes and the model routes. Its methods are
// safe for concurrent use. Create it with NewManager; Close it last.
type Manager struct {
	log  hclog.Logger
	met  *metrics
	self func() (string, error)

	mu  sync.RWMutex
	cur *generation // nil once closed
	// old holds retired generations whose calls have not all returned.
	old     map[*generation]struct{}
	killing sync.WaitGroup
}

// generation is one configuration's plugin set and routes. Calls hold a
// reference; a retired generation is killed when its last call returns.
type generation struct {
	cfg          *config.Config
	procs        map[string]*process
	models       map[string]*route
	modelNames   []string
	destinations []string

	refs    atomic.Int64
	retired atomic.Bool
	once    sync.Once

	infoMu sync.Mutex
	infos  map[string]sdk.DestinationInfo
}

// NewManager prepares the plugins and model routes of cfg without starting
// any plugin. Plugin logs are relayed to log under the plugin's name and call
// metrics registered on reg (nil: not exported).
func NewManager(log hclog.Logger, cfg *config.Config, reg prometheus.Registerer) (*Manager, error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	m := &Manager{log: log.Named("plugins"), met: newMetrics(reg), self: os.Executable, old: map[*generation]struct{}{}}
	g, err := m.build(cfg)
	if err != nil {
		return nil, err
	}
	m.cur = g
	return m, nil
}

// build makes a generation from cfg; it starts nothing.
func (m *Manager) build(cfg *config.Config) (*generation, error) {
	g := &generation{cfg: cfg, procs: map[string]*process{}, models: map[string]*route{}, infos: map[string]sdk.DestinationInfo{}}
	self := ""
	for _, name := range slices.Sorted(maps.Keys(cfg.Plugins)) {
		p := cfg.Plugins[name]
		p.Name = name
		if p.Command == "" && self == "" {
			exe, err := m.self()
			if err != nil {
				return nil, fmt.Errorf("plugin %q is first-party and runs the herald executable, which cannot be found: %w", name, err)
			}
			self = exe
		}
		proc, err := newProcess(p, self, cfg, m.log.Named(name), m.met)
		if err != nil {
			return nil, err
		}
		g.procs[name] = proc
		if p.Kind == sdk.DestinationPluginName {
			g.destinations = append(g.destinations, name)
		}
	}
	states := map[string]*deploymentState{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Models)) {
		r := &route{model: name, cfg: cfg.Router, met: m.met, log: m.log}
		for _, d := range cfg.Models[name].Deployments {
			proc, ok := g.procs[d.Provider]
			if !ok || proc.kind != sdk.ProviderPluginName {
				return nil, fmt.Errorf("model %q: provider %q is not a configured provider plugin", name, d.Provider)
			}
			target := d.Model
			if target == "" {
				target = name
			}
			key := d.Provider + "\x00" + target
			if states[key] == nil {
				states[key] = &deploymentState{}
			}
			r.deployments = append(r.deployments, &deployment{provider: d.Provider, model: target, proc: proc, state: states[key]})
		}
		g.models[name] = r
		g.modelNames = append(g.modelNames, name)
	}
	return g, nil
}

// acquire returns the current generation with a reference taken.
func (m *Manager) acquire() (*generation, error) {
	m.mu.RLock()
	g := m.cur
	if g != nil {
		g.refs.Add(1)
	}
	m.mu.RUnlock()
	if g == nil {
		return nil, ErrClosed
	}
	return g, nil
}

// release drops a reference; the last one of a retired generation kills it.
func (m *Manager) release(g *generation) {
	if g.refs.Add(-1) == 0 && g.retired.Load() {
		m.retire(g)
	}
}

// retire kills g's processes once (in the background: the call that
// released it should not wait for process exits).
func (m *Manager) retire(g *generation) {
	g.once.Do(func() {
		m.killing.Add(1)
		go func() {
			defer m.killing.Done()
			g.kill()
			m.mu.Lock()
			delete(m.old, g)
			m.mu.Unlock()
		}()
	})
}

func (g *generation) kill() {
	var wg sync.WaitGroup
	for _, p := range g.procs {
		wg.Go(p.close)
	}
	wg.Wait()
}

// Reload switches to the plugins and routes of cfg (on SIGHUP). New calls use
// the new set at once; calls in flight finish on the old one, whose processes
// are killed when its last call returns. On error the old set stays.
func (m *Manager) Reload(cfg *config.Config) error {
	g, err := m.build(cfg)
	if err != nil {
		return err
	}
	m.mu.Lock()
	old := m.cur
	if old == nil {
		m.mu.Unlock()
		return ErrClosed
	}
	m.cur = g
	m.old[old] = struct{}{}
	m.mu.Unlock()
	old.retired.Store(true)
	if old.refs.Load() == 0 {
		m.retire(old)
	}
	m.log.Info("plugin configuration reloaded", "plugins", len(g.procs), "models", len(g.models))
	return nil
}

// Close kills every plugin process, including those of retired generations
// with calls still in flight, and waits for them to exit. Later calls fail
// with ErrClosed.
func (m *Manager) Close() {
	m.mu.Lock()
	gens := make([]*generation, 0, len(m.old)+1)
	if m.cur != nil {
		gens = append(gens, m.cur)
	}
	for g := range m.old {
		gens = append(gens, g)
	}
	m.cur = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, g := range gens {
		wg.Go(g.kill)
	}
	wg.Wait()
	m.killing.Wait()
}

// Models returns the configured model names and aliases, sorted.
func (m *Manager) Models() []string {
	g, err := m.acquire()
	if err != nil {
		return nil
	}
	defer m.release(g)
	return slices.Clone(g.modelNames)
}

// Destinations returns the names of the configured destination plugins,
// sorted.
func (m *Manager) Destinations() []string {
	g, err := m.acquire()
	if err != nil {
		return nil
	}
	defer m.release(g)
	return slices.Clone(g.destinations)
}

// GenerateText answers req with the model (or alias) model, trying its
// deployments in order. A failure is an *sdk.Error (errors.As), or matches
// sdk.ErrUnknownModel.
func (m *Manager) GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.TextResponse{}, err
	}
	defer m.release(g)
	r, err := g.route(model)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	return routeCall(ctx, r, always, func(ctx context.Context, d *deployment) (sdk.TextResponse, error) {
		req := req
		req.Model = d.model
		return call(ctx, d.proc, methodGenerateText, always, func(ctx context.Context, h *handle) (sdk.TextResponse, error) {
			return h.provider.GenerateText(ctx, req)
		})
	})
}

// Chat streams one assistant turn from the model (or alias) model into
// stream. A deployment that fails before sending anything is retried or
// replaced as for GenerateText; once an event reached stream, a failure is
// returned as is.
func (m *Manager) Chat(ctx context.Context, model string, req sdk.ChatRequest, stream sdk.ChatStream) error {
	g, err := m.acquire()
	if err != nil {
		return err
	}
	defer m.release(g)
	r, err := g.route(model)
	if err != nil {
		return err
	}
	sent := false
	untouched := func() bool { return !sent }
	out := sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		sent = true
		return stream.Send(ev)
	})
	_, err = routeCall(ctx, r, untouched, func(ctx context.Context, d *deployment) (struct{}, error) {
		req := req
		req.Model = d.model
		return call(ctx, d.proc, methodChat, untouched, func(ctx context.Context, h *handle) (struct{}, error) {
			return struct{}{}, h.provider.Chat(ctx, req, out)
		})
	})
	return err
}

// GenerateImage creates one image with the model (or alias) model.
func (m *Manager) GenerateImage(ctx context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.ImageResponse{}, err
	}
	defer m.release(g)
	r, err := g.route(model)
	if err != nil {
		return sdk.ImageResponse{}, err
	}
	return routeCall(ctx, r, always, func(ctx context.Context, d *deployment) (sdk.ImageResponse, error) {
		req := req
		req.Model = d.model
		return call(ctx, d.proc, methodGenerateImage, always, func(ctx context.Context, h *handle) (sdk.ImageResponse, error) {
			return h.provider.GenerateImage(ctx, req)
		})
	})
}

// DestinationInfo describes the destination plugin name. The answer is
// cached until the next Reload.
func (m *Manager) DestinationInfo(ctx context.Context, name string) (sdk.DestinationInfo, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.DestinationInfo{}, err
	}
	defer m.release(g)
	return g.destinationInfo(ctx, name)
}

func (g *generation) destinationInfo(ctx context.Context, name string) (sdk.DestinationInfo, error) {
	p, err := g.destination(name)
	if err != nil {
		return sdk.DestinationInfo{}, err
	}
	g.infoMu.Lock()
	info, ok := g.infos[name]
	g.infoMu.Unlock()
	if ok {
		return info, nil
	}
	info, err = call(ctx, p, methodInfo, always, func(ctx context.Context, h *handle) (sdk.DestinationInfo, error) {
		return h.destination.Info(ctx)
	})
	if err != nil {
		return sdk.DestinationInfo{}, err
	}
	g.infoMu.Lock()
	g.infos[name] = info
	g.infoMu.Unlock()
	return info, nil
}

// Validate asks the destination plugin name to check a payload without
// calling its remote.
func (m *Manager) Validate(ctx context.Context, name string, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	g, err := m.acquire()
	if err != nil {
		return nil, err
	}
	defer m.release(g)
	p, err := g.destination(name)
	if err != nil {
		return nil, err
	}
	return call(ctx, p, methodValidate, always, func(ctx context.Context, h *handle) ([]sdk.Problem, error) {
		return h.destination.Validate(ctx, req)
	})
}

// Export asks the destination plugin name to publish one schedule. A crash
// during the call is repeated once on a restarted process only when the
// plugin's Info declares it Idempotent (its remote deduplicates on the
// idempotency key); otherwise it is reported as a CodeUnavailable
// *sdk.Error that is not retryable, since the remote may have published.
func (m *Manager) Export(ctx context.Context, name string, req sdk.ExportRequest) (sdk.ExportResult, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.ExportResult{}, err
	}
	defer m.release(g)
	p, err := g.destination(name)
	if err != nil {
		return sdk.ExportResult{}, err
	}
	repeatable := func() bool {
		// Info is cached per generation; a plugin that cannot describe
		// itself is not repeated.
		info, err := g.destinationInfo(ctx, name)
		return err == nil && info.Idempotent
	}
	return call(ctx, p, methodExport, repeatable, func(ctx context.Context, h *handle) (sdk.ExportResult, error) {
		return h.destination.Export(ctx, req)
	})
}

// CheckConnection asks the destination plugin name to verify credentials
// with its remote. A plugin without the capability answers a
// CodeUnimplemented *sdk.Error.
func (m *Manager) CheckConnection(ctx context.Context, name string, req sdk.CheckConnectionRequest) (sdk.CheckConnectionResult, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.CheckConnectionResult{}, err
	}
	defer m.release(g)
	p, err := g.destination(name)
	if err != nil {
		return sdk.CheckConnectionResult{}, err
	}
	return call(ctx, p, methodCheckConnection, always, func(ctx context.Context, h *handle) (sdk.CheckConnectionResult, error) {
		return h.destination.CheckConnection(ctx, req)
	})
}

// Check starts the plugin name (if it is not running) and returns a one-line
// description of what its Info answers; `herald plugins --check` prints it.
func (m *Manager) Check(ctx context.Context, name string) (string, error) {
	g, err := m.acquire()
	if err != nil {
		return "", err
	}
	defer m.release(g)
	p, ok := g.procs[name]
	if !ok {
		return "", fmt.Errorf("unknown plugin %q", name)
	}
	return call(ctx, p, methodInfo, always, func(ctx context.Context, h *handle) (string, error) {
		if h.provider != nil {
			info, err := h.provider.Info(ctx)
			if err != nil {
				return "", err
			}
			ids := make([]string, len(info.Models))
			for i, mo := range info.Models {
				ids[i] = mo.ID
			}
			return fmt.Sprintf("provider %s (%s): models [%s]", info.Name, info.DisplayName, strings.Join(ids, ", ")), nil
		}
		if h.analytics != nil {
			info, err := h.analytics.Info(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("analytics %s (%s): oauth: %v; keys [%s]", info.Name, info.DisplayName, info.OAuth, strings.Join(info.KeyFields, ", ")), nil
		}
		info, err := h.destination.Info(ctx)
		if err != nil {
			return "", err
		}
		creds := make([]string, len(info.Credentials))
		for i, f := range info.Credentials {
			creds[i] = f.Name
		}
		return fmt.Sprintf("destination %s (%s): required keys [%s]; credentials [%s]; can delete: %v",
			info.Name, info.DisplayName, strings.Join(info.RequiredKeys, ", "), strings.Join(creds, ", "), info.CanDelete), nil
	})
}

func (g *generation) route(model string) (*route, error) {
	r, ok := g.models[model]
	if !ok {
		return nil, &sdk.Error{Code: sdk.CodeUnknownModel, Message: fmt.Sprintf("unknown model %q (configured: %s)", model, strings.Join(g.modelNames, ", "))}
	}
	return r, nil
}

func (g *generation) destination(name string) (*process, error) {
	p, ok := g.procs[name]
	if !ok || p.kind != sdk.DestinationPluginName {
		return nil, &sdk.Error{Code: sdk.CodeUnknownDestination, Message: fmt.Sprintf("unknown destination %q (configured: %s)", name, strings.Join(g.destinations, ", "))}
	}
	return p, nil
}

func always() bool { return true }
