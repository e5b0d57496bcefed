package destination_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/schedule/scheduletest"
)

// The tests run on the scheduler's harness (scheduletest), which serves
// the first-party plugins from this test binary.
func TestMain(m *testing.M) { scheduletest.Main(m) }
