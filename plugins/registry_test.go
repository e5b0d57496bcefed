package plugins

import (
	"maps"
	"slices"
	"testing"

	"github.com/heraldhq/herald/plugins/names"
	"github.com/heraldhq/herald/sdk"
)

// TestRegistryServesEveryName keeps the served registry and the list of
// names (package names, read by config) in step.
func TestRegistryServesEveryName(t *testing.T) {
	t.Parallel()
	if got, want := slices.Sorted(maps.Keys(registry)), names.Names(); !slices.Equal(got, want) {
		t.Errorf("registry serves %v, names lists %v", got, want)
	}
}

// TestKindsAreThePluginSetNames: names cannot import sdk, so its kinds are
// pinned to the plugin set names here.
func TestKindsAreThePluginSetNames(t *testing.T) {
	t.Parallel()
	if KindProvider != sdk.ProviderPluginName || KindDestination != sdk.DestinationPluginName || KindAnalytics != sdk.AnalyticsPluginName {
		t.Errorf("kinds %q, %q, %q; plugin sets %q, %q, %q", KindProvider, KindDestination, KindAnalytics,
			sdk.ProviderPluginName, sdk.DestinationPluginName, sdk.AnalyticsPluginName)
	}
}
