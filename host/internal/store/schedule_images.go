package store

import (
	"context"
	"fmt"
)

// TrackScheduleImage records that key holds an image stored for a
// schedule of the workspace, so the sweeper can find it once unneeded.
func (s *Store) TrackScheduleImage(ctx context.Context, workspaceID, key string) error {
	if _, err := s.exec(ctx, `INSERT INTO schedule_images (key, workspace_id, created_at) VALUES ($1, $2, $3)`, key, workspaceID, s.Now()); err != nil {
		return fmt.Errorf("track schedule image: %w", err)
	}
	return nil
}

// UnneededScheduleImages returns up to limit tracked images stored before
// the epoch-ms time before that no schedule needs: none names them, or
// only cancelled ones do.
func (s *Store) UnneededScheduleImages(ctx context.Context, before int64, limit int) ([]string, error) {
	rows, err := s.query(ctx, `SELECT key FROM schedule_images i WHERE created_at < $1
		AND NOT EXISTS (SELECT 1 FROM schedules s WHERE s.image_key = i.key AND s.status <> $2)
		ORDER BY created_at LIMIT $3`, before, ScheduleCancelled, limit)
	if err != nil {
		return nil, fmt.Errorf("find unneeded schedule images: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// ScheduleImageNeeded reports whether a schedule that is not cancelled
// names key.
func (s *Store) ScheduleImageNeeded(ctx context.Context, key string) (bool, error) {
	var n int
	if err := s.queryRow(ctx, `SELECT COUNT(*) FROM schedules WHERE image_key = $1 AND status <> $2`, key, ScheduleCancelled).Scan(&n); err != nil {
		return false, fmt.Errorf("check schedule image: %w", err)
	}
	return n > 0, nil
}

// ForgetScheduleImage removes key from the tracked images.
func (s *Store) ForgetScheduleImage(ctx context.Context, key string) error {
	if _, err := s.exec(ctx, `DELETE FROM schedule_images WHERE key = $1`, key); err != nil {
		return fmt.Errorf("forget schedule image: %w", err)
	}
	return nil
}
