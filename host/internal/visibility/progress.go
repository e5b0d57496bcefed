package visibility

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
)

// progressEvery is the least time between two writes of a report's
// progress: a report's answers finish many a second, and each write is a
// statement on the job's row.
const progressEvery = time.Second

// progressWriter returns report, called once per answer done, and stop,
// which ends the writer. One goroutine writes the latest count (never an
// older one after a newer, so progress never goes backwards), at most once
// per progressEvery; the count of the last answer is written within
// progressEvery of it. A write that finds the lease lost cancels ctx with
// jobs.ErrLeaseLost, as the heartbeat does. stop writes the last count
// if it is not written yet.
func (s *Service) progressWriter(ctx context.Context, cancel context.CancelCauseFunc, job *jobs.Job, reportID string, done, planned int) (report func(), stop func()) {
	var (
		mu    sync.Mutex
		count = done
	)
	kick := make(chan struct{}, 1)
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		written := -1
		write := func() bool {
			mu.Lock()
			n := count
			mu.Unlock()
			if n == written || ctx.Err() != nil {
				return true
			}
			err := job.Progress(ctx, n*100/planned, progress{ReportID: reportID, AnswersDone: n, AnswersPlanned: planned})
			if errors.Is(err, jobs.ErrLeaseLost) {
				cancel(err)
				return false
			}
			written = n
			return true
		}
		for {
			select {
			case <-kick:
			case <-quit:
				write() // the last count, before the report completes
				return
			case <-ctx.Done():
				return
			}
			if !write() {
				return
			}
			t := time.NewTimer(progressEvery)
			select {
			case <-t.C:
			case <-quit:
				t.Stop()
				write()
				return
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
	}()
	report = func() {
		mu.Lock()
		count++
		mu.Unlock()
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	var once sync.Once
	stop = func() {
		once.Do(func() { close(quit) })
		<-finished
	}
	return report, stop
}
