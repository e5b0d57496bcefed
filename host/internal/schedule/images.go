package schedule

import (
	"context"
	"sync"
	"time"
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

// ImageSweeper runs SweepImages every interval until stopped.
type ImageSweeper struct {
	svc             *Service
	grace, interval time.Duration
	stop            chan struct{}
	done            sync.WaitGroup
}

// NewImageSweeper returns a sweeper of svc's images older than grace.
func NewImageSweeper(svc *Service, grace, interval time.Duration) *ImageSweeper {
	return &ImageSweeper{svc: svc, grace: grace, interval: interval, stop: make(chan struct{})}
}

// Start begins sweeping in the background.
func (w *ImageSweeper) Start() {
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(w.interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				if n, err := w.svc.SweepImages(context.Background(), w.grace); err != nil {
					w.svc.log.Warn("sweep schedule images", "error", err)
				} else if n > 0 {
					w.svc.log.Info("swept schedule images", "deleted", n)
				}
			}
		}
	}()
}

// Stop ends sweeping and waits for a running sweep.
func (w *ImageSweeper) Stop() {
	close(w.stop)
	w.done.Wait()
}
