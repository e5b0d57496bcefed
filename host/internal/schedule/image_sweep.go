package schedule

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// blobDeleter is the optional capability of a blob store to delete
// objects (blob.FS and blob.DB have it).
type blobDeleter interface {
	Delete(ctx context.Context, key string) error
}

// dropImage deletes a schedule image that no live schedule needs, at once
// (a refused create, a removed draft); the sweeper retries what fails.
func (s *Service) dropImage(ctx context.Context, key string) {
	needed, err := s.store.ScheduleImageNeeded(ctx, key)
	if err != nil || needed {
		return
	}
	d, ok := s.blobs.(blobDeleter)
	if !ok {
		return
	}
	if err := d.Delete(ctx, key); err != nil {
		s.log.Warn("delete schedule image", "key", key, "error", err)
		return
	}
	if err := s.store.ForgetScheduleImage(ctx, key); err != nil {
		s.log.Warn("forget schedule image", "key", key, "error", err)
	}
}

// SweepImages deletes the tracked schedule images older than grace that no
// schedule needs (cancelled posts, and anything a crash left behind) and
// returns how many it deleted.
func (s *Service) SweepImages(ctx context.Context, grace time.Duration) (int, error) {
	d, ok := s.blobs.(blobDeleter)
	if !ok {
		return 0, nil
	}
	keys, err := s.store.UnneededScheduleImages(ctx, s.store.Now()-grace.Milliseconds(), 500)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		if err := d.Delete(ctx, k); err != nil {
			s.log.Warn("sweep schedule image", "key", k, "error", err)
			continue
		}
		if err := s.store.ForgetScheduleImage(ctx, k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// ImageSweeperDeps are what an ImageSweeper works with.
type ImageSweeperDeps struct {
	// Images sweeps (*Service implements it).
	Images interface {
		SweepImages(ctx context.Context, grace time.Duration) (int, error)
	}
	// Grace is how old an unneeded image must be; Interval how often to sweep.
	Grace, Interval time.Duration
	Logger          hclog.Logger
}

// ImageSweeper runs SweepImages every interval until stopped.
type ImageSweeper struct {
	d    ImageSweeperDeps
	stop chan struct{}
	done sync.WaitGroup
}

// NewImageSweeper returns a sweeper of d.Images older than d.Grace.
func NewImageSweeper(d ImageSweeperDeps) (*ImageSweeper, error) {
	if d.Images == nil || d.Interval <= 0 {
		return nil, errors.New("schedule: the image sweeper needs Images and a positive Interval")
	}
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	return &ImageSweeper{d: d, stop: make(chan struct{})}, nil
}

// Start begins sweeping in the background.
func (w *ImageSweeper) Start(context.Context) error {
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(w.d.Interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				if n, err := w.d.Images.SweepImages(context.Background(), w.d.Grace); err != nil {
					w.d.Logger.Warn("sweep schedule images", "error", err)
				} else if n > 0 {
					w.d.Logger.Info("swept schedule images", "deleted", n)
				}
			}
		}
	}()
	return nil
}

// Stop ends sweeping and waits for a running sweep, or for ctx.
func (w *ImageSweeper) Stop(ctx context.Context) error {
	close(w.stop)
	done := make(chan struct{})
	go func() {
		w.done.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
