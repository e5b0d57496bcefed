package traffic_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/traffic"
)

// New refuses Deps that would fail later, naming each missing dep.
func TestNewNamesTheMissingDeps(t *testing.T) {
	t.Parallel()
	_, err := traffic.New(traffic.Deps{})
	if err == nil {
		t.Fatal("New accepted empty Deps")
	}
	for _, want := range []string{"traffic: Deps.Store is required", "traffic: Deps.Writer is required", "traffic: Deps.BaseURL is required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}
