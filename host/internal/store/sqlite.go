package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pressly/goose/v3"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteBackend keeps two pools on one WAL file: a single-connection writer,
// so writes queue in Go instead of spinning on SQLITE_BUSY, and a reader pool
// for concurrent reads. Other processes (herald keys create while serve
// runs) are serialised by SQLite's file lock and busy_timeout.
type sqliteBackend struct {
	w, r *sql.DB
	path string
}

func openSQLite(ctx context.Context, dataDir string) (*sqliteBackend, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dataDir, "herald.db")
	// synchronous=NORMAL in WAL mode: a commit survives a process crash; only
	// an OS crash or power loss can roll back the last transactions.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	b := &sqliteBackend{w: w, r: r, path: path}
	if err := b.ping(ctx); err != nil {
		b.close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return b, nil
}

// isRead tells plain reads, which may use the reader pool, from writes.
func isRead(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	return len(q) >= 6 && strings.EqualFold(q[:6], "select")
}

func (b *sqliteBackend) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return sqlExec(ctx, b.w, query, args)
}

func (b *sqliteBackend) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	db := b.w
	if isRead(query) {
		db = b.r
	}
	return sqlQuery(ctx, db, query, args)
}

func (b *sqliteBackend) QueryRow(ctx context.Context, query string, args ...any) Row {
	db := b.w
	if isRead(query) {
		db = b.r
	}
	return sqlRow{db.QueryRowContext(ctx, query, args...)}
}

func (b *sqliteBackend) tx(ctx context.Context, fn func(Querier) error) error {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(sqlTx{tx}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (b *sqliteBackend) ping(ctx context.Context) error {
	if err := b.w.PingContext(ctx); err != nil {
		return err
	}
	return b.r.PingContext(ctx)
}

func (b *sqliteBackend) close() {
	b.r.Close()
	b.w.Close()
}

func (b *sqliteBackend) isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// migrate holds an exclusive lock on a file beside the database while goose
// runs, so two processes starting at once do not both apply a migration.
func (b *sqliteBackend) migrate(ctx context.Context) error {
	lock, err := os.OpenFile(b.path+".migrate.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock migrations: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	p, err := goose.NewProvider(goose.DialectSQLite3, b.w, migrationsFS())
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// database/sql adapters shared by the SQLite pools and transactions.

type sqlRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func sqlExec(ctx context.Context, db sqlRunner, query string, args []any) (int64, error) {
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func sqlQuery(ctx context.Context, db sqlRunner, query string, args []any) (Rows, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return sqlExec(ctx, t.tx, query, args)
}

func (t sqlTx) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	return sqlQuery(ctx, t.tx, query, args)
}

func (t sqlTx) QueryRow(ctx context.Context, query string, args ...any) Row {
	return sqlRow{t.tx.QueryRowContext(ctx, query, args...)}
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ row *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
