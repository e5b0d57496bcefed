package schedule

import (
	"testing"
	"time"
)

// A reconcile pass may take longer than a short interval: its deadline is
// the interval, but at least 30 s.
func TestReconcilePassDeadline(t *testing.T) {
	for _, tc := range []struct{ interval, want time.Duration }{
		{time.Second, 30 * time.Second},
		{30 * time.Second, 30 * time.Second},
		{2 * time.Minute, 2 * time.Minute},
	} {
		if got := reconcileTimeout(tc.interval); got != tc.want {
			t.Errorf("reconcileTimeout(%v) = %v, want %v", tc.interval, got, tc.want)
		}
	}
}
