package visibility

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/internal/testwait"
)

// countingSlots is a cross-host limiter that blocks while limit slots are
// held and records the most callers it had at once, holding or waiting.
type countingSlots struct {
	mu         sync.Mutex
	cond       *sync.Cond
	held, wait int
	most       int
}

func (c *countingSlots) Acquire(ctx context.Context, _ string, limit int) (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wait++
	c.most = max(c.most, c.held+c.wait)
	for c.held >= limit {
		c.cond.Wait()
	}
	c.wait--
	c.held++
	return func() {
		c.mu.Lock()
		c.held--
		c.cond.Broadcast()
		c.mu.Unlock()
	}, nil
}

func (c *countingSlots) holding() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}

// Only as many engine calls as the cap wait on the cross-host lease at
// once: the others of the report wait on this host's semaphore, so a
// report of hundreds of questions does not have hundreds of callers
// polling the shared leases.
func TestOnlyTheCapsCallsWaitOnTheSharedLease(t *testing.T) {
	const limit, calls = 2, 20
	slots := &countingSlots{}
	slots.cond = sync.NewCond(&slots.mu)
	s := &Service{cfg: config.Visibility{Concurrency: limit}, sems: map[string]*workspaceSem{}, slots: slots}
	local, release := s.workspaceSlots("ws1")
	defer release()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	ran := 0
	var mu sync.Mutex
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.withSlot(context.Background(), "ws1", local, func() {
				<-gate
				mu.Lock()
				ran++
				mu.Unlock()
			})
		}()
	}
	testwait.For(t, 10*time.Second, "the cap's calls hold their slots", func() bool { return slots.holding() == limit })
	close(gate)
	wg.Wait()
	if ran != calls {
		t.Fatalf("%d of %d calls ran", ran, calls)
	}
	if slots.most > limit {
		t.Errorf("%d callers held or waited on the shared lease at once, want at most the cap (%d)", slots.most, limit)
	}
}
