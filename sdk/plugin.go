package sdk

// This file is the go-plugin transport: the contract both sides share.

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"github.com/heraldhq/herald/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

// ProtocolVersion is the herald.plugin.v1 protocol version negotiated
// through go-plugin's VersionedPlugins.
const ProtocolVersion = 1

// The names under which the plugin kinds are registered in a go-plugin
// PluginSet. The host dispenses them by these names.
const (
	ProviderPluginName    = "provider"
	DestinationPluginName = "destination"
	AnalyticsPluginName   = "analytics"
)

// Handshake is the go-plugin handshake both the host and every plugin use.
// The magic cookie only keeps a plugin binary from being run by hand by
// mistake; it is not a security measure. ProtocolVersion is left zero
// because versions are negotiated through [VersionedPlugins].
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "HERALD_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "7c1e3f0a9b5d4e2f8a6c1b3d5e7f9a0b2c4d6e8f",
}

// VersionedPlugins returns the plugin sets a host passes to
// plugin.ClientConfig.VersionedPlugins. Dispensing ProviderPluginName yields
// a *ProviderClient, DestinationPluginName a *DestinationClient,
// AnalyticsPluginName an *AnalyticsClient.
func VersionedPlugins() map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {
			ProviderPluginName:    &ProviderPlugin{},
			DestinationPluginName: &DestinationPlugin{},
			AnalyticsPluginName:   &AnalyticsPlugin{},
		},
	}
}

// ProviderPlugin is the go-plugin plugin.GRPCPlugin for providers. Plugins
// set Impl and serve it (through [Serve]); hosts leave Impl nil and get a
// *ProviderClient from GRPCClient.
type ProviderPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl is the provider to serve; only the plugin side sets it.
	Impl Provider
}

// GRPCServer registers Impl on the plugin's gRPC server.
func (p *ProviderPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterProviderServer(s, &providerServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a *ProviderClient that calls the plugin over conn.
func (p *ProviderPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return NewProviderClient(conn), nil
}

// DestinationPlugin is the go-plugin plugin.GRPCPlugin for destinations.
// Plugins set Impl and serve it (through [Serve]); hosts leave Impl nil and
// get a *DestinationClient from GRPCClient.
type DestinationPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl is the destination to serve; only the plugin side sets it.
	Impl Destination
}

// GRPCServer registers Impl on the plugin's gRPC server.
func (p *DestinationPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterDestinationServer(s, &destinationServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a *DestinationClient that calls the plugin over conn.
func (p *DestinationPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return NewDestinationClient(conn), nil
}

// AnalyticsPlugin is the go-plugin plugin.GRPCPlugin for analytics
// sources. Plugins set Impl and serve it (through [Serve]); hosts leave Impl
// nil and get an *AnalyticsClient from GRPCClient.
type AnalyticsPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl is the analytics source to serve; only the plugin side sets it.
	Impl AnalyticsSource
}

// GRPCServer registers Impl on the plugin's gRPC server.
func (p *AnalyticsPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterAnalyticsSourceServer(s, &analyticsServer{impl: p.Impl})
	return nil
}

// GRPCClient returns an *AnalyticsClient that calls the plugin over conn.
func (p *AnalyticsPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return NewAnalyticsClient(conn), nil
}

// Interface guards.
var (
	_ plugin.GRPCPlugin = (*ProviderPlugin)(nil)
	_ plugin.GRPCPlugin = (*DestinationPlugin)(nil)
	_ plugin.GRPCPlugin = (*AnalyticsPlugin)(nil)
)

// MaxMessageBytes bounds one gRPC message between host and plugin, both
// ways. It is above gRPC's default of 4 MiB because an export carries the
// schedule's image (up to 20 MiB) and an image generation returns one.
const MaxMessageBytes = 32 << 20

// GRPCServer builds the plugin's gRPC server with go-plugin's options plus
// the [MaxMessageBytes] limits; [Serve] uses it.
func GRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes))
	return grpc.NewServer(opts...)
}

// GRPCDialOptions are the options a host passes in
// plugin.ClientConfig.GRPCDialOptions so that its calls may carry
// [MaxMessageBytes].
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes))}
}
