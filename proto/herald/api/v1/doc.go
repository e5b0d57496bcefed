// Package apiv1: the Go code generated from the protos of herald.api.v1,
// with this hand-written overview.
//
// One proto RPC per /v1 operation; generated Go (messages) and
// `apiv1connect` (Connect handlers and clients) are committed.
// `proto/herald/plugin/v1` — the plugin protocol (grpc-go, because go-plugin
// speaks it); its Go code is generated into the SDK module,
// `sdk/proto/pluginv1`.
package apiv1
