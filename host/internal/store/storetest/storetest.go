// Package storetest runs tests against every store backend: a fresh SQLite
// file always, and a fresh schema of the PostgreSQL or CockroachDB database
// in HERALD_TEST_DATABASE_URL when it is set. With
// HERALD_REQUIRE_INTEGRATION=1 a missing or unreachable database fails the
// test instead of skipping it.
package storetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/heraldhq/herald/host/internal/store"
)

// Each runs fn once per backend as a subtest named after the dialect.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, SQLite(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, Postgres(t))
	})
}

// SQLite opens a migrated store on a new file under t.TempDir().
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// Postgres opens a migrated store in a new schema of the test database, or
// skips (fails under HERALD_REQUIRE_INTEGRATION=1) when there is none.
func Postgres(t testing.TB) *store.Store {
	t.Helper()
	u := DatabaseURL(t)
	schemaURL := NewSchema(t, u)
	s, err := store.Open(context.Background(), schemaURL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// DatabaseURL returns HERALD_TEST_DATABASE_URL or skips (fails when
// integration is required). It reads only the environment: host packages
// do not depend on the integration tree (integration/testenv, which can
// start containers, sets the variable when it runs these suites).
func DatabaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("HERALD_TEST_DATABASE_URL")
	if u == "" {
		Unavailable(t, "HERALD_TEST_DATABASE_URL is not set")
	}
	return u
}

// Unavailable skips the test, or fails it when HERALD_REQUIRE_INTEGRATION=1.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("HERALD_REQUIRE_INTEGRATION") == "1" {
		t.Fatalf("integration service required (HERALD_REQUIRE_INTEGRATION=1): %s", why)
	}
	t.Skip(why)
}

// NewSchema creates an empty schema in the database at baseURL, drops it when
// the test ends, and returns a URL whose connections use it.
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
