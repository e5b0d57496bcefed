package destination

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// TestDeliveryPrefix starts the webhook-id of test deliveries.
const TestDeliveryPrefix = "test_"

// TestWebhook sends a signed test delivery to the saved webhook id through
// the webhook plugin, exactly as a post would go (same signature, headers
// and address guard), with content marked "test": true. It returns the
// delivery's webhook-id. A receiver's refusal or an unreachable address is
// an error carrying the plugin's message.
func (s *Service) TestWebhook(ctx context.Context, p auth.Principal, id string) (string, error) {
	if err := s.allow(p); err != nil {
		return "", err
	}
	creds, err := s.webhookCredentials(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", apierr.NotFound("webhook %q not found", id)
	} else if err != nil {
		return "", err
	}
	delivery := TestDeliveryPrefix + store.NewID()
	_, err = s.dests.Export(ctx, WebhookDestination, sdk.ExportRequest{
		ScheduleID: delivery, IdempotencyKey: delivery, Credentials: creds,
		Content: sdk.Content{"title": "Herald test delivery", "text": "This is a test delivery from Herald; ignore it.", "test": true},
	})
	if err != nil {
		return "", PluginError(WebhookDestination, "deliver", err)
	}
	return delivery, nil
}
