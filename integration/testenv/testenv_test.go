package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// recorder stands in for a test to see whether resolve skips or fails it.
type recorder struct {
	testing.TB
	skipped, failed string
}

type stopped struct{}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	panic(stopped{})
}
func (r *recorder) Skipf(format string, args ...any) { r.Skip(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func call(t *testing.T, fn func(testing.TB) string) (got string, r *recorder) {
	r = &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
		}
	}()
	return fn(r), r
}

// No test here may run in parallel: they set the environment, and the
// first one fixes, for the process, that no Docker engine answers.
func TestServicesResolveFromEnvThenDockerThenSkip(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:1") // nothing listens there
	t.Setenv(EnvDatabase, "postgres://from-env/db")
	t.Setenv(EnvRedis, "")
	t.Setenv(EnvCockroach, "")

	t.Setenv(EnvRequire, "1")
	if got, r := call(t, DatabaseURL); got != "postgres://from-env/db" || r.failed != "" || r.skipped != "" {
		t.Fatalf("with the variable set: %q %+v", got, r)
	}
	_, r := call(t, RedisURL)
	if !strings.Contains(r.failed, "HERALD_TEST_REDIS_URL is not set and no Docker engine answers") {
		t.Fatalf("Redis without variable or engine under HERALD_REQUIRE_INTEGRATION=1: %+v, want a failure with the reason", r)
	}
	_, r = call(t, CockroachURL)
	if r.failed != "" || !strings.Contains(r.skipped, "HERALD_TEST_COCKROACH_URL is not set and no Docker engine answers") {
		t.Fatalf("CockroachDB without variable or engine under HERALD_REQUIRE_INTEGRATION=1: %+v, want a skip with the reason", r)
	}

	t.Setenv(EnvRequire, "")
	_, r = call(t, RedisURL)
	if r.failed != "" || !strings.Contains(r.skipped, "no Docker engine answers") {
		t.Fatalf("Redis without variable or engine: %+v, want a skip", r)
	}
}
