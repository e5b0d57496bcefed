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
}

// Writer stores traffic events with group commit: every event waits for
// the transaction that stores it, and the events that arrive while one
// transaction commits go together into the next. A beacon is answered only
// after its event is durable, yet the store sees one transaction per batch
// instead of one per beacon.
type Writer struct {
	st   *store.Store
	opts WriterOptions
	in   chan *pendingWrite

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

// NewWriter returns a started Writer; call Close to drain and stop it.
func NewWriter(st *store.Store, opts WriterOptions) *Writer {
	if opts.Workers <= 0 {
		opts.Workers = 1
		if st.Dialect == store.Postgres {
			opts.Workers = 4
		}
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 1000
	}
	if opts.Queue <= 0 {
		opts.Queue = 8192
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	w := &Writer{st: st, opts: opts, in: make(chan *pendingWrite, opts.Queue)}
	for i := 0; i < opts.Workers; i++ {
		w.wg.Add(1)
		go w.work()
	}
	return w
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
	if !w.closed {
		w.closed = true
		close(w.in)
	}
	w.mu.Unlock()
	w.wg.Wait()
}

func (w *Writer) work() {
	defer w.wg.Done()
	batch := make([]*pendingWrite, 0, w.opts.MaxBatch)
	for first := range w.in {
		batch = append(batch[:0], first)
		batch = w.fill(batch)
		w.commit(batch)
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
	events := make([]store.TrafficEvent, len(batch))
	for i, p := range batch {
		events[i] = p.ev
	}
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var out []Outcome
		out, err = w.record(events)
		if err == nil {
			for i, p := range batch {
				p.done <- writeResult{out: out[i]}
			}
			return
		}
	}
	w.opts.Logger.Warn("traffic batch failed; storing its events one by one", "events", len(batch), "error", err)
	for _, p := range batch {
		out, err := w.record([]store.TrafficEvent{p.ev})
		if err != nil {
			p.done <- writeResult{err: err}
			continue
		}
		p.done <- writeResult{out: out[0]}
	}
}

func (w *Writer) record(events []store.TrafficEvent) ([]Outcome, error) {
	// Not the request's context: the batch serves many requests, and an
	// accepted event must be stored even if its sender hung up.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Record(ctx, w.st, events)
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
