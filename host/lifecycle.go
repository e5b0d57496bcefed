package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
)

// lifecycle is background work that serve starts and stops.
type lifecycle interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// part is one named lifecycle of serve's ordered list.
type part struct {
	name string
	lifecycle
}

// funcs adapts start and stop functions without a context or an error
// (nil start: nothing to start).
type funcs struct{ start, stop func() }

func (f funcs) Start(context.Context) error {
	if f.start != nil {
		f.start()
	}
	return nil
}

func (f funcs) Stop(context.Context) error {
	if f.stop != nil {
		f.stop()
	}
	return nil
}

// startAll starts parts in order. If one fails, the started ones are
// stopped in reverse order (with stopCtx) and its error is returned.
// stop stops every started part in reverse order, each even when an
// earlier one failed, and returns their errors joined.
func startAll(ctx context.Context, log hclog.Logger, parts []part, stopCtx func() (context.Context, context.CancelFunc)) (stop func(context.Context) error, err error) {
	var started []part
	stop = func(ctx context.Context) error {
		var errs []error
		for i := len(started) - 1; i >= 0; i-- {
			p := started[i]
			log.Debug("stopping", "part", p.name)
			if err := p.Stop(ctx); err != nil {
				errs = append(errs, fmt.Errorf("stop %s: %w", p.name, err))
			}
		}
		started = nil
		return errors.Join(errs...)
	}
	for _, p := range parts {
		log.Debug("starting", "part", p.name)
		if err := p.Start(ctx); err != nil {
			sctx, cancel := stopCtx()
			defer cancel()
			return nil, errors.Join(fmt.Errorf("start %s: %w", p.name, err), stop(sctx))
		}
		started = append(started, p)
	}
	return stop, nil
}
