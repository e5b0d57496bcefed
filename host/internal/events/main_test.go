package events_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
)

// TestMain serves the first-party plugins the fan-out benchmark's
// scheduled-post baseline starts from the test binary.
func TestMain(m *testing.M) { scheduletest.Main(m) }
