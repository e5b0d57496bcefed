package sdk

import (
	"errors"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
)

// ServeOpts says what a plugin executable serves. Set Provider, Destination,
// Analytics, or several.
type ServeOpts struct {
	Provider    Provider
	Destination Destination
	Analytics   AnalyticsSource
	// Logger replaces the default logger (JSON on stderr, which go-plugin
	// relays to the host's log with the plugin's name).
	Logger hclog.Logger
}

// LogLevelEnv names the environment variable that sets the plugin's log
// level (trace, debug, info, warn, error); the default is info.
const LogLevelEnv = "HERALD_PLUGIN_LOG_LEVEL"

var (
	loggerMu sync.RWMutex
	logger   hclog.Logger
)

// Logger returns the plugin's logger. Under [Serve] it writes JSON to
// stderr, which the host relays into its own log; before Serve it is a plain
// stderr logger. Never log credentials or other secrets.
func Logger() hclog.Logger {
	loggerMu.RLock()
	l := logger
	loggerMu.RUnlock()
	if l != nil {
		return l
	}
	return hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: os.Stderr, Level: logLevel()})
}

func logLevel() hclog.Level {
	if l := hclog.LevelFromString(os.Getenv(LogLevelEnv)); l != hclog.NoLevel {
		return l
	}
	return hclog.Info
}

// PluginSet returns the go-plugin plugin set that serves opts. [Serve] uses
// it; tests use it with go-plugin's in-process helpers.
func PluginSet(opts ServeOpts) plugin.PluginSet {
	set := plugin.PluginSet{}
	if opts.Provider != nil {
		set[ProviderPluginName] = &ProviderPlugin{Impl: opts.Provider}
	}
	if opts.Destination != nil {
		set[DestinationPluginName] = &DestinationPlugin{Impl: opts.Destination}
	}
	if opts.Analytics != nil {
		set[AnalyticsPluginName] = &AnalyticsPlugin{Impl: opts.Analytics}
	}
	return set
}

// Serve serves the plugin to the host that started this process and returns
// when the host is done with it. It must be called from main. Run by hand
// (without the host's handshake), it prints a short explanation and exits.
// The process exits 0 on SIGTERM or SIGINT, and exits when its host dies.
func Serve(opts ServeOpts) error {
	if opts.Provider == nil && opts.Destination == nil && opts.Analytics == nil {
		return errors.New("sdk.Serve: nothing to serve: set ServeOpts.Provider, ServeOpts.Destination or ServeOpts.Analytics")
	}
	l := opts.Logger
	if l == nil {
		l = hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: logLevel(), JSONFormat: true})
	}
	loggerMu.Lock()
	logger = l
	loggerMu.Unlock()
	if os.Getenv(Handshake.MagicCookieKey) == Handshake.MagicCookieValue {
		// Started by a host: end with it (not when run by hand, where
		// plugin.Serve only prints a note and exits).
		watchHost(l)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{ProtocolVersion: PluginSet(opts)},
		GRPCServer:       GRPCServer,
		Logger:           l,
	})
	return nil
}

// ServeProvider serves p; see [Serve].
func ServeProvider(p Provider) error { return Serve(ServeOpts{Provider: p}) }

// ServeAnalytics serves a; see [Serve].
func ServeAnalytics(a AnalyticsSource) error { return Serve(ServeOpts{Analytics: a}) }

// ServeDestination serves d; see [Serve].
func ServeDestination(d Destination) error { return Serve(ServeOpts{Destination: d}) }
