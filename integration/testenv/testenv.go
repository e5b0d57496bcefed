// Package testenv is the integration suites' name for internal/testenv,
// which finds the test services (PostgreSQL or CockroachDB, Redis) and
// decides whether a missing one skips or fails. The code lives in
// internal/testenv so that host packages (store/storetest) can use it
// without importing the integration tree.
package testenv

import (
	"testing"

	"github.com/heraldhq/herald/internal/testenv"
)

// Unavailable skips the test, or fails it when HERALD_REQUIRE_INTEGRATION=1.
func Unavailable(t testing.TB, why string) { t.Helper(); testenv.Unavailable(t, why) }

// DatabaseURL returns HERALD_TEST_DATABASE_URL or calls Unavailable.
func DatabaseURL(t testing.TB) string { t.Helper(); return testenv.DatabaseURL(t) }

// RedisURL returns HERALD_TEST_REDIS_URL or calls Unavailable.
func RedisURL(t testing.TB) string { t.Helper(); return testenv.RedisURL(t) }

// NewSchema creates an empty schema in the database at baseURL, drops it
// when the test ends, and returns a URL whose connections use it.
func NewSchema(t testing.TB, baseURL string) string {
	t.Helper()
	return testenv.NewSchema(t, baseURL)
}
