package deps_test

import (
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/deps"
)

func TestCheckNamesEachMissingDepInOrder(t *testing.T) {
	t.Parallel()
	err := deps.Check("voice", deps.Need("Store", true), deps.Need("Quota", false), deps.NeedWhen("Queue", true, "with a Fetcher"))
	want := "voice: Deps.Store is required\nvoice: Deps.Queue is required with a Fetcher"
	if err == nil || err.Error() != want {
		t.Fatalf("Check: %v, want %q", err, want)
	}
	if err := deps.Check("voice", deps.Need("Store", false)); err != nil {
		t.Fatalf("nothing missing: %v", err)
	}
}

func TestLoggerIsNamedOrNull(t *testing.T) {
	t.Parallel()
	if l := deps.Logger(nil, "voice"); l == nil {
		t.Fatal("nil logger: want a null logger")
	}
	if got := deps.Logger(hclog.New(&hclog.LoggerOptions{Name: "herald"}), "voice").Name(); got != "herald.voice" {
		t.Fatalf("name %q, want herald.voice", got)
	}
}
