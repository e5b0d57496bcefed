package store

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// testSchemaURL is storetest.NewSchema(t, storetest.DatabaseURL(t)) for
// this package's own tests, which cannot import storetest (it imports
// store): a new schema of HERALD_TEST_DATABASE_URL, dropped after the test.
func testSchemaURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("HERALD_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("HERALD_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("HERALD_TEST_DATABASE_URL is not set (HERALD_REQUIRE_INTEGRATION=1)")
		}
		t.Skip("HERALD_TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("cannot reach test database: %v", err)
	}
	defer conn.Close(ctx)
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), base); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// eachBackend runs fn once per backend, as storetest.Each does, on a
// migrated store: SQLite always, PostgreSQL when HERALD_TEST_DATABASE_URL
// is set.
func eachBackend(t *testing.T, fn func(t *testing.T, s *Store)) {
	t.Helper()
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			url := ""
			if dialect == "postgres" {
				url = testSchemaURL(t)
			}
			s, err := Open(context.Background(), url, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			if err := s.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			fn(t, s)
		})
	}
}

// TestPostgresPoolHasAtLeast16Connections: the pool is raised to 16
// connections unless the URL asks for more.
func TestPostgresPoolHasAtLeast16Connections(t *testing.T) {
	t.Parallel()
	base := testSchemaURL(t)
	for _, c := range []struct {
		maxConns string
		want     int32
	}{{"", 16}, {"4", 16}, {"16", 16}, {"20", 20}} {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		if c.maxConns != "" {
			q := u.Query()
			q.Set("pool_max_conns", c.maxConns)
			u.RawQuery = q.Encode()
		}
		b, err := openPostgres(context.Background(), u.String())
		if err != nil {
			t.Fatal(err)
		}
		got := b.pool.Config().MaxConns
		b.close()
		if got != c.want {
			t.Errorf("pool_max_conns=%q: %d connections, want %d", c.maxConns, got, c.want)
		}
	}
}
