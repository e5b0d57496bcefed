package lease

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// slowRenew is a backend whose renewals wait until the test lets them go
// and then find the slot gone, as when the slot was released meanwhile.
type slowRenew struct {
	renewing chan struct{} // a renewal has started
	proceed  chan struct{} // let it answer
}

func (b *slowRenew) take(context.Context, string, int, string, time.Duration) (int, bool, error) {
	return 0, true, nil
}

func (b *slowRenew) renew(context.Context, string, int, string, time.Duration) (bool, error) {
	b.renewing <- struct{}{}
	<-b.proceed
	return false, nil
}

func (b *slowRenew) release(context.Context, string, int, string) error { return nil }
func (b *slowRenew) close() error                                       { return nil }
func (b *slowRenew) kind() string                                       { return "test" }

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func limiterOn(b backend, out *syncBuf, ttl time.Duration) *Limiter {
	l := &Limiter{b: b, ttl: ttl, log: hclog.New(&hclog.LoggerOptions{Output: out}), id: "test",
		held: map[*slot]struct{}{}, freed: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go l.renewLoop()
	return l
}

// A slot released while its renewal is on the way is not reported as a
// lease that ran out; one still held is.
func TestARenewalOfAReleasedSlotIsNoWarning(t *testing.T) {
	for _, keep := range []bool{false, true} {
		b := &slowRenew{renewing: make(chan struct{}), proceed: make(chan struct{})}
		var out syncBuf
		l := limiterOn(b, &out, 3*time.Second) // renews every second
		release, err := l.Acquire(context.Background(), "x", 1)
		if err != nil {
			t.Fatal(err)
		}
		<-b.renewing
		if !keep {
			release()
		}
		b.proceed <- struct{}{}
		close(l.stop)
		go func() { // a renewal that started before the stop
			for range b.renewing {
				b.proceed <- struct{}{}
			}
		}()
		<-l.done
		close(b.renewing)
		warned := strings.Contains(out.String(), "ran out while held")
		if warned != keep {
			t.Errorf("slot kept %v: warned %v, want %v\n%s", keep, warned, keep, out.String())
		}
	}
}
