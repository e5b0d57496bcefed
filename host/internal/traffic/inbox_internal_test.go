package traffic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/internal/testwait"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

const inboxSite = "site-inbox"

// start starts a Writer on st, as a start of serve does.
func start(t *testing.T, st *store.Store, opts WriterOptions) *Writer {
	t.Helper()
	w, err := NewWriter(context.Background(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// startAndStop starts a Writer on st (replaying the inbox) and stops it.
func startAndStop(t *testing.T, st *store.Store) { start(t, st, WriterOptions{}).Close() }

// openTestInbox opens st's inbox with no applier: what it accepts stays
// there, as in a process killed before applying.
func openTestInbox(t *testing.T, st *store.Store) *inbox {
	t.Helper()
	ib, err := openInbox(context.Background(), st, 1000, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	return ib
}

func pageviewEvent(st *store.Store, session, path, source string) store.TrafficEvent {
	return store.TrafficEvent{SiteID: inboxSite, Kind: store.TrafficPageview, SessionID: session, Path: path, Source: source,
		DurationMs: 0, ScrollDepth: -1, At: st.Now()}
}

func engagementEvent(st *store.Store, session, path string, ms int64, scroll int) store.TrafficEvent {
	return store.TrafficEvent{SiteID: inboxSite, Kind: store.TrafficEngagement, SessionID: session, Path: path,
		DurationMs: ms, ScrollDepth: scroll, At: st.Now()}
}

func pageviews(t *testing.T, st *store.Store) map[string]store.StoredTrafficEvent {
	t.Helper()
	events, err := st.TrafficEvents(context.Background(), inboxSite, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.StoredTrafficEvent{}
	for _, e := range events {
		if e.Kind != store.TrafficPageview {
			continue
		}
		if _, dup := out[e.SessionID+e.Path]; dup {
			t.Errorf("pageview %s %s stored twice", e.SessionID, e.Path)
		}
		out[e.SessionID+e.Path] = e
	}
	return out
}

// TestBeaconsInTheInboxAreStoredOnceAfterACrash accepts two groups into the
// inbox with no applier running, drops the inbox as a killed process would,
// and starts a Writer on the same store: it stores both groups before it
// returns, with the answers' rules (visit source, engagement attached), and
// a second start stores nothing again.
func TestBeaconsInTheInboxAreStoredOnceAfterACrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	ib := openTestInbox(t, st)
	out, err := ib.accept(ctx, []store.TrafficEvent{pageviewEvent(st, "s1", "/a", "chatgpt"), pageviewEvent(st, "s2", "/b", "")})
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != (Outcome{Stored: true, Source: "chatgpt"}) || out[1] != (Outcome{Stored: true}) {
		t.Errorf("first group outcomes %+v", out)
	}
	// s1's second pageview keeps the visit's source; its engagement attaches
	// to it; an engagement of a session never seen is not stored.
	out, err = ib.accept(ctx, []store.TrafficEvent{pageviewEvent(st, "s1", "/c", "perplexity"), engagementEvent(st, "s1", "/c", 12_000, 40),
		engagementEvent(st, "s9", "/x", 5000, 10)})
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != (Outcome{Stored: true, Source: "chatgpt"}) || out[1] != (Outcome{Stored: true, Source: "chatgpt"}) || out[2].Stored {
		t.Errorf("second group outcomes %+v", out)
	}
	ib.file.Close() // killed: nothing applied
	if n := len(pageviews(t, st)); n != 0 {
		t.Fatalf("%d pageviews in the tables before the replay", n)
	}

	w := start(t, st, WriterOptions{})
	got := pageviews(t, st)
	w.Close()
	if len(got) != 3 {
		t.Fatalf("after the replay: %d pageviews, want 3: %v", len(got), got)
	}
	if c := got["s1/c"]; c.Source != "chatgpt" || c.DurationMs != 12_000 || c.ScrollDepth != 40 {
		t.Errorf("s1 /c stored as %+v", c.TrafficEvent)
	}

	startAndStop(t, st)
	if n := len(pageviews(t, st)); n != 3 {
		t.Errorf("after a second start: %d pageviews, want 3", n)
	}
}

// TestAReplayResumesWithinAGroup: when the store has the first events of a
// group (an event-by-event pass that was killed), a start stores only the
// rest of it.
func TestAReplayResumesWithinAGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	ib := openTestInbox(t, st)
	events := []store.TrafficEvent{pageviewEvent(st, "s1", "/1", ""), pageviewEvent(st, "s2", "/2", ""), pageviewEvent(st, "s3", "/3", ""), pageviewEvent(st, "s4", "/4", "")}
	if _, err := ib.accept(ctx, events); err != nil {
		t.Fatal(err)
	}
	g := <-ib.queue
	if _, err := record(st, events[:2], &store.TrafficInboxMark{InboxID: ib.file.ID(), Pos: store.TrafficInboxPos{Seq: g.seq, Done: 2}}); err != nil {
		t.Fatal(err)
	}
	ib.file.Close()

	startAndStop(t, st)
	got := pageviews(t, st)
	if len(got) != 4 {
		t.Errorf("%d pageviews, want 4: %v", len(got), got)
	}
}

// refuse makes SQLite abort the statements a trigger matches; the returned
// func drops the trigger.
func refuse(t *testing.T, st *store.Store, name, trigger string) func() {
	t.Helper()
	ctx := context.Background()
	exec := func(sql string) {
		if err := st.Tx(ctx, func(q store.Querier) error { _, err := q.Exec(ctx, sql); return err }); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE TRIGGER " + name + " " + trigger)
	return func() { exec("DROP TRIGGER " + name) }
}

// TestAnEventTheStoreRefusesIsDroppedAndTheRestStored: one event the store
// refuses while it takes everything else is logged and skipped; the rest of
// its group is stored, and the mark moves past it so no start retries it.
func TestAnEventTheStoreRefusesIsDroppedAndTheRestStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	refuse(t, st, "poison", "BEFORE INSERT ON traffic_events WHEN NEW.path = '/poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END")
	var logs testlog.Buffer
	w := start(t, st, WriterOptions{Logger: logs.Logger(hclog.Info)})
	var wg sync.WaitGroup
	for i, path := range []string{"/ok1", "/poison", "/ok2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.Write(ctx, pageviewEvent(st, fmt.Sprint("s", i), path, "")); err != nil {
				t.Errorf("write %s: %v", path, err)
			}
		}()
	}
	wg.Wait()
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := pageviews(t, st)
	id := w.inbox.file.ID()
	w.Close()
	if len(got) != 2 || got["s0/ok1"].Path == "" || got["s2/ok2"].Path == "" {
		t.Errorf("stored %v, want /ok1 and /ok2", got)
	}
	if !strings.Contains(logs.String(), "dropped an accepted beacon the store refuses") {
		t.Errorf("no drop logged: %s", logs.String())
	}
	pos, err := st.TrafficInboxApplied(ctx, id)
	if err != nil || pos.Done != 0 || pos.Seq == 0 {
		t.Errorf("mark %+v %v: want past every group", pos, err)
	}
	start(t, st, WriterOptions{Logger: logs.Logger(hclog.Info)}).Close()
	if n := len(pageviews(t, st)); n != 2 {
		t.Errorf("after a restart: %d pageviews, want 2", n)
	}
}

// TestWhileTheStoreRefusesWritesTheInboxKeepsTheBeacons: while every write
// to the tables fails (the mark too), the applier keeps retrying instead of
// dropping; once the store takes writes again, every beacon is stored.
func TestWhileTheStoreRefusesWritesTheInboxKeepsTheBeacons(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	allow := refuse(t, st, "down", "BEFORE INSERT ON traffic_inbox_marks BEGIN SELECT RAISE(ABORT, 'disk full'); END")
	var logs testlog.Buffer
	w := start(t, st, WriterOptions{Logger: logs.Logger(hclog.Info)})
	defer w.Close()
	for i := range 3 {
		if _, err := w.Write(ctx, pageviewEvent(st, fmt.Sprint("s", i), "/p", "")); err != nil {
			t.Fatal(err)
		}
	}
	testwait.For(t, time.Minute, "the applier retrying the refused store", func() bool {
		return strings.Contains(logs.String(), "the store refuses traffic writes; retrying") || strings.Contains(logs.String(), "dropped")
	})
	if strings.Contains(logs.String(), "dropped") {
		t.Fatalf("a beacon was dropped while the store was down: %s", logs.String())
	}
	if n := len(pageviews(t, st)); n != 0 {
		t.Fatalf("%d pageviews stored while the store refused writes", n)
	}
	allow()
	if err := w.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(pageviews(t, st)); n != 3 {
		t.Errorf("%d pageviews after the store came back, want 3", n)
	}
	if strings.Contains(logs.String(), "dropped") {
		t.Errorf("a beacon was dropped: %s", logs.String())
	}
}

// TestBeaconsAcceptedAfterARestartAreNotTakenForAppliedOnes: a clean stop
// trims the inbox to nothing, so the next process's groups must still
// number past what the store marked applied, or a crash would lose them.
func TestBeaconsAcceptedAfterARestartAreNotTakenForAppliedOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	w := start(t, st, WriterOptions{})
	for i := range 3 {
		if _, err := w.Write(ctx, pageviewEvent(st, fmt.Sprint("s", i), "/before", "")); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	ib := openTestInbox(t, st)
	if _, err := ib.accept(ctx, []store.TrafficEvent{pageviewEvent(st, "late", "/after", "")}); err != nil {
		t.Fatal(err)
	}
	ib.file.Close() // killed before applying
	startAndStop(t, st)
	if got := pageviews(t, st); len(got) != 4 || got["late/after"].Path == "" {
		t.Errorf("stored %d pageviews, want the 3 before and the late one: %v", len(got), got)
	}
}

// TestOneProcessOwnsTheInbox: while one writer has the inbox, a second on
// the same data dir fails to start instead of appending beside it.
func TestOneProcessOwnsTheInbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	w := start(t, st, WriterOptions{})
	if w2, err := NewWriter(ctx, st, WriterOptions{}); err == nil {
		w2.Close()
		t.Fatal("a second writer opened the inbox another one holds")
	}
	w.Close()
	startAndStop(t, st) // once the first has closed
}

// TestAStartFailsWhileTheStoreRefusesTheReplay: a start does not hang on a
// store that refuses writes, and does not drop what the inbox holds: the
// next start, with the store back, stores it. Not parallel: it shortens
// replayPatience.
func TestAStartFailsWhileTheStoreRefusesTheReplay(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	ib := openTestInbox(t, st)
	if _, err := ib.accept(ctx, []store.TrafficEvent{pageviewEvent(st, "s1", "/p", "")}); err != nil {
		t.Fatal(err)
	}
	ib.file.Close()
	allow := refuse(t, st, "down", "BEFORE INSERT ON traffic_inbox_marks BEGIN SELECT RAISE(ABORT, 'disk full'); END")
	replayPatience = 300 * time.Millisecond
	defer func() { replayPatience = defaultReplayPatience }()
	if w, err := NewWriter(ctx, st, WriterOptions{}); err == nil {
		w.Close()
		t.Fatal("a start replayed into a store that refuses writes")
	}
	allow()
	startAndStop(t, st)
	if got := pageviews(t, st); len(got) != 1 {
		t.Errorf("stored %v, want the one beacon", got)
	}
}

// TestAnswersKnowSessionsStoredBeforeAStart: after a restart the view is
// empty; a later pageview of a session the store holds still answers with
// the visit's source (read from the store, whether or not the filter of
// stored sessions is built yet), and a new session starts its own visit.
func TestAnswersKnowSessionsStoredBeforeAStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.SQLite(t)
	w := start(t, st, WriterOptions{})
	for _, s := range []string{"early", "later"} {
		if _, err := w.Write(ctx, pageviewEvent(st, s, "/", "chatgpt")); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	w = start(t, st, WriterOptions{})
	defer w.Close()
	// The writer installs the built filter at its next batch: held back
	// here, the batch below runs as while the filter is building.
	b := <-w.inbox.built
	if b.err != nil || b.n != 2 {
		t.Fatalf("filter built over %d sessions (%v), want 2", b.n, b.err)
	}
	out, err := w.Write(ctx, pageviewEvent(st, "early", "/next", "perplexity"))
	if err != nil || out != (Outcome{Stored: true, Source: "chatgpt"}) {
		t.Errorf("early's second pageview: %+v %v, want the visit's source chatgpt", out, err)
	}
	// Handed over: the batches below go through the filter.
	w.inbox.built <- b
	out, err = w.Write(ctx, pageviewEvent(st, "later", "/next", "perplexity"))
	if err != nil || out != (Outcome{Stored: true, Source: "chatgpt"}) {
		t.Errorf("later's second pageview: %+v %v, want the visit's source chatgpt", out, err)
	}
	out, err = w.Write(ctx, pageviewEvent(st, "new", "/", "perplexity"))
	if err != nil || out != (Outcome{Stored: true, Source: "perplexity"}) {
		t.Errorf("a new session: %+v %v, want its own source", out, err)
	}
	out, err = w.Write(ctx, engagementEvent(st, "never", "/", 1000, 10))
	if err != nil || out.Stored {
		t.Errorf("an engagement of a session never seen: %+v %v, want not stored", out, err)
	}
}

// TestOutcomesFollowSessionizesRules: over random batches of pageviews,
// engagements and crawler hits across a few sessions, outcomes (what the
// inbox answers) and Sessionize (what the applier stores) give the same
// outcomes and leave the sessions in the same state, event ids aside.
func TestOutcomesFollowSessionizesRules(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	kinds := []store.TrafficKind{store.TrafficPageview, store.TrafficPageview, store.TrafficEngagement, store.TrafficEngagement, store.TrafficCrawler}
	sources := []string{"", "chatgpt", "perplexity"}
	paths := []string{"/", "/a", ""}
	for round := range 200 {
		stored := map[store.TrafficSessionKey]*store.TrafficSession{}
		answered := map[store.TrafficSessionKey]*store.TrafficSession{}
		for batch := range 1 + rng.IntN(4) {
			var events []store.TrafficEvent
			for range 1 + rng.IntN(12) {
				ev := store.TrafficEvent{SiteID: inboxSite, Kind: kinds[rng.IntN(len(kinds))], SessionID: fmt.Sprint("s", rng.IntN(4)),
					Path: paths[rng.IntN(len(paths))], Source: sources[rng.IntN(len(sources))], DurationMs: -1, ScrollDepth: -1,
					At: int64(1_700_000_000_000 + rng.IntN(1_000_000))}
				if ev.Kind == store.TrafficEngagement {
					ev.DurationMs, ev.ScrollDepth = int64(rng.IntN(20_000)), rng.IntN(101)-1
				}
				if ev.Kind == store.TrafficCrawler {
					ev.Bot = "GPTBot"
				}
				events = append(events, ev)
			}
			_, want, err := Sessionize(events, stored)
			if err != nil {
				t.Fatal(err)
			}
			got, err := outcomes(events, answered)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d batch %d: outcomes %+v, Sessionize %+v for %+v", round, batch, got, want, events)
			}
			for k, s := range stored {
				a := answered[k]
				if a == nil {
					t.Fatalf("round %d: session %v only in Sessionize's", round, k)
				}
				x, y := *s, *a
				x.LastEventID, y.LastEventID = "", ""
				if x != y {
					t.Fatalf("round %d batch %d: session %v\nSessionize %+v\noutcomes   %+v", round, batch, k, x, y)
				}
			}
			if len(answered) != len(stored) {
				t.Fatalf("round %d: %d sessions against %d", round, len(answered), len(stored))
			}
		}
	}
}
