package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	crdbpgx "github.com/cockroachdb/cockroach-go/v2/crdb/crdbpgxv5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// pgBackend serves CockroachDB and PostgreSQL through one pgx pool.
type pgBackend struct {
	pool *pgxpool.Pool
}

func openPostgres(ctx context.Context, url string) (*pgBackend, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if cfg.MaxConns < 16 {
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s@%s: %w", cfg.ConnConfig.User, cfg.ConnConfig.Host, err)
	}
	return &pgBackend{pool: pool}, nil
}

type pgRunner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type pgQuerier struct{ r pgRunner }

func (q pgQuerier) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := q.r.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q pgQuerier) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	rows, err := q.r.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (q pgQuerier) QueryRow(ctx context.Context, sql string, args ...any) Row {
	return pgRow{q.r.QueryRow(ctx, sql, args...)}
}

type pgRow struct{ row pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

func (b *pgBackend) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	return pgQuerier{b.pool}.Exec(ctx, sql, args...)
}

func (b *pgBackend) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	return pgQuerier{b.pool}.Query(ctx, sql, args...)
}

func (b *pgBackend) QueryRow(ctx context.Context, sql string, args ...any) Row {
	return pgQuerier{b.pool}.QueryRow(ctx, sql, args...)
}

// txAttempts is how many times tx runs a transaction that the database
// aborts as a deadlock victim, its normal answer to contention, which a
// rerun settles. Serialization failures (40001) are already retried
// inside crdbpgx.ExecuteTx.
const txAttempts = 3

func (b *pgBackend) tx(ctx context.Context, fn func(Querier) error) error {
	var err error
	for range txAttempts {
		err = crdbpgx.ExecuteTx(ctx, b.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
			return fn(pgQuerier{tx})
		})
		if !isDeadlock(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// isDeadlock reports whether err is a deadlock (40P01).
func isDeadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}

func (b *pgBackend) ping(ctx context.Context) error { return b.pool.Ping(ctx) }

func (b *pgBackend) close() { b.pool.Close() }

func (b *pgBackend) isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// migrate runs goose under a table-based lock: CockroachDB has no advisory
// locks, and a lock row works the same on both.
func (b *pgBackend) migrate(ctx context.Context, upTo int64) error {
	db := stdlib.OpenDBFromPool(b.pool)
	defer db.Close()
	locker, err := lock.NewPostgresTableLocker(lock.WithTableName("herald_migration_lock"))
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrationsFS(), goose.WithLocker(locker), goMigrations())
	if err != nil {
		return err
	}
	return gooseUp(ctx, p, upTo)
}
