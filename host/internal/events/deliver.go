package events

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/store"
)

// Backoff is the wait before each retry (Standard Webhooks' suggested
// schedule, stretched past three days so that a subscription failing that
// long is paused while its deliveries still retry): after the first
// failure 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h. A
// Retry-After longer than the step is honoured, up to 24 h.
var Backoff = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 10 * time.Hour, 24 * time.Hour, 24 * time.Hour}

// PauseAfter is how long a subscription's deliveries fail without one
// success before it is paused.
const PauseAfter = 72 * time.Hour

// maxRetryAfter bounds a receiver's Retry-After.
const maxRetryAfter = 24 * time.Hour

// DelivererOptions tune the deliverer; zero values are the defaults.
type DelivererOptions struct {
	// Host names this host in lease owners.
	Host string
	// Workers is how many claim loops run (default 4); each sends its
	// claim's deliveries at once.
	Workers int
	// Batch is the most deliveries one claim takes (default 16) when
	// little is due; while a backlog exists (a claim came back full) each
	// next claim takes twice as many, up to MaxBatch (default 128), so
	// the claim and the outcomes' transaction are shared by more
	// deliveries.
	Batch, MaxBatch int
	// Poll is the fallback look for due deliveries (default 1 s).
	Poll time.Duration
	// Lease is how long a claim holds a delivery (default 60 s): a host
	// that dies mid-send gives its deliveries back when it ends. An
	// attempt is given up at three quarters of it, so it never outlives
	// its claim.
	Lease time.Duration
	// Backoff replaces the retry schedule (tests).
	Backoff []time.Duration
	// PauseAfter replaces PauseAfter (tests).
	PauseAfter time.Duration
	// Wake carries wake-ups between hosts (Redis); nil: in-process only.
	Wake *RedisWake
}

// Deliverer sends due deliveries. Start it once per host.
type Deliverer struct {
	svc  *Service
	opt  DelivererOptions
	log  hclog.Logger
	mu   sync.Mutex
	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
	ctx  context.Context
	end  context.CancelFunc
}

// NewDeliverer returns the deliverer of svc's subscriptions.
func NewDeliverer(svc *Service, opt DelivererOptions) *Deliverer {
	if opt.Workers <= 0 {
		opt.Workers = 4
	}
	if opt.Batch <= 0 {
		opt.Batch = 16
	}
	if opt.MaxBatch < opt.Batch {
		opt.MaxBatch = max(opt.Batch, 128)
	}
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	if opt.Lease <= 0 {
		opt.Lease = time.Minute
	}
	if opt.Backoff == nil {
		opt.Backoff = Backoff
	}
	if opt.PauseAfter <= 0 {
		opt.PauseAfter = PauseAfter
	}
	if opt.Host == "" {
		opt.Host = "host"
	}
	return &Deliverer{svc: svc, opt: opt, log: svc.log.Named("deliverer"), wake: make(chan struct{})}
}

// Wake makes idle workers look for due deliveries now.
func (d *Deliverer) Wake() {
	d.mu.Lock()
	close(d.wake)
	d.wake = make(chan struct{})
	d.mu.Unlock()
}

func (d *Deliverer) woken() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.wake
}

// Start runs the workers and subscribes to the store's commits of events
// (and to other hosts' wake-ups).
func (d *Deliverer) Start(context.Context) error {
	d.ctx, d.end = context.WithCancel(context.Background())
	d.stop = make(chan struct{})
	d.svc.store.SetEventNotifier(func() {
		d.Wake()
		d.opt.Wake.publish()
	})
	if d.opt.Wake != nil {
		d.opt.Wake.start(d.Wake)
	}
	for i := 0; i < d.opt.Workers; i++ {
		d.wg.Add(1)
		go d.work()
	}
	return nil
}

// Stop ends the workers after their current attempt (or when ctx ends,
// cancelling it: the lease gives the delivery back).
func (d *Deliverer) Stop(ctx context.Context) error {
	if d.stop == nil {
		return nil
	}
	d.svc.store.SetEventNotifier(nil)
	close(d.stop)
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.end()
		<-done
	}
	d.end()
	d.opt.Wake.close()
	return nil
}

func (d *Deliverer) work() {
	defer d.wg.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	batch := d.opt.Batch
	for {
		woken := d.woken()
		n, err := d.DeliverOnce(d.ctx, batch)
		if err != nil && d.ctx.Err() == nil {
			d.log.Warn("delivering events failed", "error", err)
		}
		if n >= batch {
			batch = min(2*batch, d.opt.MaxBatch) // a backlog: claim more at once
		} else {
			batch = d.opt.Batch
		}
		if n > 0 {
			select {
			case <-d.stop:
				return
			default:
				continue
			}
		}
		timer.Reset(d.opt.Poll)
		select {
		case <-d.stop:
			return
		case <-woken:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// DeliverOnce claims up to n due deliveries, sends them at once and records
// the outcomes in one transaction; it returns how many it sent.
func (d *Deliverer) DeliverOnce(ctx context.Context, n int) (int, error) {
	st := d.svc.store
	owner := d.opt.Host + ":" + store.NewID()
	claimed, err := st.ClaimEventDeliveries(ctx, owner, st.Now()+d.opt.Lease.Milliseconds(), n)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	results := make([]store.DeliveryResult, len(claimed))
	var wg sync.WaitGroup
	for i, c := range claimed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			actx, cancel := context.WithTimeout(ctx, d.opt.Lease*3/4)
			defer cancel()
			results[i] = store.DeliveryResult{Claimed: c, Outcome: d.outcome(c, d.attempt(actx, c))}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return len(claimed), nil // shutting down: the leases hand them back
	}
	if err := st.FinishEventDeliveries(context.WithoutCancel(ctx), results); err != nil {
		return len(claimed), fmt.Errorf("record deliveries: %w", err)
	}
	for _, r := range results {
		if !r.Owned {
			d.log.Warn("a delivery's lease ended before its outcome was recorded", "delivery", r.Claimed.ID)
		}
		if r.Paused {
			d.log.Warn("event subscription paused", "subscription", r.Claimed.SubscriptionID, "url", r.Claimed.DisplayURL, "reason", r.Outcome.PauseReason)
		}
	}
	return len(claimed), nil
}

// attempt sends c once.
func (d *Deliverer) attempt(ctx context.Context, c store.ClaimedDelivery) attempt {
	sec, err := d.svc.open(store.EventSubscription{ID: c.SubscriptionID, WorkspaceID: c.WorkspaceID, Sealed: c.Sealed})
	if err != nil {
		d.log.Error("open event subscription", "subscription", c.SubscriptionID, "error", err)
		return attempt{Err: "the subscription's URL cannot be opened (was HERALD_SECRET_KEY changed?)"}
	}
	m := message{ID: c.ID, Type: c.EventType, Data: c.Data, Link: c.Link, At: time.UnixMilli(c.EventAt), Format: c.Format, URL: sec.URL}
	m.Secrets = signingSecrets(sec, c.PreviousUntil, d.svc.store.Now())
	return d.svc.sender.send(ctx, m)
}

// signingSecrets are the secrets that sign now: the current one, and the
// previous one until its overlap ends.
func signingSecrets(sec secrets, previousUntil *int64, now int64) []string {
	out := []string{sec.Secret}
	if sec.Previous != "" && previousUntil != nil && now < *previousUntil {
		out = append(out, sec.Previous)
	}
	return out
}

// outcome is the recorded end of attempt a of c: delivered, a retry after
// the backoff step (or the receiver's longer Retry-After), or failed when
// the steps ran out.
func (d *Deliverer) outcome(c store.ClaimedDelivery, a attempt) store.DeliveryOutcome {
	o := store.DeliveryOutcome{State: store.DeliveryDelivered}
	if a.Code != 0 {
		code := a.Code
		o.ResponseCode = &code
	}
	if a.ok() {
		return o
	}
	msg := a.Err
	o.Error = &msg
	o.PauseAfterMs = d.opt.PauseAfter.Milliseconds()
	o.PauseReason = fmt.Sprintf("deliveries failed for %s without a success; last: %s", d.opt.PauseAfter, msg)
	step := c.Attempts - 1
	if step >= len(d.opt.Backoff) {
		o.State = store.DeliveryFailed
		return o
	}
	wait := d.opt.Backoff[step]
	if ra := min(a.RetryAfter, maxRetryAfter); ra > wait {
		wait = ra
	}
	next := d.svc.store.Now() + wait.Milliseconds()
	o.State, o.NextAttemptAt = store.DeliveryPending, &next
	return o
}
