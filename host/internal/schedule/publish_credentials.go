package schedule

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"

	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/events/catalog"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// credentials loads what the export needs, failing (not retrying) when it
// is gone: a deleted webhook or connection does not come back by itself.
func (p *Publisher) credentials(ctx context.Context, sc store.Schedule) (map[string]string, error) {
	creds, err := p.deps.Credentials.Credentials(ctx, destination.Export{Workspace: sc.WorkspaceID, Destination: sc.ExportTo, WebhookID: sc.WebhookID})
	switch {
	case errors.Is(err, destination.ErrNoSecretKey):
		return nil, sdk.Errorf(sdk.CodeUnconfigured, "%s", destination.ErrNoSecretKey.Error())
	case errors.Is(err, destination.ErrNoWebhook):
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "the schedule names no webhook")
	case errors.Is(err, store.ErrNotFound) && sc.ExportTo == WebhookDestination:
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "webhook %s was deleted", *sc.WebhookID)
	case errors.Is(err, store.ErrNotFound):
		return nil, sdk.Errorf(sdk.CodeInvalidArgument, "this workspace is not connected to %s: PUT /v1/destinations/%s/connection", sc.ExportTo, sc.ExportTo)
	}
	return creds, err
}

// recordRefusal marks the workspace's connection to the schedule's
// destination as failed when an export was refused with 401/403, so GET
// /v1/destinations shows which connection to fix. Webhooks have no
// connection.
func (p *Publisher) recordRefusal(ctx context.Context, sc store.Schedule, exportErr error) {
	code := sdk.ErrorCode(exportErr)
	if sc.ExportTo == WebhookDestination || (code != sdk.CodeUnauthenticated && code != sdk.CodePermissionDenied) {
		return
	}
	now := p.deps.Store.Now()
	msg := sdk.AsError(exportErr).Message
	event := catalog.ConnectionFailure(sc.WorkspaceID, catalog.Connection{Destination: sc.ExportTo, Message: msg})
	err := destinationstore.New(p.deps.Store).SetConnectionCheck(ctx, sc.WorkspaceID, sc.ExportTo, destinationstore.ConnectionCheck{At: &now, Result: destination.CheckFailed, Message: msg}, &event)
	if err != nil {
		p.deps.Logger.Warn("recording a refused connection failed", "destination", sc.ExportTo, "error", err)
	}
}
