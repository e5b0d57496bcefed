// Package plugintest is the conformance harness for Herald plugins. A plugin
// author calls it from `go test`:
//
//	func TestConformance(t *testing.T) {
//		plugintest.TestDestination(t, newMyDestination(), plugintest.DestinationChecks{
//			Valid: sdk.ValidateRequest{Content: sdk.Content{"title": "Hi"}, Credentials: map[string]string{"token": "t"}},
//		})
//	}
//
// Checks always run through the real conversion layer and gRPC: in-process
// over a local socket ([InProcessDestination], [InProcessProvider]) or
// against the built executable as a go-plugin subprocess ([Build], [Start]),
// exactly as the Herald host runs it.
package plugintest

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/heraldhq/herald/sdk"
)

// InProcessProvider serves p with go-plugin's gRPC server on a local socket
// in this process and returns the client the host would use. Everything is
// closed when the test ends.
func InProcessProvider(t testing.TB, p sdk.Provider) *sdk.ProviderClient {
	t.Helper()
	raw := inProcess(t, sdk.ServeOpts{Provider: p}, sdk.ProviderPluginName)
	return raw.(*sdk.ProviderClient)
}

// InProcessDestination serves d with go-plugin's gRPC server on a local
// socket in this process and returns the client the host would use.
// Everything is closed when the test ends.
func InProcessDestination(t testing.TB, d sdk.Destination) *sdk.DestinationClient {
	t.Helper()
	raw := inProcess(t, sdk.ServeOpts{Destination: d}, sdk.DestinationPluginName)
	return raw.(*sdk.DestinationClient)
}

func inProcess(t testing.TB, opts sdk.ServeOpts, name string) any {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, sdk.PluginSet(opts))
	t.Cleanup(func() {
		// Close asks the server to stop (go-plugin's controller Shutdown);
		// stopping it here too would race with that.
		_ = client.Close()
		select {
		case <-server.DoneCh:
		case <-time.After(5 * time.Second):
			t.Errorf("in-process plugin server did not stop")
		}
	})
	raw, err := client.Dispense(name)
	if err != nil {
		t.Fatalf("dispense %s: %v", name, err)
	}
	return raw
}

// Build compiles the Go package pkg (an import path or a directory such as
// ".") into an executable in t.TempDir() and returns its path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("build %s: go command not found: %v", pkg, err)
	}
	out := filepath.Join(t.TempDir(), "plugin")
	cmd := exec.Command(goBin, "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// Process is a plugin executable running as a go-plugin subprocess.
type Process struct {
	client *plugin.Client
	rpc    plugin.ClientProtocol
}

// Start launches the plugin executable at path with args through go-plugin
// (handshake, protocol negotiation, gRPC, AutoMTLS), as the host does. The
// process is killed when the test ends; its log is printed if the test
// failed.
func Start(t testing.TB, path string, args ...string) *Process {
	t.Helper()
	return StartCmd(t, exec.Command(path, args...))
}

// StartCmd is [Start] for a prepared command, for example one with extra
// environment variables in cmd.Env.
func StartCmd(t testing.TB, cmd *exec.Cmd) *Process {
	t.Helper()
	path := cmd.Path
	logs := &syncBuffer{}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sdk.VersionedPlugins(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     30 * time.Second,
		GRPCDialOptions:  sdk.GRPCDialOptions(),
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: logs, Level: hclog.Debug}),
	})
	t.Cleanup(func() {
		client.Kill()
		if t.Failed() {
			t.Logf("plugin log:\n%s", logs.String())
		}
	})
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("start plugin %s: %v\n%s", path, err, logs.String())
	}
	return &Process{client: client, rpc: rpc}
}

// Provider dispenses the plugin's provider.
func (p *Process) Provider(t testing.TB) *sdk.ProviderClient {
	t.Helper()
	raw, err := p.rpc.Dispense(sdk.ProviderPluginName)
	if err != nil {
		t.Fatalf("dispense provider: %v", err)
	}
	return raw.(*sdk.ProviderClient)
}

// Destination dispenses the plugin's destination.
func (p *Process) Destination(t testing.TB) *sdk.DestinationClient {
	t.Helper()
	raw, err := p.rpc.Dispense(sdk.DestinationPluginName)
	if err != nil {
		t.Fatalf("dispense destination: %v", err)
	}
	return raw.(*sdk.DestinationClient)
}

// Exited reports whether the plugin process has exited.
func (p *Process) Exited() bool { return p.client.Exited() }

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
