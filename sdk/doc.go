// Package sdk is the Go SDK for Herald plugins.
//
// A plugin is a separate executable that Herald starts and talks to over
// gRPC through hashicorp/go-plugin. Plugin authors never see gRPC: they
// implement one of two small Go interfaces and call a Serve function from
// main.
//
//   - A [Provider] generates text, chat replies (streamed, with tool calls)
//     and, optionally, images ([ImageGenerator]) and fine-tuned models
//     ([FineTuner]).
//   - A [Destination] validates and exports scheduled content to a CMS, a
//     social network or a webhook and, optionally, deletes it ([Deleter]).
//
// Both may implement [Configurer] to receive operator settings. Optional
// capabilities are discovered by type assertion; a missing one answers
// [CodeUnimplemented].
//
// The package has three layers, as grafana-plugin-sdk-go does: the
// interfaces and plain Go types above, a conversion layer to and from the
// herald.plugin.v1 protobuf messages, and the go-plugin transport
// ([Serve], [Handshake], [VersionedPlugins]). The host uses the same
// package: [ProviderPlugin] and [DestinationPlugin] dispense a
// [*ProviderClient] or [*DestinationClient] that implement the very same
// interfaces, so host code calls a plugin exactly as it would call an
// in-process implementation.
//
// Failures cross the wire as [*Error]: a code, a message safe to show,
// whether a retry may succeed, the remote's HTTP status and its Retry-After.
// Use errors.As to read them on either side.
package sdk
