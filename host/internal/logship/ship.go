package logship

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Options configure a Shipper.
type Options struct {
	// File is the access log to follow; State the file that remembers the
	// position in it.
	File, State string
	// FromStart ships what the file already holds on a first start
	// (without a saved position); otherwise shipping starts at its end.
	FromStart bool
	// Format is "auto", "text" or "ndjson" (see ContentType).
	Format string
	// BatchLines and BatchBytes cap a batch; BatchWait is how long the
	// first line of a batch waits for more before the batch goes.
	BatchLines, BatchBytes int
	BatchWait              time.Duration
	// Poll is how often the file is looked at when nothing new was written.
	Poll time.Duration
	// Once ships what is written now and returns, instead of following.
	Once bool
	// MaxBackoff caps the wait between retries of a failing batch.
	MaxBackoff time.Duration
}

// Shipper follows one log file and posts its lines.
type Shipper struct {
	opts   Options
	client *Client
	log    hclog.Logger
	// sleep waits d or until ctx ends; tests replace it to see the waits.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

// New returns a shipper; zero options get their defaults.
func New(opts Options, client *Client, log hclog.Logger) *Shipper {
	if opts.BatchLines <= 0 || opts.BatchLines > MaxLines {
		opts.BatchLines = 1000
	}
	if opts.BatchBytes <= 0 || opts.BatchBytes > MaxBytes {
		opts.BatchBytes = 4 << 20
	}
	if opts.BatchWait <= 0 {
		opts.BatchWait = 5 * time.Second
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 5 * time.Minute
	}
	if opts.Format == "" {
		opts.Format = "auto"
	}
	return &Shipper{opts: opts, client: client, log: log, sleep: sleepCtx, now: time.Now}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Run ships until ctx ends (or, with Once, until the end of the file). A
// batch's position is saved only once Herald has answered 200 for it, so
// after a restart shipping resumes after the last batch Herald took.
func (s *Shipper) Run(ctx context.Context) error {
	saved, err := LoadState(s.opts.State, s.opts.File)
	if err != nil {
		return err
	}
	t, err := Open(s.opts.File, saved, s.opts.FromStart)
	if err != nil {
		return err
	}
	defer t.Close()
	if saved == nil {
		// Remember where a first start began, so that a restart before the
		// first batch does not skip what was written in between.
		if err := SaveState(s.opts.State, s.opts.File, t.Position()); err != nil {
			return err
		}
	}
	var batch []string
	var size int
	var first time.Time
	for {
		lines, atEnd, err := t.Next(s.opts.BatchLines-len(batch), s.opts.BatchBytes-size)
		if err != nil {
			return err
		}
		if len(batch) == 0 && len(lines) > 0 {
			first = s.now()
		}
		for _, l := range lines {
			size += len(l) + 1
		}
		batch = append(batch, lines...)
		// Next stops short of the end only when the batch is full (the caps,
		// or a next line that would not fit).
		full := !atEnd || len(batch) >= s.opts.BatchLines || size >= s.opts.BatchBytes
		due := len(batch) > 0 && (full || s.opts.Once && atEnd || s.now().Sub(first) >= s.opts.BatchWait)
		if due {
			if err := s.send(ctx, batch); err != nil {
				if ctx.Err() != nil {
					return nil // stopped: the batch goes again after a restart
				}
				return err
			}
			if err := SaveState(s.opts.State, s.opts.File, t.Position()); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			batch, size = batch[:0], 0
			continue
		}
		if atEnd {
			if s.opts.Once && len(batch) == 0 {
				return SaveState(s.opts.State, s.opts.File, t.Position())
			}
			if err := s.sleep(ctx, s.opts.Poll); err != nil {
				return nil
			}
		}
	}
}

// send posts one batch until Herald takes it: a temporary failure (the
// network, a server error, 429 over the daily cap) is retried after the
// answer's Retry-After or else an exponential backoff with jitter; any
// other answer (401 bad secret, 400, 413) stops the shipper with it.
func (s *Shipper) send(ctx context.Context, batch []string) error {
	ct := ContentType(s.opts.Format, batch)
	backoff := time.Second
	for attempt := 1; ; attempt++ {
		res, err := s.post(ctx, ct, batch)
		if err == nil {
			if res.Rejected > 0 {
				s.log.Warn("lines rejected", "lines", len(batch), "accepted", res.Accepted, "rejected", res.Rejected, "reasons", res.Reasons)
			} else {
				s.log.Info("shipped", "lines", len(batch), "accepted", res.Accepted)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait := backoff + rand.N(backoff/2+1)
		var se *StatusError
		if errors.As(err, &se) {
			if !se.Temporary() {
				return fmt.Errorf("batch of %d lines refused: %w", len(batch), err)
			}
			if se.RetryAfter > 0 {
				wait = se.RetryAfter
			}
		}
		s.log.Warn("batch not taken, retrying", "lines", len(batch), "attempt", attempt, "wait", wait, "error", err)
		if err := s.sleep(ctx, wait); err != nil {
			return err
		}
		if backoff *= 2; backoff > s.opts.MaxBackoff {
			backoff = s.opts.MaxBackoff
		}
	}
}

// stopGrace is how long a batch already under way may take to be answered
// once the shipper is told to stop: Herald may have stored it, and an
// answer saves the position, so a restart does not send it again.
const stopGrace = 5 * time.Second

// post is one attempt; a stop (ctx ending) leaves it stopGrace to finish.
func (s *Shipper) post(ctx context.Context, ct string, batch []string) (Result, error) {
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			cancel()
		}
	}()
	return s.client.Post(pctx, ct, batch)
}
