package plugins_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/heraldhq/herald/plugins"
	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

func TestNamesListsEveryFirstPartyPlugin(t *testing.T) {
	t.Parallel()
	want := []string{"anthropic", "gemini", "linkedin", "notion", "openai", "webflow", "webhook", "wordpress"}
	if got := plugins.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
}

// TestEveryPluginDescribesItselfUnderItsName serves each plugin in-process
// through gRPC and checks that Info answers with the registered name, so a
// schedule's exportTo and the config's plugin names line up.
func TestEveryPluginDescribesItselfUnderItsName(t *testing.T) {
	t.Parallel()
	for _, name := range plugins.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts, err := plugins.Options(name)
			if err != nil {
				t.Fatal(err)
			}
			kind, _ := plugins.KindOf(name)
			var got string
			switch kind {
			case plugins.KindProvider:
				info, err := plugintest.InProcessProvider(t, opts.Provider).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				got = info.Name
			case plugins.KindDestination:
				info, err := plugintest.InProcessDestination(t, opts.Destination).Info(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				got = info.Name
			default:
				t.Fatalf("kind %q", kind)
			}
			if got != name {
				t.Errorf("Info().Name = %q, want %q", got, name)
			}
		})
	}
}

func TestServeRefusesAnUnknownName(t *testing.T) {
	t.Parallel()
	if err := plugins.Serve("myspace"); err == nil {
		t.Error("Serve of an unknown plugin returned nil")
	}
	if _, ok := plugins.KindOf("myspace"); ok {
		t.Error("KindOf of an unknown plugin reported ok")
	}
}

// TestServeRunsPluginsAsSubprocesses builds a main that calls Serve, as
// `herald plugin NAME` does, and runs a provider and a destination through
// go-plugin as real subprocesses.
func TestServeRunsPluginsAsSubprocesses(t *testing.T) {
	t.Parallel()
	bin := plugintest.Build(t, "./testdata/serve")
	t.Run("openai serves a provider", func(t *testing.T) {
		t.Parallel()
		plugintest.CheckProvider(t, plugintest.Start(t, bin, "openai").Provider(t), plugintest.ProviderChecks{})
	})
	t.Run("webhook serves a destination", func(t *testing.T) {
		t.Parallel()
		plugintest.CheckDestination(t, plugintest.Start(t, bin, "webhook").Destination(t), plugintest.DestinationChecks{
			Valid: sdk.ValidateRequest{Content: sdk.Content{"title": "Hi"}, Credentials: map[string]string{"url": "https://example.com/hook", "secret": "whsec_c2VjcmV0"}},
		})
	})
}
