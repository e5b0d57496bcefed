// Package testenv finds the services tests need (PostgreSQL or
// CockroachDB, Redis) from the environment, and decides whether a missing
// one skips the test or fails it: with HERALD_REQUIRE_INTEGRATION=1 (set by
// .ci/run) it fails.
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

// Unavailable skips the test, or fails it when HERALD_REQUIRE_INTEGRATION=1.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("HERALD_REQUIRE_INTEGRATION") == "1" {
		t.Fatalf("integration service required (HERALD_REQUIRE_INTEGRATION=1): %s", why)
	}
	t.Skip(why)
}

// DatabaseURL returns HERALD_TEST_DATABASE_URL or calls Unavailable.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("HERALD_TEST_DATABASE_URL")
	if u == "" {
		Unavailable(t, "HERALD_TEST_DATABASE_URL is not set")
	}
	return u
}

// RedisURL returns HERALD_TEST_REDIS_URL or calls Unavailable.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("HERALD_TEST_REDIS_URL")
	if u == "" {
		Unavailable(t, "HERALD_TEST_REDIS_URL is not set")
	}
	return u
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
