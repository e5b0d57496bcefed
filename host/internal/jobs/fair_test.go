package jobs_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// stealLease makes the job's lease another worker's, as a rescue followed by
// a claim elsewhere would.
func stealLease(t *testing.T, s *store.Store, id string) {
	t.Helper()
	if n, err := storetest.Exec(context.Background(), s, `UPDATE jobs SET lease_owner = 'thief' WHERE id = $1`, id); err != nil || n != 1 {
		t.Fatalf("steal lease: %d %v", n, err)
	}
}

func TestLostLeaseCancelsTheHandler(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		for _, via := range []string{"heartbeat", "progress"} {
			t.Run(via, func(t *testing.T) {
				b := setup(t, s)
				// The heartbeat runs every Lease/3; through progress, the
				// lease is long so that only Progress can see it lost.
				lease := 600 * time.Millisecond
				if via == "progress" {
					lease = time.Minute
				}
				q := b.queue(t, func(o *jobs.Options) { o.Lease = lease })
				started := make(chan string, 1)
				stolen := make(chan struct{})
				causes := make(chan error, 1)
				q.Register("long", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
					started <- j.ID
					<-stolen
					if via == "progress" {
						if err := j.Progress(ctx, 10, nil); !errors.Is(err, jobs.ErrLeaseLost) {
							t.Errorf("progress after the lease was lost: %v, want ErrLeaseLost", err)
						}
						// Progress cancelled the handler as it found out.
						if ctx.Err() == nil {
							t.Error("progress found the lease lost and left the handler running")
						}
					}
					select {
					case <-ctx.Done():
						causes <- context.Cause(ctx)
					case <-time.After(20 * time.Second):
						causes <- errors.New("the handler's context was never cancelled")
					}
					if via == "heartbeat" {
						// The heartbeat cancelled the context first: Progress
						// fails with the cause, not with the cancellation.
						if err := j.Progress(ctx, 10, nil); !errors.Is(err, jobs.ErrLeaseLost) {
							t.Errorf("progress after the heartbeat lost the lease: %v, want ErrLeaseLost", err)
						}
					}
					return nil, ctx.Err()
				}), jobs.HandlerOptions{MaxAttempts: 1})
				start(t, q)
				id := enqueue(t, q, jobs.NewJob{Name: "long"})
				<-started
				stealLease(t, b.store, id)
				close(stolen)
				if cause := <-causes; !errors.Is(cause, jobs.ErrLeaseLost) {
					t.Fatalf("handler context cause: %v, want ErrLeaseLost", cause)
				}
				// The outcome of the lost attempt is not recorded over the new owner's.
				j, err := jobstore.New(b.store).GetJob(context.Background(), ws, id)
				if err != nil || j.State != store.JobActive || str(j.LeaseOwner) != "thief" {
					t.Fatalf("job after the lost attempt: %+v %v", j, err)
				}
			})
		}
	})
}

func TestEnqueueBeyondTheQueuedCapFails(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		q := b.queue(t, func(o *jobs.Options) {
			o.Caps = jobstore.JobCaps{Default: jobstore.JobCap{Queued: 2}}
			o.CapRetryAfter = 7 * time.Second
		})
		enqueue(t, q, jobs.NewJob{Name: "n"})
		enqueue(t, q, jobs.NewJob{Name: "n"})
		_, err := q.Enqueue(context.Background(), jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "n"})
		var over *store.OverCapError
		if !errors.As(err, &over) || over.RetryAfter != 7*time.Second || over.Max != 2 || over.Queue != jobs.AIQueue {
			t.Fatalf("third enqueue: %v, want OverCapError (cap 2, retry after 7s)", err)
		}
		// Another workspace, and the same one on another queue, still enqueue.
		enqueue(t, q, jobs.NewJob{Workspace: "ws-2", Name: "n"})
		enqueue(t, q, jobs.NewJob{Queue: jobs.SEOQueue, Name: "n"})
	})
}

func TestSetCapsAppliesToTheNextEnqueue(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		q := b.queue(t, func(o *jobs.Options) {
			o.Caps = jobstore.JobCaps{Default: jobstore.JobCap{Queued: 1}}
		})
		enqueue(t, q, jobs.NewJob{Name: "n"})
		var over *store.OverCapError
		if _, err := q.Enqueue(context.Background(), jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "n"}); !errors.As(err, &over) {
			t.Fatalf("second enqueue under a queued cap of 1: %v, want OverCapError", err)
		}
		// A reload raises the cap: the next enqueue passes, and the one
		// after it meets the new cap.
		q.SetCaps(jobstore.JobCaps{Default: jobstore.JobCap{Queued: 2}})
		enqueue(t, q, jobs.NewJob{Name: "n"})
		_, err := q.Enqueue(context.Background(), jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "n"})
		if !errors.As(err, &over) || over.Max != 2 {
			t.Fatalf("third enqueue: %v, want OverCapError with cap 2", err)
		}
	})
}

func TestAFloodingWorkspaceLeavesRoomForOthers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s)
		q := b.queue(t, func(o *jobs.Options) {
			o.Concurrency = map[string]int{jobs.AIQueue: 2}
			o.Caps = jobstore.JobCaps{Default: jobstore.JobCap{Running: 1}}
		})
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		ran := make(chan string, 20)
		q.Register("block", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
			ran <- j.Workspace
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		}), jobs.HandlerOptions{})
		for range 5 {
			enqueue(t, q, jobs.NewJob{Workspace: "flood", Name: "block"})
		}
		start(t, q)
		// The flood's running cap of 1 leaves the second slot free while
		// its job blocks, so a job of another workspace starts at once.
		if w := <-ran; w != "flood" {
			t.Fatalf("first job from %s", w)
		}
		enqueue(t, q, jobs.NewJob{Workspace: "quiet", Name: "block"})
		select {
		case w := <-ran:
			if w != "quiet" {
				t.Fatalf("second job started from %s, want quiet (flood is at its running cap)", w)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("quiet's job did not start while flood's jobs held the slots")
		}
	})
}
