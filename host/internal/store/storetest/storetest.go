// Package storetest runs tests against every store backend: a fresh SQLite
// file always, and a fresh schema of the PostgreSQL or CockroachDB database
// in HERALD_TEST_DATABASE_URL when it is set. With
// HERALD_REQUIRE_INTEGRATION=1 a missing or unreachable database fails the
// test instead of skipping it.
package storetest

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/internal/testenv"
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
// integration is required).
func DatabaseURL(t testing.TB) string { t.Helper(); return testenv.DatabaseURL(t) }

// Unavailable skips the test, or fails it when HERALD_REQUIRE_INTEGRATION=1.
func Unavailable(t testing.TB, why string) { t.Helper(); testenv.Unavailable(t, why) }

// NewSchema creates an empty schema in the database at baseURL, drops it when
// the test ends, and returns a URL whose connections use it.
func NewSchema(t testing.TB, baseURL string) string { t.Helper(); return testenv.NewSchema(t, baseURL) }
