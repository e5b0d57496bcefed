package jobs_test

import (
	"bufio"
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/internal/testwait"
)

// runsTable matches jobstest/worker's table of handler runs.
const runsTable = `CREATE TABLE IF NOT EXISTS jobstest_runs (id TEXT PRIMARY KEY, job_id TEXT NOT NULL, attempt INTEGER NOT NULL, host TEXT NOT NULL, origin TEXT NOT NULL)`

var workerBuild struct {
	once sync.Once
	path string
	err  error
}

// workerBinary builds jobstest/worker once per test run.
func workerBinary(t *testing.T) string {
	t.Helper()
	workerBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "jobstest-worker-")
		if err != nil {
			workerBuild.err = err
			return
		}
		workerBuild.path = filepath.Join(dir, "worker")
		out, err := exec.Command("go", "build", "-o", workerBuild.path, "./jobstest/worker").CombinedOutput()
		if err != nil {
			workerBuild.err = fmt.Errorf("go build worker: %v\n%s", err, out)
		}
	})
	if workerBuild.err != nil {
		t.Fatal(workerBuild.err)
	}
	return workerBuild.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if workerBuild.path != "" {
		os.RemoveAll(filepath.Dir(workerBuild.path))
	}
	os.Exit(code)
}

// backend is a database (and Redis, on PostgreSQL) that worker processes and
// the test share.
type backend struct {
	name     string
	store    *store.Store
	args     []string // worker flags selecting the store and Redis
	redisURL string
	prefix   string
}

func sqliteBackend(t *testing.T) backend {
	t.Helper()
	dir := t.TempDir()
	return openBackend(t, "sqlite", "", dir, "")
}

func postgresBackend(t *testing.T) backend {
	t.Helper()
	url := storetest.NewSchema(t, storetest.DatabaseURL(t))
	return openBackend(t, "postgres", url, "", redisURL(t))
}

func openBackend(t *testing.T, name, databaseURL, dataDir, redisURL string) backend {
	t.Helper()
	s, err := store.Open(context.Background(), databaseURL, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.Exec(context.Background(), s, runsTable); err != nil {
		t.Fatal(err)
	}
	b := backend{name: name, store: s, redisURL: redisURL, prefix: "herald-test:" + store.NewID()}
	b.args = []string{"-database-url", databaseURL, "-data-dir", dataDir, "-redis-url", redisURL, "-redis-prefix", b.prefix}
	return b
}

func (b backend) producer(t *testing.T) *jobs.Queue {
	t.Helper()
	q, err := jobs.New(jobs.Options{Store: b.store, RedisURL: b.redisURL, RedisPrefix: b.prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	return q
}

// worker is a running jobstest/worker process.
type worker struct {
	cmd    *exec.Cmd
	starts chan string // job ids as they start
	ready  chan struct{}
	exited chan struct{}
}

func startWorker(t *testing.T, b backend, args ...string) *worker {
	t.Helper()
	cmd := exec.Command(workerBinary(t), append(append([]string{}, b.args...), args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{cmd: cmd, starts: make(chan string, 10000), ready: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(w.exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "ready":
				close(w.ready)
			case strings.HasPrefix(line, "start "):
				w.starts <- strings.TrimPrefix(line, "start ")
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-w.exited
	})
	select {
	case <-w.ready:
	case <-w.exited:
		t.Fatal("worker exited before it was ready")
	case <-time.After(60 * time.Second):
		t.Fatal("worker not ready after 60s")
	}
	return w
}

// waitAllFinished waits until no job of the store is waiting, delayed or
// active, and returns the jobs.
func waitAllFinished(t *testing.T, s *store.Store, ids []string) map[string]jobstore.Job {
	t.Helper()
	var out map[string]jobstore.Job
	unfinished := 0
	err := testwait.Until(90*time.Second, func() bool {
		out, unfinished = map[string]jobstore.Job{}, 0
		for _, id := range ids {
			j, err := jobstore.New(s).GetJob(context.Background(), ws, id)
			if err != nil {
				t.Fatal(err)
			}
			out[id] = j
			if jobs.StateOf(j) != jobs.StateCompleted && jobs.StateOf(j) != jobs.StateFailed {
				unfinished++
			}
		}
		return unfinished == 0
	})
	if err != nil {
		t.Fatalf("%d of %d jobs never finished", unfinished, len(ids))
	}
	return out
}

// runs counts handler runs per job id, and per origin→host pair.
func runs(t *testing.T, s *store.Store) (perJob map[string]int, crossed map[[2]string]int) {
	t.Helper()
	perJob, crossed = map[string]int{}, map[[2]string]int{}
	err := storetest.Query(context.Background(), s, func(r store.Row) error {
		var id, host, origin string
		if err := r.Scan(&id, &host, &origin); err != nil {
			return err
		}
		perJob[id]++
		crossed[[2]string{origin, host}]++
		return nil
	}, `SELECT job_id, host, origin FROM jobstest_runs`)
	if err != nil {
		t.Fatal(err)
	}
	return perJob, crossed
}

func enqueueCount(t *testing.T, q *jobs.Queue, n int, origin string) []string {
	t.Helper()
	batch := make([]jobs.NewJob, n)
	for i := range batch {
		batch[i] = jobs.NewJob{Workspace: ws, Queue: jobs.AIQueue, Name: "count", Data: map[string]any{"origin": origin, "n": i}, MaxAttempts: 10}
	}
	ids, err := q.EnqueueMany(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestKilledWorkerLosesNoJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		open func(*testing.T) backend
	}{{"sqlite", sqliteBackend}, {"postgres", postgresBackend}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.open(t)
			ids := enqueueCount(t, b.producer(t), 40, "test")
			tune := []string{"-concurrency", "4", "-work", "100ms", "-lease", "1s", "-rescue", "100ms", "-poll", "200ms"}
			first := startWorker(t, b, append(tune, "-host", "first")...)
			started := map[string]bool{}
			for len(started) < 4 {
				started[<-first.starts] = true
			}
			if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-first.exited
			startWorker(t, b, append(tune, "-host", "second")...)
			final := waitAllFinished(t, b.store, ids)
			perJob, _ := runs(t, b.store)
			rescued := 0
			for _, id := range ids {
				j := final[id]
				if jobs.StateOf(j) != jobs.StateCompleted || perJob[id] < 1 {
					t.Fatalf("job %s: %+v, %d runs", id, j, perJob[id])
				}
				if j.AttemptsMade > 1 {
					rescued++
				}
			}
			if rescued == 0 {
				t.Fatalf("no job was rescued from the killed worker (it had started %d)", len(started))
			}
		})
	}
}

func TestTwoHostsRunEveryJobExactlyOnce(t *testing.T) {
	t.Parallel()
	b := postgresBackend(t)
	// A minute between polls: host b learns of host a's jobs only through
	// Redis wake-ups.
	tune := []string{"-concurrency", "4", "-work", "2ms", "-poll", "1m", "-lease", "30s"}
	startWorker(t, b, append(tune, "-host", "b")...)
	startWorker(t, b, append(tune, "-host", "a", "-enqueue", "150")...)
	ids := enqueueCount(t, b.producer(t), 150, "test")
	final := waitAllFinished(t, b.store, ids)
	perJob, crossed := runs(t, b.store)
	if len(perJob) != 300 {
		t.Fatalf("%d jobs ran, want 300", len(perJob))
	}
	for id, n := range perJob {
		if n != 1 {
			t.Fatalf("job %s ran %d times", id, n)
		}
	}
	for _, id := range ids {
		if jobs.StateOf(final[id]) != jobs.StateCompleted || final[id].AttemptsMade != 1 {
			t.Fatalf("job %s: %+v", id, final[id])
		}
	}
	if crossed[[2]string{"a", "b"}] == 0 {
		t.Fatalf("no job enqueued on host a started on host b: %v", crossed)
	}
	t.Logf("runs by origin→host: %v", crossed)
}

// privateRedis starts a redis-server of the test's own on a free loopback
// port; the machine's shared Redis is never stopped.
func privateRedis(t *testing.T) (url string, kill func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		storetest.Unavailable(t, "redis-server is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	kill = func() {
		once.Do(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
	t.Cleanup(kill)
	url = fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	testwait.For(t, 10*time.Second, "private redis-server answers", func() bool {
		return c.Ping(context.Background()).Err() == nil
	})
	return url, kill
}

func TestRedisOutageDelaysJobsButLosesNone(t *testing.T) {
	t.Parallel()
	url, killRedis := privateRedis(t)
	s := storetest.Postgres(t)
	b := &bundle{store: s, redisURL: url, prefix: "herald-test:" + store.NewID()}
	var mu sync.Mutex
	ran := map[string]int{}
	running := make(chan struct{}, 1)
	consumer := b.queue(t, func(o *jobs.Options) { o.PollInterval = 100 * time.Millisecond })
	consumer.Register("count", jobs.HandlerFunc(func(ctx context.Context, j *jobs.Job) (any, error) {
		select {
		case running <- struct{}{}:
		default:
		}
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		ran[j.ID]++
		mu.Unlock()
		return nil, nil
	}), jobs.HandlerOptions{})
	start(t, consumer)
	producer := b.queue(t)

	before := enqueueCount(t, producer, 40, "test")
	// Redis dies while those run; more jobs come in during the outage.
	<-running
	killRedis()
	during := enqueueCount(t, producer, 40, "test")
	final := waitAllFinished(t, s, append(before, during...))
	mu.Lock()
	defer mu.Unlock()
	for id, j := range final {
		if jobs.StateOf(j) != jobs.StateCompleted || ran[id] != 1 {
			t.Fatalf("job %s: %+v, ran %d times", id, j, ran[id])
		}
	}
}
