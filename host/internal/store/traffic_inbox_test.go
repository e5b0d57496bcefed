package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func openInbox(t *testing.T, s *store.Store) *store.TrafficInbox {
	t.Helper()
	in, err := s.OpenTrafficInbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func appendGroup(t *testing.T, in *store.TrafficInbox, payload string) int64 {
	t.Helper()
	seq, err := in.Append(context.Background(), []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func pending(t *testing.T, s *store.Store, in *store.TrafficInbox) (store.TrafficInboxPos, []string, []int64) {
	t.Helper()
	pos, groups, err := in.Pending(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var payloads []string
	var seqs []int64
	for _, g := range groups {
		payloads, seqs = append(payloads, string(g.Payload)), append(seqs, g.Seq)
	}
	return pos, payloads, seqs
}

// TestTheBeaconInboxKeepsGroupsUntilTheyAreMarkedApplied: groups come back
// in order from the applied position on; a mark moves the position (the
// group and the events within it), trimmed groups are gone, a reopened
// inbox keeps its id and numbers past everything marked even when trimmed
// empty, and a new inbox file starts from nothing.
func TestTheBeaconInboxKeepsGroupsUntilTheyAreMarkedApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.SQLite(t)
	in := openInbox(t, s)
	id := in.ID()
	if id == "" {
		t.Fatal("inbox without an id")
	}
	for i, p := range []string{"a", "b", "c"} {
		if seq := appendGroup(t, in, p); seq != int64(i+1) {
			t.Errorf("group %s: seq %d, want %d", p, seq, i+1)
		}
	}
	pos, payloads, seqs := pending(t, s, in)
	if pos != (store.TrafficInboxPos{}) || len(payloads) != 3 || payloads[0] != "a" || payloads[2] != "c" || seqs[1] != 2 {
		t.Fatalf("pending %+v %v %v, want everything from the start", pos, payloads, seqs)
	}

	// Group 1 applied, and the first 7 events of group 2.
	mark := store.TrafficInboxMark{InboxID: id, Pos: store.TrafficInboxPos{Seq: 2, Done: 7}}
	if err := s.MarkTrafficInbox(ctx, mark); err != nil {
		t.Fatal(err)
	}
	pos, payloads, _ = pending(t, s, in)
	if pos != mark.Pos || len(payloads) != 2 || payloads[0] != "b" {
		t.Fatalf("after the mark: %+v %v, want from group 2, 7 done", pos, payloads)
	}
	if got, err := s.TrafficInboxApplied(ctx, id); err != nil || got != mark.Pos {
		t.Errorf("applied %+v %v, want %+v", got, err, mark.Pos)
	}
	if got, err := s.TrafficInboxApplied(ctx, "another-inbox"); err != nil || got != (store.TrafficInboxPos{}) {
		t.Errorf("an inbox never marked: %+v %v, want the start", got, err)
	}

	// Everything applied and trimmed; the reopened inbox numbers on.
	if err := s.MarkTrafficInbox(ctx, store.TrafficInboxMark{InboxID: id, Pos: store.TrafficInboxPos{Seq: 4}}); err != nil {
		t.Fatal(err)
	}
	if err := in.Trim(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if _, payloads, _ = pending(t, s, in); len(payloads) != 0 {
		t.Fatalf("after the trim: %v", payloads)
	}
	in.Close()
	in = openInbox(t, s)
	if in.ID() != id {
		t.Errorf("reopened inbox id %s, want %s", in.ID(), id)
	}
	if seq := appendGroup(t, in, "d"); seq != 4 {
		t.Errorf("first group after reopening: seq %d, want 4 (past the mark)", seq)
	}
	if _, payloads, _ = pending(t, s, in); len(payloads) != 1 || payloads[0] != "d" {
		t.Errorf("pending after reopening %v, want d", payloads)
	}
	// A trim keeps what is not applied.
	if err := in.Trim(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if _, payloads, _ = pending(t, s, in); len(payloads) != 1 {
		t.Errorf("a trim before seq 4 dropped group 4: %v", payloads)
	}
	in.Close()
}

// TestAMarkIsWrittenWithItsBatch: a TrafficBatch's mark commits with the
// batch's rows, and a batch that fails leaves the mark where it was.
func TestAMarkIsWrittenWithItsBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.SQLite(t)
	ev := store.TrafficEvent{SiteID: "site-m", Kind: store.TrafficPageview, SessionID: "s1", Path: "/", DurationMs: 0, ScrollDepth: -1, At: s.Now()}
	mark := &store.TrafficInboxMark{InboxID: "inbox-m", Pos: store.TrafficInboxPos{Seq: 5, Done: 3}}
	err := s.RecordTraffic(ctx, []store.TrafficEvent{ev}, func(map[store.TrafficSessionKey]*store.TrafficSession) (store.TrafficBatch, error) {
		return store.TrafficBatch{Inserts: []store.StoredTrafficEvent{{ID: store.NewID(), TrafficEvent: ev}}, Mark: mark}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.TrafficInboxApplied(ctx, "inbox-m"); err != nil || got != mark.Pos {
		t.Errorf("mark %+v %v, want %+v", got, err, mark.Pos)
	}
	next := &store.TrafficInboxMark{InboxID: "inbox-m", Pos: store.TrafficInboxPos{Seq: 9}}
	boom := errors.New("boom")
	err = s.RecordTraffic(ctx, []store.TrafficEvent{ev}, func(map[store.TrafficSessionKey]*store.TrafficSession) (store.TrafficBatch, error) {
		return store.TrafficBatch{Mark: next}, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failed batch: %v", err)
	}
	if got, _ := s.TrafficInboxApplied(ctx, "inbox-m"); got != mark.Pos {
		t.Errorf("a failed batch moved the mark to %+v", got)
	}
}

// TestOneInboxPerDataDirAndNoneOnPostgres: a second open of the same file
// fails while the first holds it; PostgreSQL has no inbox.
func TestOneInboxPerDataDirAndNoneOnPostgres(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	in := openInbox(t, s)
	if second, err := s.OpenTrafficInbox(context.Background()); err == nil {
		second.Close()
		t.Error("a second inbox opened the file the first holds")
	}
	in.Close()
	openInbox(t, s).Close()

	if _, err := storetest.Postgres(t).OpenTrafficInbox(context.Background()); !errors.Is(err, store.ErrNoInbox) {
		t.Errorf("PostgreSQL: %v, want ErrNoInbox", err)
	}
}

// TestTrafficSessionKeysListEveryStoredSession, and the count agrees; the
// sessions an event list refers to are read outside a transaction.
func TestTrafficSessionKeysListEveryStoredSession(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var events []store.TrafficEvent
		for _, k := range []store.TrafficSessionKey{{SiteID: "a", SessionID: "1"}, {SiteID: "a", SessionID: "2"}, {SiteID: "b", SessionID: "1"}} {
			events = append(events, store.TrafficEvent{SiteID: k.SiteID, Kind: store.TrafficPageview, SessionID: k.SessionID, Path: "/", ScrollDepth: -1, At: s.Now()})
		}
		err := s.RecordTraffic(ctx, events, func(sessions map[store.TrafficSessionKey]*store.TrafficSession) (store.TrafficBatch, error) {
			for _, ev := range events {
				k := store.TrafficSessionKey{SiteID: ev.SiteID, SessionID: ev.SessionID}
				sessions[k] = &store.TrafficSession{SiteID: ev.SiteID, SessionID: ev.SessionID, Source: "chatgpt", Day: store.Day(ev.At), StartedAt: ev.At,
					Pageviews: 1, LastScroll: -1, UpdatedAt: ev.At, New: true, Dirty: true}
			}
			return store.TrafficBatch{Sessions: sessions}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[store.TrafficSessionKey]bool{}
		n, err := s.TrafficSessionKeys(ctx, func(k store.TrafficSessionKey) { seen[k] = true })
		if err != nil || n != 3 || len(seen) != 3 || !seen[store.TrafficSessionKey{SiteID: "b", SessionID: "1"}] {
			t.Errorf("keys %v (%d, %v), want the 3 sessions", seen, n, err)
		}
		if c, err := s.TrafficSessionCount(ctx); err != nil || c != 3 {
			t.Errorf("count %d %v, want 3", c, err)
		}
		got, err := s.TrafficSessions(ctx, append(events[:1:1], store.TrafficEvent{SiteID: "a", Kind: store.TrafficPageview, SessionID: "none"}))
		if err != nil || len(got) != 1 || got[store.TrafficSessionKey{SiteID: "a", SessionID: "1"}].Source != "chatgpt" {
			t.Errorf("sessions %v %v, want a/1 only", got, err)
		}
	})
}

// sqliteWithInbox is a migrated SQLite store and the directory its beacon
// inbox lives in.
func sqliteWithInbox(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, filepath.Join(dir, "traffic-inbox")
}

// appendAndClose opens s's inbox, appends a group per payload and closes
// it, as a process that runs and stops would.
func appendAndClose(t *testing.T, s *store.Store, payloads ...string) {
	t.Helper()
	in := openInbox(t, s)
	for _, p := range payloads {
		appendGroup(t, in, p)
	}
	in.Close()
}

func segments(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestATornFrameEndsItsSegmentAndIsNeverAppendedAfter: a crash in the middle
// of a write leaves part of a frame at the end of the log. The groups
// before it come back, the torn one does not (it was never answered), and
// the reopened inbox writes a new segment instead of writing after the
// tear, so the groups it appends are read back too.
func TestATornFrameEndsItsSegmentAndIsNeverAppendedAfter(t *testing.T) {
	t.Parallel()
	s, dir := sqliteWithInbox(t)
	appendAndClose(t, s, "one", "two")
	segs := segments(t, dir)
	if len(segs) != 1 {
		t.Fatalf("segments %v, want one", segs)
	}
	whole, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	// A third frame cut short: the header of the second (16 bytes, then
	// "two") and one byte of its payload.
	second := whole[len(whole)-16-3:]
	if string(second[16:]) != "two" {
		t.Fatalf("the segment does not end with the frame of two: %q", whole)
	}
	f, err := os.OpenFile(segs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(second[:17]); err != nil {
		t.Fatal(err)
	}
	f.Close()

	in := openInbox(t, s)
	if _, payloads, seqs := pending(t, s, in); len(payloads) != 2 || payloads[1] != "two" || seqs[1] != 2 {
		t.Fatalf("after the tear: %v %v, want one and two", payloads, seqs)
	}
	if seq := appendGroup(t, in, "three"); seq != 3 {
		t.Errorf("first group after the tear: seq %d, want 3", seq)
	}
	in.Close()
	in = openInbox(t, s)
	defer in.Close()
	if _, payloads, _ := pending(t, s, in); len(payloads) != 3 || payloads[2] != "three" {
		t.Errorf("after reopening: %v, want one, two, three", payloads)
	}
	if got := segments(t, dir); len(got) != 2 {
		t.Errorf("segments %v, want the torn one and a new one", got)
	}
}

// TestADamagedFrameIsNotApplied: a frame whose bytes changed fails its
// checksum; its segment is read up to it, and the next segment still is.
func TestADamagedFrameIsNotApplied(t *testing.T) {
	t.Parallel()
	s, dir := sqliteWithInbox(t)
	appendAndClose(t, s, "one", "two")
	appendAndClose(t, s, "three") // a new process starts a new segment
	segs := segments(t, dir)
	if len(segs) != 2 {
		t.Fatalf("segments %v, want two", segs)
	}
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0x20 // "two" → "twO"
	if err := os.WriteFile(segs[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	in := openInbox(t, s)
	defer in.Close()
	if _, payloads, _ := pending(t, s, in); len(payloads) != 2 || payloads[0] != "one" || payloads[1] != "three" {
		t.Errorf("pending %v, want one and three", payloads)
	}
}

// TestTheInboxRollsOverAndTrimsWholeSegments: past its size a segment is
// closed and a new one started; a trim deletes the segments whose groups
// are all applied, keeps the one still needed, and once everything is
// applied leaves no segment at all.
func TestTheInboxRollsOverAndTrimsWholeSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, dir := sqliteWithInbox(t)
	in := openInbox(t, s)
	defer in.Close()
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 10; i++ {
		appendGroup(t, in, fmt.Sprintf("%d%s", i, big))
	}
	if n := len(segments(t, dir)); n < 2 || n > 4 {
		t.Fatalf("%d segments for 10 MB, want 2 to 4 of about 4 MB", n)
	}
	// Applied up to the first group of the second segment: the first
	// segment goes, whole, and nothing else.
	segs := segments(t, dir)
	second, err := strconv.ParseInt(strings.TrimSuffix(filepath.Base(segs[1]), ".log"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Trim(ctx, second); err != nil {
		t.Fatal(err)
	}
	if got := segments(t, dir); len(got) != len(segs)-1 || got[0] != segs[1] {
		t.Fatalf("after trimming to %d: segments %v, want %v without the first", second, got, segs)
	}
	// Groups 1–6 applied: every segment that holds 7 or later stays.
	if err := in.Trim(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkTrafficInbox(ctx, store.TrafficInboxMark{InboxID: in.ID(), Pos: store.TrafficInboxPos{Seq: 7}}); err != nil {
		t.Fatal(err)
	}
	_, payloads, seqs := pending(t, s, in)
	if len(payloads) != 4 || seqs[0] != 7 || payloads[3][0] != '9' {
		t.Fatalf("after trimming to 7: seqs %v, want 7–10", seqs)
	}
	if n := len(segments(t, dir)); n < 1 || n > 2 {
		t.Errorf("%d segments after trimming to 7", n)
	}
	if err := in.Trim(ctx, 11); err != nil {
		t.Fatal(err)
	}
	if got := segments(t, dir); len(got) != 0 {
		t.Errorf("segments %v after everything was applied, want none", got)
	}
	if seq := appendGroup(t, in, "after"); seq != 11 {
		t.Errorf("append after a full trim: seq %d, want 11", seq)
	}
	if got := segments(t, dir); len(got) != 1 {
		t.Errorf("segments %v after an append, want one", got)
	}
}

// TestAnEmptyGroupAndARepeatedFrameReadBackAsWritten: a group with an
// empty payload is a frame of its header alone, read back even as the last
// bytes of a segment; a frame written twice (the same seq again) is read
// once.
func TestAnEmptyGroupAndARepeatedFrameReadBackAsWritten(t *testing.T) {
	t.Parallel()
	s, _ := sqliteWithInbox(t)
	appendAndClose(t, s, "one", "")
	in := openInbox(t, s)
	if _, payloads, _ := pending(t, s, in); len(payloads) != 2 || payloads[0] != "one" || payloads[1] != "" {
		t.Errorf("pending %q, want one and an empty group", payloads)
	}
	if err := in.Close(); err != nil {
		t.Errorf("closing an inbox that appended nothing: %v", err)
	}

	s, dir := sqliteWithInbox(t)
	appendAndClose(t, s, "one", "two")
	segs := segments(t, dir)
	whole, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	last := whole[len(whole)-16-3:] // the frame of "two"
	if err := os.WriteFile(segs[0], append(whole, last...), 0o600); err != nil {
		t.Fatal(err)
	}
	in = openInbox(t, s)
	defer in.Close()
	if _, payloads, seqs := pending(t, s, in); len(payloads) != 2 || seqs[1] != 2 {
		t.Errorf("pending %q (seqs %v), want one and two once", payloads, seqs)
	}
}

// TestAReopenedInboxReturnsOnlyWhatIsNotApplied: groups a mark covers but
// no trim removed (a crash between the two) are not handed out again by
// the first Pending after a start, which answers from what the start read.
func TestAReopenedInboxReturnsOnlyWhatIsNotApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := sqliteWithInbox(t)
	in := openInbox(t, s)
	id := in.ID()
	in.Close()
	appendAndClose(t, s, "a", "b", "c")
	if err := s.MarkTrafficInbox(ctx, store.TrafficInboxMark{InboxID: id, Pos: store.TrafficInboxPos{Seq: 2, Done: 1}}); err != nil {
		t.Fatal(err)
	}
	in = openInbox(t, s)
	defer in.Close()
	if pos, payloads, seqs := pending(t, s, in); pos.Seq != 2 || pos.Done != 1 || len(payloads) != 2 || payloads[0] != "b" || seqs[1] != 3 {
		t.Errorf("pending %+v %q %v, want b and c from group 2, 1 done", pos, payloads, seqs)
	}
}
