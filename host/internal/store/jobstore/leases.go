package jobstore

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// TakeLease takes a free slot of name (slots 0..slots-1) for holder until
// now + ttlMillis and returns it; ok is false when every slot is held by
// an unexpired lease. A slot is free when no row holds it or its row
// expired (its host died without releasing): the conditional upsert takes
// it atomically, so two hosts never hold one slot. The slots of a lower
// limit than before are only those below it, so a limit lowered while
// slots above it are held applies as they are released.
func (s *Store) TakeLease(ctx context.Context, name string, slots int, holder string, ttlMillis int64) (slot int, ok bool, err error) {
	if slots <= 0 {
		return 0, false, nil
	}
	now := s.db.Now()
	held := make([]bool, slots)
	rows, err := s.db.Query(ctx, `SELECT slot FROM concurrency_leases WHERE name = $1 AND expires_at > $2 AND slot < $3`, name, now, slots)
	if err != nil {
		return 0, false, fmt.Errorf("read leases %s: %w", name, err)
	}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("read leases %s: %w", name, err)
		}
		held[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("read leases %s: %w", name, err)
	}
	// Start at a random free slot, so hosts racing for the last slots
	// mostly try different rows.
	start := rand.IntN(slots)
	for i := range slots {
		n := (start + i) % slots
		if held[n] {
			continue
		}
		got, err := s.db.Exec(ctx, `INSERT INTO concurrency_leases (name, slot, holder, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (name, slot) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE concurrency_leases.expires_at <= $5`, name, n, holder, now+ttlMillis, now)
		if err != nil {
			if s.db.IsConflict(err) {
				continue
			}
			return 0, false, fmt.Errorf("take lease %s/%d: %w", name, n, err)
		}
		if got == 1 {
			return n, true, nil
		}
	}
	return 0, false, nil
}

// RenewLease extends holder's lease of slot to now + ttlMillis; false when
// holder no longer holds it (it expired and another took it).
func (s *Store) RenewLease(ctx context.Context, name string, slot int, holder string, ttlMillis int64) (bool, error) {
	n, err := s.db.Exec(ctx, `UPDATE concurrency_leases SET expires_at = $4 WHERE name = $1 AND slot = $2 AND holder = $3`,
		name, slot, holder, s.db.Now()+ttlMillis)
	if err != nil {
		return false, fmt.Errorf("renew lease %s/%d: %w", name, slot, err)
	}
	return n == 1, nil
}

// ReleaseLease frees holder's slot (nothing when holder lost it).
func (s *Store) ReleaseLease(ctx context.Context, name string, slot int, holder string) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM concurrency_leases WHERE name = $1 AND slot = $2 AND holder = $3`, name, slot, holder); err != nil {
		return fmt.Errorf("release lease %s/%d: %w", name, slot, err)
	}
	return nil
}
