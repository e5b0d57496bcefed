package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrNotFound is returned when a row does not exist or belongs to another
// workspace: callers cannot tell the two apart, by design.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a write would violate a uniqueness rule.
var ErrConflict = errors.New("conflict")

// Dialect names the backend behind a Store.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Querier runs SQL. It is the transaction handed to Tx callbacks, which
// store methods that take a Querier write through.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
}

// Rows is the result of Query; always Close it.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is the result of QueryRow; Scan returns ErrNotFound when there is no row.
type Row interface {
	Scan(dest ...any) error
}

// backend is what each dialect provides.
type backend interface {
	Querier
	tx(ctx context.Context, fn func(Querier) error) error
	ping(ctx context.Context) error
	migrate(ctx context.Context, upTo int64) error // upTo 0: every migration
	close()
	isUniqueViolation(err error) bool
}

// Store is the SQL store. It is safe for concurrent use.
type Store struct {
	Dialect Dialect
	b       backend
	now     func() time.Time
	// onEvents is called after a commit that wrote events (events.go).
	onEvents atomic.Pointer[func()]
	// vacuums is 1 when Vacuum runs VACUUM (PostgreSQL), 2 when it does
	// nothing (CockroachDB); 0 until first asked (vacuum.go).
	vacuums atomic.Int32
}

// Open opens the store: databaseURL selects PostgreSQL/CockroachDB, empty
// selects the SQLite file herald.db under dataDir. It does not migrate; call
// Migrate.
func Open(ctx context.Context, databaseURL, dataDir string) (*Store, error) {
	if databaseURL == "" {
		b, err := openSQLite(ctx, dataDir)
		if err != nil {
			return nil, err
		}
		return &Store{Dialect: SQLite, b: b, now: time.Now}, nil
	}
	b, err := openPostgres(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	return &Store{Dialect: Postgres, b: b, now: time.Now}, nil
}

// Close releases the store's connections.
func (s *Store) Close() { s.b.close() }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.b.ping(ctx) }

// Migrate applies the embedded migrations that are not applied yet. It is
// safe to call from several processes at once.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.b.migrate(ctx, 0); err != nil {
		return fmt.Errorf("migrate %s store: %w", s.Dialect, err)
	}
	return nil
}

// exec, query and queryRow run SQL outside any transaction. They are the
// store's own: code outside the package goes through its methods (tests
// that need raw SQL use storetest.Exec, Query and QueryRow).
func (s *Store) exec(ctx context.Context, sql string, args ...any) (int64, error) {
	return s.b.Exec(ctx, sql, args...)
}

func (s *Store) query(ctx context.Context, sql string, args ...any) (Rows, error) {
	return s.b.Query(ctx, sql, args...)
}

func (s *Store) queryRow(ctx context.Context, sql string, args ...any) Row {
	return s.b.QueryRow(ctx, sql, args...)
}

// Tx runs fn in a transaction. On CockroachDB/PostgreSQL a serialization
// failure (40001) re-runs fn, so fn must be safe to run again.
func (s *Store) Tx(ctx context.Context, fn func(q Querier) error) error {
	return s.b.tx(ctx, fn)
}

// IsConflict reports whether err is a uniqueness violation.
func (s *Store) IsConflict(err error) bool {
	return errors.Is(err, ErrConflict) || s.b.isUniqueViolation(err)
}

// SkipLocked is the row-locking suffix for a claim query: FOR UPDATE SKIP
// LOCKED on CockroachDB/PostgreSQL, nothing on SQLite, whose single writer
// already makes the claim atomic.
func (s *Store) SkipLocked() string {
	if s.Dialect == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// ForUpdate is the row-locking suffix of a read that a transaction will
// write back: FOR UPDATE on CockroachDB/PostgreSQL, nothing on SQLite, whose
// single writer already serialises the transaction.
func (s *Store) ForUpdate() string {
	if s.Dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// Now is the store's clock in epoch milliseconds.
func (s *Store) Now() int64 { return s.now().UnixMilli() }

// SetClock replaces the store's clock; tests use it.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// The area packages under store (voicestore, agentstore, jobstore, ...)
// keep their queries beside their area's types and share this one schema,
// its migrations and its connections. They run SQL through Exec, Query and
// QueryRow (which make the Store a Querier outside any transaction) or Tx,
// and build variable statements with the batch kit (InsertRows, ValuesRows,
// InList, Placeholder, Param).

// Exec runs a statement outside any transaction.
func (s *Store) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	return s.b.Exec(ctx, sql, args...)
}

// Query runs a query outside any transaction; always Close the rows.
func (s *Store) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	return s.b.Query(ctx, sql, args...)
}

// QueryRow runs a single-row query outside any transaction.
func (s *Store) QueryRow(ctx context.Context, sql string, args ...any) Row {
	return s.b.QueryRow(ctx, sql, args...)
}

// Capped runs insert after the workspace's cap on kind in one transaction
// (an *OverCapError when it holds the maximum), or alone when no cap is given.
func (s *Store) Capped(ctx context.Context, kind Counted, workspaceID string, caps []Cap, insert func(q Querier) error) error {
	return s.capped(ctx, kind, workspaceID, caps, insert)
}

// EmitTx runs change and, when it changed something, writes events in the
// same transaction and wakes the event notifier after the commit.
func (s *Store) EmitTx(ctx context.Context, change func(q Querier) (bool, error), events ...*Event) (bool, error) {
	return s.emitTx(ctx, change, events...)
}

// Job states as stored in the jobs table (the job queue's typed states
// convert to and from these). JobDelayed is a job waiting out a retry
// backoff or a run time in the future; once its run time has passed it is
// claimable like a waiting job.
const (
	JobWaiting   = "waiting"
	JobDelayed   = "delayed"
	JobActive    = "active"
	JobCompleted = "completed"
	JobFailed    = "failed"
)
