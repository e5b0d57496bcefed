// Package testwait waits, in tests, for a state the test observes: a row,
// a counter, a fake's record of the requests it got. Where the code under
// test offers a signal (a channel, a log line), wait on that instead; this
// is for state that is only there to be looked at.
package testwait

import (
	"testing"
	"time"
)

// For checks cond until it holds, first at once and then at intervals that
// grow from 5ms to 100ms, and fails t (Fatalf: call it from the test's
// goroutine) when it still does not hold after timeout. what says what was
// awaited.
func For(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Until(timeout, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Until is For without a test: it returns an error when cond still does
// not hold after timeout, for helpers that report failures their own way.
func Until(timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	interval := 5 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return &timeoutError{timeout}
		}
		time.Sleep(interval)
		interval = min(2*interval, 100*time.Millisecond)
	}
	return nil
}

type timeoutError struct{ timeout time.Duration }

func (e *timeoutError) Error() string { return "still not the case after " + e.timeout.String() }
