package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAFailedAppendIsNotCountedAndLaterOnesAreRead: a write the system
// refuses answers an error, takes no seq, and leaves nothing that would
// stop the groups appended after it from being read back.
func TestAFailedAppendIsNotCountedAndLaterOnesAreRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	in, err := s.OpenTrafficInbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Append(ctx, []byte("one")); err != nil {
		t.Fatal(err)
	}
	// The segment's descriptor now refuses writes, as a full disk would.
	ro, err := os.Open(in.segs[len(in.segs)-1].path)
	if err != nil {
		t.Fatal(err)
	}
	in.cur.Close()
	in.cur = ro
	if _, err := in.Append(ctx, []byte("two")); err == nil {
		t.Fatal("an append to a descriptor that refuses writes succeeded")
	}
	if seq, err := in.Append(ctx, []byte("three")); err != nil || seq != 2 {
		t.Fatalf("the append after a failed one: seq %d %v, want 2", seq, err)
	}
	in.Close()
	in, err = s.OpenTrafficInbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	_, groups, err := in.Pending(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || string(groups[0].Payload) != "one" || string(groups[1].Payload) != "three" || groups[1].Seq != 2 {
		t.Errorf("pending %+v, want one (1) and three (2)", groups)
	}
}

// TestAnEmptyIDFileGetsANewIDAndAFullSegmentRollsOver: an id file left empty is not taken for an
// id (every mark would share ""), and a segment exactly full starts the next
// group in a new one.
func TestAnEmptyIDFileGetsANewIDAndAFullSegmentRollsOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "traffic-inbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "traffic-inbox", "id"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := s.OpenTrafficInbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.ID() == "" {
		t.Fatal("an empty id file gave the inbox the empty id")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "traffic-inbox", "id")); strings.TrimSpace(string(b)) != in.ID() {
		t.Errorf("id file holds %q, want %q", b, in.ID())
	}
	if _, err := in.Append(ctx, make([]byte, inboxSegmentSize-inboxFrameHeader)); err != nil {
		t.Fatal(err)
	}
	if in.curSize != inboxSegmentSize {
		t.Fatalf("segment size %d, want exactly %d", in.curSize, inboxSegmentSize)
	}
	if _, err := in.Append(ctx, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if len(in.segs) != 2 || in.curSize != inboxFrameHeader+1 {
		t.Errorf("%d segments, the current holding %d bytes: want the full one and a new one", len(in.segs), in.curSize)
	}
}
