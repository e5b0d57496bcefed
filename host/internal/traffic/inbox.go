package traffic

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
)

// inbox is the Writer's SQLite mode. A batch of beacons is answered once it
// is appended to the beacon inbox (store.TrafficInbox: one write to a log
// of its own, in the compact form of inbox_codec.go); an applier folds the appended groups
// into events, sessions and rollups behind it, many groups per transaction,
// and marks in that transaction how far it got. The answer's outcome (kept
// or ignored, the visit's AI source) comes from Sessionize's rules over a view of
// the sessions: the stored ones, and those changed by groups not applied
// yet, which the view keeps until they are.
//
// A restart replays the groups the store has not applied (openInbox), so
// an accepted beacon is stored exactly once. PostgreSQL/CockroachDB hosts
// commit directly instead (see Writer): there the inbox would be one host's
// disk.
type inbox struct {
	st    *store.Store
	file  *store.TrafficInbox
	log   hclog.Logger
	queue chan inboxGroup // appended, not yet applied, in order

	// view is the accepting goroutine's: session → its state after the
	// last accepted group that changed it, and that group's seq.
	view      map[store.TrafficSessionKey]viewed
	viewLimit int // sweep the view past this size
	// stored filters the sessions that may be in the store (every one
	// there, plus false positives): a session it does not hold needs no
	// read. nil while it is built; then every unseen session is read, and
	// the sessions accepted meanwhile wait in sinceBuild.
	stored             *bloom.BloomFilter
	storedCap, storedN uint
	building           bool
	sinceBuild         []store.TrafficSessionKey
	built              chan builtFilter
	payload            []byte // the accepting goroutine's encoding buffer
	key                []byte // and its filter key buffer

	mu       sync.Mutex
	accepted int64         // seq of the last group appended
	applied  int64         // seq of the last group applied
	progress chan struct{} // closed and replaced when applied moves
	trimmed  int64         // groups before this seq are trimmed

	maxApply int
	flush    chan struct{} // a Sync waits: apply what is queued now
	stop     chan struct{} // closed by Close: give up retrying a failing store
}

type builtFilter struct {
	f      *bloom.BloomFilter
	cap, n uint
	err    error
}

type viewed struct {
	s   store.TrafficSession
	seq int64
}

// inboxGroup is one appended group; first is the index in the group of
// events[0] (a replay skips the events the store already has).
type inboxGroup struct {
	seq    int64
	first  int
	events []store.TrafficEvent
}

const (
	// maxView bounds the session view: past it, sessions whose last group
	// is applied are dropped (the store has them).
	maxView = 100_000
	// trimEvery is how many applied groups wait before the inbox file is
	// trimmed, unless the applier is idle.
	trimEvery = 256
	// applyLinger is how long the applier lets groups gather before it
	// applies them, unless maxApply events are waiting or a Sync asks. No
	// sender waits for it (their beacons are durable in the inbox), and the
	// store's cost per event falls with the batch: 43 µs at 16 events, 21
	// at 256 (BenchmarkRecordTraffic).
	applyLinger = 100 * time.Millisecond
	// defaultReplayPatience is how long a start retries a store that
	// refuses the replay before it fails.
	defaultReplayPatience = time.Minute
	// eventTries is how often one event is tried alone before the applier
	// asks whether the store takes writes at all.
	eventTries = 3
)

// replayPatience is defaultReplayPatience; a test shortens it.
var replayPatience = defaultReplayPatience

// openInbox opens the beacon inbox and applies what an earlier process
// appended but did not apply.
func openInbox(ctx context.Context, st *store.Store, maxApply int, log hclog.Logger) (*inbox, error) {
	file, err := st.OpenTrafficInbox(ctx)
	if err != nil {
		return nil, err
	}
	ib := &inbox{st: st, file: file, log: log, queue: make(chan inboxGroup, 4096), view: map[store.TrafficSessionKey]viewed{}, viewLimit: maxView,
		progress: make(chan struct{}), maxApply: maxApply, flush: make(chan struct{}, 1), stop: make(chan struct{}),
		built: make(chan builtFilter, 1)}
	pos, groups, err := file.Pending(ctx, st)
	if err != nil {
		file.Close()
		return nil, err
	}
	var replay []inboxGroup
	n := 0
	for _, g := range groups {
		events, err := decodeEvents(g.Payload)
		if err != nil {
			file.Close()
			return nil, fmt.Errorf("beacon inbox group %d: %w", g.Seq, err)
		}
		first := 0
		if g.Seq == pos.Seq {
			first = min(pos.Done, len(events))
		}
		replay = append(replay, inboxGroup{seq: g.Seq, first: first, events: events[first:]})
		n += len(events) - first
	}
	if len(replay) > 0 {
		log.Info("replaying accepted beacons not yet stored", "groups", len(replay), "events", n)
		// A store that refuses writes fails the start after a while instead
		// of holding it forever; the inbox keeps the beacons.
		stop := ib.stop
		giveUp := time.AfterFunc(replayPatience, func() { close(stop) })
		defer func() {
			if !giveUp.Stop() {
				ib.stop = make(chan struct{})
			}
		}()
		for len(replay) > 0 {
			k, size := 0, 0
			for k < len(replay) && (k == 0 || size+len(replay[k].events) <= maxApply) {
				size += len(replay[k].events)
				k++
			}
			if !ib.apply(replay[:k]) {
				file.Close()
				return nil, fmt.Errorf("replay the beacon inbox: the store refuses writes")
			}
			replay = replay[k:]
		}
	}
	ib.accepted = ib.applied
	if err := ib.trim(); err != nil {
		file.Close()
		return nil, err
	}
	ib.buildFilter()
	return ib, nil
}

// buildFilter starts building the filter of stored sessions, sized for
// twice the sessions stored now (at least a million) at 1% false
// positives.
func (ib *inbox) buildFilter() {
	ib.stored, ib.building, ib.sinceBuild = nil, true, nil
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		n, err := ib.st.TrafficSessionCount(ctx)
		if err != nil {
			ib.built <- builtFilter{err: err}
			return
		}
		c := max(2*uint(n), 1<<20)
		f := bloom.NewWithEstimates(c, 0.01)
		var key []byte
		added, err := ib.st.TrafficSessionKeys(ctx, func(k store.TrafficSessionKey) {
			key = appendSessionKey(key[:0], k)
			f.Add(key)
		})
		ib.built <- builtFilter{f: f, cap: c, n: uint(added), err: err}
	}()
}

// appendSessionKey appends the filter's key of session k to dst; callers
// reuse dst, so a lookup allocates nothing.
func appendSessionKey(dst []byte, k store.TrafficSessionKey) []byte {
	dst = append(dst, k.SiteID...)
	dst = append(dst, 0)
	return append(dst, k.SessionID...)
}

// takeFilter installs a filter once built.
func (ib *inbox) takeFilter() {
	if !ib.building {
		return
	}
	select {
	case b := <-ib.built:
		ib.building = false
		if b.err != nil {
			ib.log.Warn("filter of stored traffic sessions failed; every new session is looked up", "error", b.err)
			ib.sinceBuild = nil
			return
		}
		ib.stored, ib.storedCap, ib.storedN = b.f, b.cap, b.n
		for _, k := range ib.sinceBuild {
			ib.remember(k)
		}
		ib.sinceBuild = nil
	default:
	}
}

// remember adds a session the inbox accepted to the filter of stored ones;
// past the filter's size it is rebuilt larger.
func (ib *inbox) remember(k store.TrafficSessionKey) {
	if ib.building {
		ib.sinceBuild = append(ib.sinceBuild, k)
		return
	}
	if ib.stored == nil {
		return
	}
	ib.key = appendSessionKey(ib.key[:0], k)
	ib.stored.Add(ib.key)
	ib.storedN++
	if ib.storedN > ib.storedCap {
		ib.buildFilter()
	}
}

// mayBeStored tells whether the store may hold session k.
func (ib *inbox) mayBeStored(k store.TrafficSessionKey) bool {
	if ib.stored == nil {
		return true
	}
	ib.key = appendSessionKey(ib.key[:0], k)
	return ib.stored.Test(ib.key)
}

// accept appends a batch to the inbox and returns its outcomes; nothing is
// accepted when it fails. Only the Writer's one worker calls it.
func (ib *inbox) accept(ctx context.Context, events []store.TrafficEvent) ([]Outcome, error) {
	ib.takeFilter()
	sessions := make(map[store.TrafficSessionKey]*store.TrafficSession, len(events))
	var unseen []store.TrafficEvent
	var absent []store.TrafficSessionKey // neither in the view nor, below, in the store
	for _, ev := range events {
		if ev.Kind == store.TrafficCrawler {
			continue
		}
		k := store.TrafficSessionKey{SiteID: ev.SiteID, SessionID: ev.SessionID}
		if _, ok := sessions[k]; ok {
			continue
		}
		if v, ok := ib.view[k]; ok {
			s := v.s // a copy: the view changes only once the group is appended
			sessions[k] = &s
			continue
		}
		sessions[k] = nil // not in the view: the store's, or none
		absent = append(absent, k)
		if ib.mayBeStored(k) {
			unseen = append(unseen, ev)
		}
	}
	var stored map[store.TrafficSessionKey]*store.TrafficSession
	if len(unseen) > 0 {
		var err error
		if stored, err = ib.st.TrafficSessions(ctx, unseen); err != nil {
			return nil, err
		}
	}
	absent = slices.DeleteFunc(absent, func(k store.TrafficSessionKey) bool {
		if s := stored[k]; s != nil {
			sessions[k] = s
			return true
		}
		delete(sessions, k)
		return false
	})
	out, err := outcomes(events, sessions)
	if err != nil {
		return nil, err
	}
	ib.payload = appendEvents(ib.payload[:0], events)
	seq, err := ib.file.Append(ctx, ib.payload)
	if err != nil {
		return nil, err
	}
	for k, s := range sessions {
		ib.view[k] = viewed{s: *s, seq: seq}
	}
	for _, k := range absent {
		if sessions[k] != nil { // a visit this group started
			ib.remember(k)
		}
	}
	// Queued before it counts as accepted, so a Sync that sees it also
	// finds it in the queue it flushes.
	ib.queue <- inboxGroup{seq: seq, events: events}
	ib.mu.Lock()
	ib.accepted = seq
	applied := ib.applied
	ib.mu.Unlock()
	if len(ib.view) > ib.viewLimit {
		for k, v := range ib.view {
			if v.seq <= applied {
				delete(ib.view, k)
			}
		}
		// While the applier is far behind, sweep again only once the view
		// has doubled.
		ib.viewLimit = max(maxView, 2*len(ib.view))
	}
	return out, nil
}

// run applies appended groups until the queue is closed: as many at once
// as arrive within applyLinger of the first, up to maxApply events, or at
// once when a Sync waits or the queue closes.
func (ib *inbox) run() {
	var batch []inboxGroup
	linger := time.NewTimer(applyLinger)
	for g := range ib.queue {
		batch = append(batch[:0], g)
		size := len(g.events)
		linger.Reset(applyLinger)
	gather:
		for size < ib.maxApply {
			select {
			case g, ok := <-ib.queue:
				if !ok {
					break gather
				}
				batch = append(batch, g)
				size += len(g.events)
			case <-ib.flush:
				// Take what is queued now, without waiting for more.
				for size < ib.maxApply && len(ib.queue) > 0 {
					g, ok := <-ib.queue
					if !ok {
						break
					}
					batch = append(batch, g)
					size += len(g.events)
				}
				break gather
			case <-linger.C:
				break gather
			}
		}
		if !ib.apply(batch) {
			// Closing with the store refusing writes: the inbox file keeps
			// the rest for the next start.
			for range ib.queue {
			}
			return
		}
		ib.mu.Lock()
		due := ib.applied-ib.trimmed >= trimEvery || len(ib.queue) == 0
		ib.mu.Unlock()
		if due {
			if err := ib.trim(); err != nil {
				ib.log.Warn("beacon inbox trim failed", "error", err)
			}
		}
	}
}

// apply stores groups in one transaction with their mark. A failed
// transaction is retried once, then event by event: an event the store
// refuses while it accepts the mark alone is dropped (logged); while the
// store refuses everything, apply backs off and retries, and returns false
// only once Close asked it to stop.
func (ib *inbox) apply(groups []inboxGroup) bool {
	var events []store.TrafficEvent
	for _, g := range groups {
		events = append(events, g.events...)
	}
	last := groups[len(groups)-1]
	mark := &store.TrafficInboxMark{InboxID: ib.file.ID(), Pos: store.TrafficInboxPos{Seq: last.seq + 1}}
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if _, err = record(ib.st, events, mark); err == nil {
			ib.advance(last.seq)
			return true
		}
	}
	ib.log.Warn("traffic batch failed; storing its events one by one", "events", len(events), "error", err)
	for _, g := range groups {
		for i, ev := range g.events {
			pos := store.TrafficInboxPos{Seq: g.seq, Done: g.first + i + 1}
			if i == len(g.events)-1 {
				pos = store.TrafficInboxPos{Seq: g.seq + 1}
			}
			m := &store.TrafficInboxMark{InboxID: ib.file.ID(), Pos: pos}
			for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
				err := ib.tryAlone(ev, m)
				if err == nil {
					break
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				merr := ib.st.MarkTrafficInbox(ctx, *m)
				cancel()
				if merr == nil {
					ib.log.Error("dropped an accepted beacon the store refuses", "site", ev.SiteID, "kind", ev.Kind, "error", err)
					break
				}
				ib.log.Warn("the store refuses traffic writes; retrying", "error", merr, "in", wait)
				select {
				case <-time.After(wait):
				case <-ib.stop:
					return false
				}
			}
		}
	}
	ib.advance(last.seq)
	return true
}

// tryAlone stores one event with its mark, a few times with short pauses
// (a passing lock), and returns the last error.
func (ib *inbox) tryAlone(ev store.TrafficEvent, m *store.TrafficInboxMark) error {
	var err error
	for try := range eventTries {
		if try > 0 {
			select {
			case <-time.After(time.Duration(try) * 100 * time.Millisecond):
			case <-ib.stop:
				return err
			}
		}
		if _, err = record(ib.st, []store.TrafficEvent{ev}, m); err == nil {
			return nil
		}
	}
	return err
}

func (ib *inbox) advance(seq int64) {
	ib.mu.Lock()
	ib.applied = seq
	close(ib.progress)
	ib.progress = make(chan struct{})
	ib.mu.Unlock()
}

func (ib *inbox) trim() error {
	ib.mu.Lock()
	upTo := ib.applied + 1
	ib.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ib.file.Trim(ctx, upTo); err != nil {
		return err
	}
	ib.mu.Lock()
	ib.trimmed = upTo
	ib.mu.Unlock()
	return nil
}

// sync returns once every group accepted before the call is applied.
func (ib *inbox) sync(ctx context.Context) error {
	ib.mu.Lock()
	target := ib.accepted
	if ib.applied < target {
		select {
		case ib.flush <- struct{}{}:
		default: // a flush is already asked for
		}
	}
	for ib.applied < target {
		ch := ib.progress
		ib.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		ib.mu.Lock()
	}
	ib.mu.Unlock()
	return nil
}
