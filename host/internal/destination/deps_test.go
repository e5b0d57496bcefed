package destination_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/destination"
)

func TestNewNamesEachMissingDep(t *testing.T) {
	t.Parallel()
	_, err := destination.New(destination.Deps{})
	for _, dep := range []string{"Store", "Quota", "Plugins"} {
		if err == nil || !strings.Contains(err.Error(), "destination: Deps."+dep+" is required") {
			t.Errorf("New without deps: %v, want it to name Deps.%s", err, dep)
		}
	}
}
