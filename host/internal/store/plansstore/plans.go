package plansstore

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// PlanVersion is a stored version of the plans and per-workspace caps
// (package plans owns the body's format).
type PlanVersion struct {
	Version   int64
	Body      string
	Digest    string
	Source    string
	CreatedAt int64
}

// LatestPlanVersionNumber returns the highest stored version, 0 when none:
// the cheap read hosts poll.
func (s *Store) LatestPlanVersionNumber(ctx context.Context) (int64, error) {
	var v *int64
	if err := s.db.QueryRow(ctx, `SELECT MAX(version) FROM plan_versions`).Scan(&v); err != nil {
		return 0, fmt.Errorf("latest plan version: %w", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// LatestPlanVersion returns the highest stored version, or store.ErrNotFound.
func (s *Store) LatestPlanVersion(ctx context.Context) (PlanVersion, error) {
	var p PlanVersion
	err := s.db.QueryRow(ctx, `SELECT version, body, digest, source, created_at FROM plan_versions ORDER BY version DESC LIMIT 1`).
		Scan(&p.Version, &p.Body, &p.Digest, &p.Source, &p.CreatedAt)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		err = fmt.Errorf("latest plans: %w", err)
	}
	return p, err
}

// AddPlanVersion stores body as the next version unless the latest version
// has the same digest; it returns the version now in force and whether it
// is new. onlyIfNone stores nothing when any version exists (a first start
// seeds the table, later starts do not override an apply). Two hosts
// adding at once get consecutive versions (the loser of the primary key
// retries).
func (s *Store) AddPlanVersion(ctx context.Context, body, digest, source string, onlyIfNone bool) (PlanVersion, bool, error) {
	for attempt := 0; ; attempt++ {
		var out PlanVersion
		created := false
		err := s.db.Tx(ctx, func(q store.Querier) error {
			created = false
			err := q.QueryRow(ctx, `SELECT version, body, digest, source, created_at FROM plan_versions ORDER BY version DESC LIMIT 1`).
				Scan(&out.Version, &out.Body, &out.Digest, &out.Source, &out.CreatedAt)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err == nil && (out.Digest == digest || onlyIfNone) {
				return nil
			}
			out = PlanVersion{Version: out.Version + 1, Body: body, Digest: digest, Source: source, CreatedAt: s.db.Now()}
			if _, err := q.Exec(ctx, `INSERT INTO plan_versions (version, body, digest, source, created_at) VALUES ($1, $2, $3, $4, $5)`,
				out.Version, out.Body, out.Digest, out.Source, out.CreatedAt); err != nil {
				return err
			}
			created = true
			return nil
		})
		if err != nil && s.db.IsConflict(err) && attempt < 5 {
			continue
		}
		if err != nil {
			return PlanVersion{}, false, fmt.Errorf("add plan version: %w", err)
		}
		return out, created, nil
	}
}

// Store reads and writes the plan versions' tables of the one schema.
type Store struct{ db *store.Store }

// New returns the plan versions' queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
