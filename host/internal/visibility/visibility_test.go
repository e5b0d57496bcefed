package visibility_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/visibility"
)

func TestNewNamesEachMissingDep(t *testing.T) {
	t.Parallel()
	_, err := visibility.New(visibility.Deps{})
	if err == nil {
		t.Fatal("New without deps succeeded")
	}
	for _, name := range []string{"Deps.Store", "Deps.Queue", "Deps.Quota", "Deps.Models", "Deps.Site"} {
		if !strings.Contains(err.Error(), "visibility: "+name+" is required") {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}
