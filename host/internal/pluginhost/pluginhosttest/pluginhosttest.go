// Package pluginhosttest runs Herald's first-party plugins in tests of the
// areas: the plugin manager starts its own executable as
// `herald plugin NAME`, and under `go test` that executable is the test
// binary, so its TestMain must serve the plugin when started as one. Only
// tests import it.
package pluginhosttest

import (
	"fmt"
	"net/netip"
	"os"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	firstparty "github.com/heraldhq/herald/plugins"
)

// Main is a test package's TestMain: it serves a first-party plugin when
// the binary was started as one, else runs the tests and closes the
// managers Manager made.
func Main(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := firstparty.Serve(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	mu.Lock()
	for _, s := range shared {
		if s.m != nil {
			s.m.Close()
		}
	}
	mu.Unlock()
	os.Exit(code)
}

type once struct {
	sync.Once
	m   *pluginhost.Manager
	err error
}

var (
	mu     sync.Mutex
	shared = map[bool]*once{}
)

// Manager is one real plugin manager over the first-party plugins, shared
// by the package's tests. With loopback, the plugins' guarded client may
// reach 127.0.0.0/8 (local receivers and fakes).
func Manager(t testing.TB, loopback bool) *pluginhost.Manager {
	t.Helper()
	mu.Lock()
	s := shared[loopback]
	if s == nil {
		s = &once{}
		shared[loopback] = s
	}
	mu.Unlock()
	s.Do(func() {
		cfg := config.Default()
		if loopback {
			cfg.AllowedPrivateCIDRs = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		}
		s.m, s.err = pluginhost.NewManager(hclog.NewNullLogger(), cfg, nil)
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.m
}
