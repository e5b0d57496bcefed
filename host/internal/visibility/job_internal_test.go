package visibility

import (
	"testing"

	"github.com/heraldhq/herald/config"
)

// A workspace's semaphore is shared by every report of the workspace that
// holds it and dropped when the last one lets go: a report started while
// another still runs waits on the same channel, and none is left behind.
func TestWorkspaceSlotsAreSharedUntilTheLastRelease(t *testing.T) {
	s := &Service{cfg: config.Visibility{Concurrency: 2}, sems: map[string]*workspaceSem{}}
	a, releaseA := s.workspaceSlots("ws1")
	b, releaseB := s.workspaceSlots("ws1")
	if a != b || cap(a) != 2 {
		t.Fatalf("two reports of ws1: channels %p and %p (cap %d), want one of cap 2", a, b, cap(a))
	}
	if other, releaseOther := s.workspaceSlots("ws2"); other == a {
		t.Error("ws2 shares ws1's channel")
	} else {
		releaseOther()
	}
	releaseA()
	c, releaseC := s.workspaceSlots("ws1")
	if c != b {
		t.Error("a report started while another still holds ws1's slots got a new channel (the cap doubles)")
	}
	releaseB()
	releaseC()
	if len(s.sems) != 0 {
		t.Errorf("after every release: %d semaphores left, want 0", len(s.sems))
	}
}
