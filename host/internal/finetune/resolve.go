package finetune

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"strings"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Prefix starts the model name of a workspace's fine-tuned model:
// ft:<workspace name>. Workspace names are unique, and the name is what the
// operator gave `herald finetune start --workspace` and what the assistant
// context shows, so callers can write it without knowing internal ids.
const Prefix = "ft:"

// ModelName is the model name that routes to workspace's fine-tuned model.
func ModelName(workspace string) string { return Prefix + workspace }

// Direct calls a provider plugin with the provider's own model name,
// outside the configured routes (*pluginhost.Manager implements it).
type Direct interface {
	GenerateTextOn(ctx context.Context, provider string, req sdk.TextRequest) (sdk.TextResponse, error)
	ChatOn(ctx context.Context, provider string, req sdk.ChatRequest, stream sdk.ChatStream) error
}

// Target is where a fine-tuned model name leads: a provider plugin and the
// model id the provider gave the fine-tuned model.
type Target struct {
	Provider, Model string
}

// Resolver routes ft:<workspace name> to the workspace's newest succeeded
// fine-tuning job. A nil *Resolver resolves nothing, so the paths that use
// it need no check.
type Resolver struct {
	store  *store.Store
	direct Direct
}

// NewResolver returns a Resolver reading jobs from st and calling direct.
func NewResolver(st *store.Store, direct Direct) *Resolver {
	return &Resolver{store: st, direct: direct}
}

// Resolve reports where model leads for the workspace: ok is false when the
// model is not ft:<this workspace's name> or the workspace has no finished
// fine-tuned model, so that the caller answers as for any unknown model.
// Another workspace's ft: name is therefore unknown here.
func (r *Resolver) Resolve(ctx context.Context, workspaceID, model string) (t Target, ok bool, err error) {
	name, tuned := strings.CutPrefix(model, Prefix)
	if r == nil || !tuned || name == "" {
		return Target{}, false, nil
	}
	m, err := finetunestore.New(r.store).LatestTunedModel(ctx, workspaceID)
	if errors.Is(err, store.ErrNotFound) {
		return Target{}, false, nil
	}
	if err != nil {
		return Target{}, false, err
	}
	if m.WorkspaceName != name {
		return Target{}, false, nil
	}
	return Target{Provider: m.Provider, Model: m.Model}, true, nil
}

// GenerateText answers req with the fine-tuned model t.
func (r *Resolver) GenerateText(ctx context.Context, t Target, req sdk.TextRequest) (sdk.TextResponse, error) {
	req.Model = t.Model
	return r.direct.GenerateTextOn(ctx, t.Provider, req)
}

// Chat streams one assistant turn of the fine-tuned model t.
func (r *Resolver) Chat(ctx context.Context, t Target, req sdk.ChatRequest, stream sdk.ChatStream) error {
	req.Model = t.Model
	return r.direct.ChatOn(ctx, t.Provider, req, stream)
}
