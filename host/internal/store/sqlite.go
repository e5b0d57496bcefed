package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	// Prepared statements per pool, keyed by query text: SQLite spends more
	// time parsing a short query than running it.
	wStmts, rStmts stmtCache
}

// stmtCache keeps prepared statements of one pool. database/sql re-prepares
// a cached *sql.Stmt on each connection as needed.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

const maxCachedStmts = 256

func (c *stmtCache) cached(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

// get returns the cached statement of query, preparing it on db first if
// needed. When the cache is full it returns nil: the caller runs the query
// unprepared, so no statement is ever left unclosed.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	if st := c.cached(query); st != nil {
		return st, nil
	}
	c.mu.Lock()
	full := len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if full {
		return nil, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		st.Close()
		return prev, nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	if len(c.m) >= maxCachedStmts {
		st.Close()
		return nil, nil
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// pool picks the pool and statement cache for a query.
func (b *sqliteBackend) pool(query string) (*sql.DB, *stmtCache) {
	if isRead(query) {
		return b.r, &b.rStmts
	}
	return b.w, &b.wStmts
}

func openSQLite(ctx context.Context, dataDir string) (*sqliteBackend, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dataDir, "herald.db")
	// SQLite creates the database with the process umask (often 0644) and
	// its -wal and -shm files with the database's mode, so the file is
	// created (or narrowed) to 0600 before SQLite opens it.
	if err := ensurePrivateFile(path); err != nil {
		return nil, err
	}
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

// ensurePrivateFile creates path with mode 0600, or narrows an existing
// file's mode to 0600.
func ensurePrivateFile(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	return nil
}

// isRead tells plain reads, which may use the reader pool, from writes.
func isRead(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	return len(q) >= 6 && strings.EqualFold(q[:6], "select")
}

func (b *sqliteBackend) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := b.wStmts.get(ctx, b.w, query)
	if err != nil {
		return 0, err
	}
	var res sql.Result
	if st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = b.w.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// readContext drops the cancellation of plain reads on the reader pool: for a
// cancellable context the driver starts a watcher goroutine and a progress
// handler per statement, which costs more than the short, indexed reads
// Herald makes. Writes keep their context.
func (b *sqliteBackend) readContext(ctx context.Context, db *sql.DB) context.Context {
	if db == b.r {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func (b *sqliteBackend) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	db, cache := b.pool(query)
	ctx = b.readContext(ctx, db)
	st, err := cache.get(ctx, db, query)
	if err != nil {
		return nil, err
	}
	var rows *sql.Rows
	if st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = db.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (b *sqliteBackend) QueryRow(ctx context.Context, query string, args ...any) Row {
	db, cache := b.pool(query)
	ctx = b.readContext(ctx, db)
	st, err := cache.get(ctx, db, query)
	if err != nil {
		return errRow{err}
	}
	if st == nil {
		return sqlRow{db.QueryRowContext(ctx, query, args...)}
	}
	return sqlRow{st.QueryRowContext(ctx, args...)}
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (b *sqliteBackend) tx(ctx context.Context, fn func(Querier) error) error {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	var misses []string
	err = fn(sqlTx{tx: tx, b: b, misses: &misses})
	if err != nil {
		tx.Rollback()
	} else {
		err = tx.Commit()
	}
	// The writer connection is free again: cache what the transaction had
	// to prepare, so the next run of the same transaction does not parse.
	for _, q := range misses {
		b.wStmts.get(ctx, b.w, q)
	}
	return err
}

func (b *sqliteBackend) ping(ctx context.Context) error {
	if err := b.w.PingContext(ctx); err != nil {
		return err
	}
	return b.r.PingContext(ctx)
}

func (b *sqliteBackend) close() {
	b.rStmts.close()
	b.wStmts.close()
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
func (b *sqliteBackend) migrate(ctx context.Context, upTo int64) error {
	lock, err := os.OpenFile(b.path+".migrate.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock migrations: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	p, err := goose.NewProvider(goose.DialectSQLite3, b.w, migrationsFS(), goMigrations())
	if err != nil {
		return err
	}
	return gooseUp(ctx, p, upTo)
}

// sqlTx runs statements of a transaction on the writer, reusing the
// writer's cached statements. It never prepares on the writer pool: the
// transaction holds its only connection.
type sqlTx struct {
	tx     *sql.Tx
	b      *sqliteBackend
	misses *[]string // queries to prepare on the writer once the transaction ends
}

func (t sqlTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := t.b.wStmts.cached(query); st != nil {
		return t.tx.StmtContext(ctx, st), nil
	}
	*t.misses = append(*t.misses, query)
	return t.tx.PrepareContext(ctx, query)
}

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t sqlTx) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (t sqlTx) QueryRow(ctx context.Context, query string, args ...any) Row {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return sqlRow{st.QueryRowContext(ctx, args...)}
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
