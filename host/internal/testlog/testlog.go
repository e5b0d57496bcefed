// Package testlog is a log sink for tests: the code under test writes it
// from its goroutines while the test reads it.
package testlog

import (
	"bytes"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// Buffer collects log output; safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Count returns how often s occurs in what was written.
func (l *Buffer) Count(s string) int { return strings.Count(l.String(), s) }

// Logger returns a logger that writes to l at level and above.
func (l *Buffer) Logger(level hclog.Level) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: l, Level: level})
}
