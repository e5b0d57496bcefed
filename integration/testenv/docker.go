package testenv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"
	"github.com/ory/dockertest/v3/docker"
	"github.com/redis/go-redis/v9"
)

// containerSpec is how to start one service and reach it once it is ready.
type containerSpec struct {
	name       string
	repository string
	tag        string
	env        []string
	cmd        []string
	port       string
	// url renders the service's URL from the host:port of the mapped port.
	url func(hostPort string) string
	// ready reports whether the service at url answers.
	ready func(ctx context.Context, url string) error
}

var (
	postgresSpec = containerSpec{
		name: "postgres", repository: "postgres", tag: "17-alpine",
		env:   []string{"POSTGRES_PASSWORD=herald", "POSTGRES_DB=test"},
		port:  "5432/tcp",
		url:   func(hp string) string { return "postgres://postgres:herald@" + hp + "/test?sslmode=disable" },
		ready: pingSQL,
	}
	redisSpec = containerSpec{
		name: "redis", repository: "redis", tag: "7-alpine",
		port: "6379/tcp",
		url:  func(hp string) string { return "redis://" + hp + "/0" },
		ready: func(ctx context.Context, u string) error {
			opt, err := redis.ParseURL(u)
			if err != nil {
				return err
			}
			c := redis.NewClient(opt)
			defer c.Close()
			return c.Ping(ctx).Err()
		},
	}
	cockroachSpec = containerSpec{
		name: "cockroachdb", repository: "cockroachdb/cockroach", tag: "latest-v24.3",
		cmd:   []string{"start-single-node", "--insecure"},
		port:  "26257/tcp",
		url:   func(hp string) string { return "postgresql://root@" + hp + "/defaultdb?sslmode=disable" },
		ready: pingSQL,
	}
)

func pingSQL(ctx context.Context, u string) error {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
}

// errNoEngine wraps the reason no Docker engine answered.
var errNoEngine = errors.New("no Docker engine answers")

func isNoEngine(err error) bool { return errors.Is(err, errNoEngine) }

var (
	poolOnce sync.Once
	pool     *dockertest.Pool
	poolErr  error

	mu        sync.Mutex
	started   = map[string]*startOnce{}
	resources []*dockertest.Resource
)

type startOnce struct {
	once sync.Once
	url  string
	err  error
}

// dockerPool connects to the engine of DOCKER_HOST (or the default socket)
// once per process and checks that it answers.
func dockerPool() (*dockertest.Pool, error) {
	poolOnce.Do(func() {
		p, err := dockertest.NewPool("")
		if err != nil {
			poolErr = fmt.Errorf("%w: %v", errNoEngine, err)
			return
		}
		if err := p.Client.Ping(); err != nil {
			poolErr = fmt.Errorf("%w: %v", errNoEngine, err)
			return
		}
		p.MaxWait = 2 * time.Minute
		pool = p
	})
	return pool, poolErr
}

// container starts the service of spec once per process and returns its
// URL once it answers.
func container(spec containerSpec) (string, error) {
	mu.Lock()
	s, ok := started[spec.name]
	if !ok {
		s = &startOnce{}
		started[spec.name] = s
	}
	mu.Unlock()
	s.once.Do(func() { s.url, s.err = start(spec) })
	return s.url, s.err
}

func start(spec containerSpec) (string, error) {
	p, err := dockerPool()
	if err != nil {
		return "", err
	}
	r, err := p.RunWithOptions(&dockertest.RunOptions{
		Repository: spec.repository, Tag: spec.tag, Env: spec.env, Cmd: spec.cmd,
		Labels: map[string]string{"dev.herald.testenv": spec.name},
	}, func(hc *docker.HostConfig) {
		hc.AutoRemove = true
		hc.RestartPolicy = docker.RestartPolicy{Name: "no"}
	})
	if err != nil {
		return "", fmt.Errorf("cannot start a %s container (%s:%s): %w", spec.name, spec.repository, spec.tag, err)
	}
	mu.Lock()
	resources = append(resources, r)
	mu.Unlock()
	// A safety net for a test process killed before Run purges it.
	r.Expire(3600)
	u := spec.url(r.GetHostPort(spec.port))
	err = p.Retry(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return spec.ready(ctx, u)
	})
	if err != nil {
		return "", fmt.Errorf("the %s container never answered at %s: %w", spec.name, u, err)
	}
	return u, nil
}

// purgeAll removes every container this process started.
func purgeAll() {
	mu.Lock()
	rs := resources
	resources = nil
	mu.Unlock()
	for _, r := range rs {
		if err := pool.Purge(r); err != nil {
			fmt.Printf("testenv: purge container %s: %v\n", r.Container.ID, err)
		}
	}
}
