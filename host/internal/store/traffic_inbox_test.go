package store_test

import (
	"context"
	"errors"
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
