package voice_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/voice"
)

// New refuses Deps that would fail later, naming each missing dep.
func TestNewNamesTheMissingDeps(t *testing.T) {
	t.Parallel()
	_, err := voice.New(voice.Deps{Fetcher: noFetch{}, Models: &profiler{}, Model: "m"})
	if err == nil {
		t.Fatal("New accepted Deps without Store, Queue and Quota")
	}
	for _, want := range []string{"voice: Deps.Store is required", "voice: Deps.Queue is required", "voice: Deps.Quota is required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}
