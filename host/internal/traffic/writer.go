package traffic

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
)

// ErrWriterClosed is returned by Writer.Write after Close.
var ErrWriterClosed = errors.New("traffic writer is closed")

// WriterOptions tune a Writer; zero values take the defaults.
type WriterOptions struct {
	// Workers is the number of batches committed at once. Default: 1 on
	// SQLite (one writer connection; batches grow while it commits), 4 on
	// PostgreSQL/CockroachDB.
	Workers int
	// MaxBatch caps the events of one transaction. Default 1000.
	MaxBatch int
	// Queue is the capacity of the pending-event queue. Default 8192.
	Queue int
	// Logger receives batch failures. Default: discard.
	Logger hclog.Logger
	// Direct commits every batch to the store before answering on SQLite
	// too, instead of through the beacon inbox; benchmarks compare the two.
	Direct bool
}

// Writer stores traffic events with group commit: every event waits for
// the transaction that makes it durable, and the events that arrive while
// one transaction commits go together into the next. A beacon is answered
// only after its event is durable, yet the store sees one transaction per
// batch instead of one per beacon.
//
// On SQLite the durable transaction is an append to the beacon inbox, and
// the events reach the tables stats read shortly after (see inbox; Sync
// waits for them). On PostgreSQL/CockroachDB, and with
// WriterOptions.Direct, it is the transaction that writes the tables.
type Writer struct {
	st    *store.Store
	opts  WriterOptions
	in    chan *pendingWrite
	inbox *inbox // nil when direct

	mu     sync.RWMutex // held for reading while sending on in
	closed bool
	wg     sync.WaitGroup
}

type pendingWrite struct {
	ev   store.TrafficEvent
	done chan writeResult
}

type writeResult struct {
	out Outcome
	err error
}

// NewWriter returns a started Writer; call Close to drain and stop it. On
// SQLite it first stores the beacons an earlier process accepted into the
// inbox but did not apply.
func NewWriter(ctx context.Context, st *store.Store, opts WriterOptions) (*Writer, error) {
	if opts.Workers <= 0 {
		opts.Workers = 1
		if st.Dialect == store.Postgres {
			opts.Workers = 4
		}
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 1000
	}
	// A batch is one inbox group, whose events a mark counts.
	opts.MaxBatch = min(opts.MaxBatch, store.MaxInboxGroup)
	if opts.Queue <= 0 {
		opts.Queue = 8192
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	w := &Writer{st: st, opts: opts, in: make(chan *pendingWrite, opts.Queue)}
	if st.Dialect == store.SQLite && !opts.Direct {
		ib, err := openInbox(ctx, st, opts.MaxBatch, opts.Logger)
		if err != nil {
			return nil, err
		}
		w.inbox = ib
		w.opts.Workers = 1 // one appender keeps the inbox's order and view
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			ib.run()
		}()
	}
	for i := 0; i < w.opts.Workers; i++ {
		w.wg.Add(1)
		go w.work()
	}
	return w, nil
}

// Sync returns once every beacon accepted before the call is in the tables
// stats read (at once when there is no inbox), or when ctx ends.
func (w *Writer) Sync(ctx context.Context) error {
	if w.inbox == nil {
		return nil
	}
	return w.inbox.sync(ctx)
}

// Write stores ev and returns once it is committed, or with the error that
// kept it from being stored. When ctx ends first, the event may still be
// stored.
func (w *Writer) Write(ctx context.Context, ev store.TrafficEvent) (Outcome, error) {
	p := &pendingWrite{ev: storable(ev), done: make(chan writeResult, 1)}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return Outcome{}, ErrWriterClosed
	}
	select {
	case w.in <- p:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return Outcome{}, ctx.Err()
	}
	select {
	case r := <-p.done:
		return r.out, r.err
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// Close stops accepting events, commits every event already accepted and
// returns when the workers are done. Call it after the HTTP server has shut
// down.
func (w *Writer) Close() {
	w.mu.Lock()
	first := !w.closed
	if first {
		w.closed = true
		close(w.in)
	}
	w.mu.Unlock()
	done := make(chan struct{})
	go func() {
		w.wg.Wait()
		close(done)
	}()
	if first && w.inbox != nil {
		// Applying what is queued may outlast a store that refuses writes:
		// give it a while, then leave the rest in the inbox for the next
		// start.
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			close(w.inbox.stop)
		}
	}
	<-done
	if first && w.inbox != nil {
		if err := w.inbox.trim(); err != nil {
			w.opts.Logger.Warn("beacon inbox trim failed", "error", err)
		}
		w.inbox.file.Close()
	}
}

func (w *Writer) work() {
	defer w.wg.Done()
	if w.inbox != nil {
		defer close(w.inbox.queue)
	}
	batch := make([]*pendingWrite, 0, w.opts.MaxBatch)
	for first := range w.in {
		batch = append(batch[:0], first)
		batch = w.fill(batch)
		if w.inbox != nil {
			w.accept(batch)
		} else {
			w.commit(batch)
		}
	}
}

// accept appends a batch to the inbox and answers it.
func (w *Writer) accept(batch []*pendingWrite) {
	events := eventsOf(batch)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := w.inbox.accept(ctx, events)
	if err != nil {
		w.opts.Logger.Warn("beacon inbox append failed", "events", len(batch), "error", err)
	}
	for i, p := range batch {
		if err != nil {
			p.done <- writeResult{err: err}
			continue
		}
		p.done <- writeResult{out: out[i]}
	}
}

// fillRounds caps how often fill yields to let more events arrive.
const fillRounds = 16

// fill adds queued events to batch up to MaxBatch. While events keep
// arriving it yields the processor so that request goroutines that are
// about to enqueue can do so: the cost of a transaction hardly depends on
// its size (BEGIN, COMMIT, one statement per table, one rollup row per page
// however many events hit it), so a few larger batches beat many of one to
// four events (BenchmarkCollectVsBare: 4.4 events per batch on average
// without the yields, 13 with them). An idle writer does not wait: when a
// yield brings nothing, the batch goes as it is.
func (w *Writer) fill(batch []*pendingWrite) []*pendingWrite {
	for round := 0; round < fillRounds; round++ {
		n := len(batch)
	drain:
		for len(batch) < w.opts.MaxBatch {
			select {
			case p, ok := <-w.in:
				if !ok {
					return batch
				}
				batch = append(batch, p)
			default:
				break drain
			}
		}
		if len(batch) >= w.opts.MaxBatch || (round > 0 && len(batch) == n) {
			return batch
		}
		runtime.Gosched()
	}
	return batch
}

// commit stores a batch. A failed batch is retried once (a session created
// by another host at the same moment conflicts once, then is found), then
// event by event so that one bad event fails alone.
func (w *Writer) commit(batch []*pendingWrite) {
	events := eventsOf(batch)
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var out []Outcome
		out, err = record(w.st, events, nil)
		if err == nil {
			for i, p := range batch {
				p.done <- writeResult{out: out[i]}
			}
			return
		}
	}
	w.opts.Logger.Warn("traffic batch failed; storing its events one by one", "events", len(batch), "error", err)
	for _, p := range batch {
		out, err := record(w.st, []store.TrafficEvent{p.ev}, nil)
		if err != nil {
			p.done <- writeResult{err: err}
			continue
		}
		p.done <- writeResult{out: out[0]}
	}
}

func eventsOf(batch []*pendingWrite) []store.TrafficEvent {
	events := make([]store.TrafficEvent, len(batch))
	for i, p := range batch {
		events[i] = p.ev
	}
	return events
}

// record stores events, with the inbox mark when given. Not the request's
// context: the batch serves many requests, and an accepted event must be
// stored even if its sender hung up.
func record(st *store.Store, events []store.TrafficEvent, mark *store.TrafficInboxMark) ([]Outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return recordMarked(ctx, st, events, mark)
}

// storable strips NUL bytes, which PostgreSQL and CockroachDB refuse in
// TEXT, from every string of ev: one poisoned event must not fail the
// group commit of the batch it shares with others.
func storable(ev store.TrafficEvent) store.TrafficEvent {
	for _, f := range []*string{&ev.SiteID, &ev.SessionID, &ev.Path, &ev.Title, &ev.Referrer, &ev.Source, &ev.Bot,
		&ev.UTMSource, &ev.UTMMedium, &ev.UTMCampaign, &ev.UserAgent} {
		*f = stripNUL(*f)
	}
	return ev
}

// stripNUL removes NUL bytes; it allocates only when there is one.
func stripNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}
