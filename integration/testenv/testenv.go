// Package testenv finds the services integration tests need: PostgreSQL,
// Redis and CockroachDB. Each is resolved in this order:
//
//  1. its environment variable (HERALD_TEST_DATABASE_URL,
//     HERALD_TEST_REDIS_URL, HERALD_TEST_COCKROACH_URL);
//  2. a container started with dockertest (postgres, redis,
//     cockroachdb/cockroach single-node insecure) when a Docker engine
//     answers, shared by the tests of the process and purged when Run
//     returns (each also expires after an hour, should the process die);
//  3. else the test is skipped with the reason, or fails under
//     HERALD_REQUIRE_INTEGRATION=1 (set by .ci/run), except CockroachDB
//     when no Docker engine exists on the machine: it cannot be installed
//     from the machine's packages, so its suite skips even then.
//
// A package whose tests use containers calls Run from its TestMain.
package testenv

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Environment variables that name the services.
const (
	EnvDatabase  = "HERALD_TEST_DATABASE_URL"
	EnvRedis     = "HERALD_TEST_REDIS_URL"
	EnvCockroach = "HERALD_TEST_COCKROACH_URL"
	EnvRequire   = "HERALD_REQUIRE_INTEGRATION"
)

// Run runs the tests of m and purges the containers they started; call it
// from TestMain: os.Exit(testenv.Run(m)).
func Run(m *testing.M) int {
	code := m.Run()
	purgeAll()
	return code
}

// Unavailable skips the test, or fails it when HERALD_REQUIRE_INTEGRATION=1.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("integration service required (%s=1): %s", EnvRequire, why)
	}
	t.Skip(why)
}

// DatabaseURL returns the PostgreSQL to test against: HERALD_TEST_DATABASE_URL,
// else a postgres container, else Unavailable.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	return resolve(t, EnvDatabase, postgresSpec, false)
}

// RedisURL returns the Redis to test against: HERALD_TEST_REDIS_URL, else a
// redis container, else Unavailable.
func RedisURL(t testing.TB) string {
	t.Helper()
	return resolve(t, EnvRedis, redisSpec, false)
}

// CockroachURL returns the CockroachDB to test against:
// HERALD_TEST_COCKROACH_URL, else a single-node insecure cockroachdb/cockroach
// container, else a skip (a failure under HERALD_REQUIRE_INTEGRATION=1 only
// when a Docker engine answers but the container cannot be started).
func CockroachURL(t testing.TB) string {
	t.Helper()
	return resolve(t, EnvCockroach, cockroachSpec, true)
}

func resolve(t testing.TB, env string, spec containerSpec, skipWithoutEngine bool) string {
	t.Helper()
	if u := os.Getenv(env); u != "" {
		return u
	}
	u, err := container(spec)
	switch {
	case err == nil:
		return u
	case skipWithoutEngine && isNoEngine(err):
		t.Skipf("%s is not set and %v", env, err)
	default:
		Unavailable(t, fmt.Sprintf("%s is not set and %v", env, err))
	}
	return ""
}

// NewSchema creates an empty schema in the database at baseURL, drops it
// when the test ends, and returns a URL whose connections use it.
func NewSchema(t testing.TB, baseURL string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		Unavailable(t, fmt.Sprintf("cannot reach test database: %v", err))
	}
	defer conn.Close(ctx)
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), baseURL)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	parsed, err := url.Parse(baseURL)
	if err != nil {
		t.Fatalf("parse database url: %v", err)
	}
	q := parsed.Query()
	q.Set("search_path", schema)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}
