// Package destination is where posts go: each workspace's connections to
// the destination plugins (GET /v1/destinations, PUT and DELETE
// /v1/destinations/{name}/connection, in destinations.go) and its saved
// webhooks (/v1/webhooks, in webhooks.go and webhook_ping.go), with every
// credential sealed at rest (seal.go). Credentials (credentials.go) opens
// them for an export: the scheduler checks them when a post is created and
// the publisher uses them when it exports.
//
// Where posts go: `destination.New(Deps)`, `handler.go` serves
// `DestinationService` and `WebhookService`. Connections (`destinations.go`:
// `GET /v1/destinations`, `PUT /v1/destinations/{name}/connection` is
// `Connect`, `check.go` verifies them with the remote), saved webhooks
// (`webhooks.go`, `whsec_` secrets; `webhook_ping.go` is `POST
// /v1/webhooks/{id}/test`), credentials sealed with AES-256-GCM under a key
// derived from `HERALD_SECRET_KEY`, bound to workspace and row (`seal.go`),
// and `credentials.go`: `Credentials(ctx, ws, dest, webhookID)` opens an
// export's credentials for the publisher, `ExportCredentials` checks them
// for a new post. Deleting a webhook that pending posts use is a 409 listing
// them, or with `?force=true` fails them in the same transaction
// (`store.DeleteWebhook`, `store/webhook.go`). The display form of a webhook
// URL (`MaskWebhookURL`, `webhook_url.go`) is destination's rule; the
// store's migration 10 keeps a frozen private copy of the rule of its day (a
// migration must not change when the rule does). Inputs `NewConnection`,
// `NewWebhook` and `Export` carry `validate()`.
package destination
