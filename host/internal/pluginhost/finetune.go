package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// FineTuneStart is a job StartFineTune started: the provider plugin that
// runs it and the base model under the provider's own name.
type FineTuneStart struct {
	Provider  string
	BaseModel string
	Job       sdk.FineTuneJob
}

// StartFineTune uploads req.TrainingFile and starts a fine-tuning job of the
// model (or alias) model. The route's deployments are tried in order, but
// only past those whose plugin cannot fine-tune (Unimplemented): starting a
// job is not idempotent, so a failure is never retried elsewhere.
func (m *Manager) StartFineTune(ctx context.Context, model string, req sdk.FineTuneRequest) (FineTuneStart, error) {
	g, err := m.acquire()
	if err != nil {
		return FineTuneStart{}, err
	}
	defer m.release(g)
	r, err := g.route(model)
	if err != nil {
		return FineTuneStart{}, err
	}
	for _, d := range r.deployments {
		req := req
		req.BaseModel = d.model
		job, err := call(ctx, d.proc, methodStartFineTune, never, func(ctx context.Context, h *handle) (sdk.FineTuneJob, error) {
			return h.provider.StartFineTune(ctx, req)
		})
		if sdk.ErrorCode(err) == sdk.CodeUnimplemented {
			continue
		}
		if err != nil {
			return FineTuneStart{}, r.wrap(err)
		}
		return FineTuneStart{Provider: d.provider, BaseModel: d.model, Job: job}, nil
	}
	return FineTuneStart{}, &sdk.Error{Code: sdk.CodeUnimplemented, Message: fmt.Sprintf("model %q: no deployment's provider can fine-tune", model)}
}

// GetFineTune asks the provider plugin provider for the state of its job id.
func (m *Manager) GetFineTune(ctx context.Context, provider, id string) (sdk.FineTuneJob, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.FineTuneJob{}, err
	}
	defer m.release(g)
	p, err := g.provider(provider)
	if err != nil {
		return sdk.FineTuneJob{}, err
	}
	return call(ctx, p, methodGetFineTune, always, func(ctx context.Context, h *handle) (sdk.FineTuneJob, error) {
		return h.provider.GetFineTune(ctx, id)
	})
}

// GenerateTextOn answers req with the provider plugin provider and the
// provider's model req.Model, outside the configured routes (no fallback,
// no retry): the way to a model the operator does not route, such as a
// workspace's fine-tuned model.
func (m *Manager) GenerateTextOn(ctx context.Context, provider string, req sdk.TextRequest) (sdk.TextResponse, error) {
	g, err := m.acquire()
	if err != nil {
		return sdk.TextResponse{}, err
	}
	defer m.release(g)
	p, err := g.provider(provider)
	if err != nil {
		return sdk.TextResponse{}, err
	}
	return call(ctx, p, methodGenerateText, always, func(ctx context.Context, h *handle) (sdk.TextResponse, error) {
		return h.provider.GenerateText(ctx, req)
	})
}

// ChatOn streams one assistant turn from the provider plugin provider and
// its model req.Model, outside the configured routes, as GenerateTextOn.
func (m *Manager) ChatOn(ctx context.Context, provider string, req sdk.ChatRequest, stream sdk.ChatStream) error {
	g, err := m.acquire()
	if err != nil {
		return err
	}
	defer m.release(g)
	p, err := g.provider(provider)
	if err != nil {
		return err
	}
	sent := false
	out := sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		sent = true
		return stream.Send(ev)
	})
	_, err = call(ctx, p, methodChat, func() bool { return !sent }, func(ctx context.Context, h *handle) (struct{}, error) {
		return struct{}{}, h.provider.Chat(ctx, req, out)
	})
	return err
}

// ErrUnknownProvider matches (errors.Is) the error for a provider name that
// is not a configured provider plugin.
var ErrUnknownProvider = errors.New("unknown provider")

func (g *generation) provider(name string) (*process, error) {
	p, ok := g.procs[name]
	if !ok || p.kind != sdk.ProviderPluginName {
		var names []string
		for _, n := range slices.Sorted(maps.Keys(g.procs)) {
			if g.procs[n].kind == sdk.ProviderPluginName {
				names = append(names, n)
			}
		}
		return nil, fmt.Errorf("%w %q (configured: %s)", ErrUnknownProvider, name, strings.Join(names, ", "))
	}
	return p, nil
}

// never is the idempotent() of calls that must not be repeated.
func never() bool { return false }
