package voicestore

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// VoiceKey names a voice across workspaces (refresh work).
type VoiceKey struct {
	WorkspaceID, ID string
}

// RecordVoiceFetch stores the outcome of fetching a voice's URL and when it
// is due next (nil: not refreshed). On success content and sourceText
// replace the voice's and updated_at moves; on failure they stay as they
// were (nil). store.ErrNotFound when the voice is gone.
func (s *Store) RecordVoiceFetch(ctx context.Context, workspaceID, id string, f VoiceFetch, content, sourceText *string, next *int64) error {
	var fetchErr *string
	if f.Error != "" {
		fetchErr = &f.Error
	}
	var n int64
	var err error
	if content != nil {
		n, err = s.db.Exec(ctx, `UPDATE brand_voices SET last_fetch_at = $3, last_fetch_ok = $4, last_fetch_error = $5, next_fetch_at = $6,
			content = $7, source_text = $8, updated_at = $9 WHERE workspace_id = $1 AND id = $2 AND is_active = TRUE`,
			workspaceID, id, f.At, f.OK, fetchErr, next, *content, sourceText, s.db.Now())
	} else {
		n, err = s.db.Exec(ctx, `UPDATE brand_voices SET last_fetch_at = $3, last_fetch_ok = $4, last_fetch_error = $5, next_fetch_at = $6
			WHERE workspace_id = $1 AND id = $2 AND is_active = TRUE`, workspaceID, id, f.At, f.OK, fetchErr, next)
	}
	if err != nil {
		return fmt.Errorf("record voice fetch: %w", err)
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// SetVoiceNextFetch sets when a voice is due for re-fetching (nil: never).
func (s *Store) SetVoiceNextFetch(ctx context.Context, workspaceID, id string, next *int64) error {
	_, err := s.db.Exec(ctx, `UPDATE brand_voices SET next_fetch_at = $3 WHERE workspace_id = $1 AND id = $2`, workspaceID, id, next)
	if err != nil {
		return fmt.Errorf("schedule voice fetch: %w", err)
	}
	return nil
}

// ClaimDueVoices returns up to limit active voices whose next fetch is due
// at now, moving each one's next_fetch_at to leaseUntil with a guarded
// update so that of several hosts claiming at once exactly one gets each
// voice. This is the one query across workspaces: the refresher works for
// all of them, and every later read and write names the workspace.
func (s *Store) ClaimDueVoices(ctx context.Context, now, leaseUntil int64, limit int) ([]VoiceKey, error) {
	rows, err := s.db.Query(ctx, `SELECT workspace_id, id, next_fetch_at FROM brand_voices
		WHERE next_fetch_at IS NOT NULL AND next_fetch_at <= $1 AND is_active = TRUE ORDER BY next_fetch_at LIMIT $2`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("due voices: %w", err)
	}
	type due struct {
		key VoiceKey
		at  int64
	}
	var found []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.key.WorkspaceID, &d.key.ID, &d.at); err != nil {
			rows.Close()
			return nil, fmt.Errorf("due voices: %w", err)
		}
		found = append(found, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("due voices: %w", err)
	}
	var out []VoiceKey
	for _, d := range found {
		n, err := s.db.Exec(ctx, `UPDATE brand_voices SET next_fetch_at = $4 WHERE workspace_id = $1 AND id = $2 AND next_fetch_at = $3`,
			d.key.WorkspaceID, d.key.ID, d.at, leaseUntil)
		if err != nil {
			return out, fmt.Errorf("claim voice: %w", err)
		}
		if n == 1 {
			out = append(out, d.key)
		}
	}
	return out, nil
}

// GetWorkspaceVoice returns an active voice of the workspace whatever its
// scope (the refresher acts for the voice's owner).
func (s *Store) GetWorkspaceVoice(ctx context.Context, workspaceID, id string) (Voice, error) {
	return scanVoice(s.db.QueryRow(ctx, `SELECT `+voiceColumns+` FROM brand_voices WHERE workspace_id = $1 AND id = $2 AND is_active = TRUE`, workspaceID, id))
}
