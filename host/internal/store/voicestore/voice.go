package voicestore

import (
	"context"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
	"unicode/utf8"
)

// Voice is a stored brand voice.
type Voice struct {
	ID          string
	WorkspaceID string
	UserID      string
	Scope       string
	Name        string
	Type        string
	URL         *string
	Content     string
	// ContentLength is the length of Content in characters. List fills it
	// without loading Content.
	ContentLength int
	FetchInterval *string
	IsActive      bool
	CreatedAt     int64
	UpdatedAt     int64
	// SourceText is the text the voice was built from when Content is a
	// profile of it (website, file, and text voices profiled by a model).
	SourceText *string
	// LastFetch is the outcome of the latest fetch of URL; nil before one.
	LastFetch *VoiceFetch
	// NextFetchAt is when a website voice is due for re-fetching (epoch
	// ms); nil when it is not refreshed.
	NextFetchAt *int64
}

// VoiceFetch is the outcome of fetching a voice's URL.
type VoiceFetch struct {
	At    int64
	OK    bool
	Error string
}

// VoiceUpdate changes the fields that are not nil.
type VoiceUpdate struct {
	Name, Content, URL, FetchInterval *string
	// SourceText replaces the source text (set with Content by a re-fetch).
	SourceText *string
}

const voiceColumns = `id, workspace_id, user_id, scope, name, type, url, content, fetch_interval, is_active, created_at, updated_at,
	source_text, last_fetch_at, last_fetch_ok, last_fetch_error, next_fetch_at`

// voiceVisible limits voices to the caller: team voices of the workspace and
// the caller's own personal voices. It expects $1 workspace and $2 user.
const voiceVisible = `workspace_id = $1 AND is_active = TRUE AND (scope = 'team' OR user_id = $2)`

// voiceListColumns are the columns a list shows; the content is replaced by
// its length in characters (LENGTH counts characters on both backends), so
// lists never load voice bodies.
const voiceListColumns = `id, scope, name, type, url, LENGTH(content), created_at, updated_at`

func scanVoice(r interface{ Scan(...any) error }) (Voice, error) {
	var v Voice
	var fetchAt *int64
	var fetchOK *bool
	var fetchErr *string
	err := r.Scan(&v.ID, &v.WorkspaceID, &v.UserID, &v.Scope, &v.Name, &v.Type, &v.URL, &v.Content, &v.FetchInterval, &v.IsActive, &v.CreatedAt, &v.UpdatedAt,
		&v.SourceText, &fetchAt, &fetchOK, &fetchErr, &v.NextFetchAt)
	v.ContentLength = utf8.RuneCountInString(v.Content)
	if fetchAt != nil {
		v.LastFetch = &VoiceFetch{At: *fetchAt, OK: fetchOK != nil && *fetchOK}
		if fetchErr != nil {
			v.LastFetch.Error = *fetchErr
		}
	}
	return v, err
}

// CreateVoice stores a new active voice; ID and times are set when empty.
// With a store.Cap it is an *store.OverCapError, and nothing is written, when the
// workspace already holds cap.Max voices (checked in the same transaction).
func (s *Store) CreateVoice(ctx context.Context, v *Voice, caps ...store.Cap) error {
	if v.ID == "" {
		v.ID = store.NewID()
	}
	now := s.db.Now()
	v.CreatedAt, v.UpdatedAt, v.IsActive = now, now, true
	v.ContentLength = utf8.RuneCountInString(v.Content)
	var fetchAt *int64
	var fetchOK *bool
	var fetchErr *string
	if f := v.LastFetch; f != nil {
		fetchAt, fetchOK = &f.At, &f.OK
		if f.Error != "" {
			fetchErr = &f.Error
		}
	}
	err := s.db.Capped(ctx, store.CountVoices, v.WorkspaceID, caps, func(q store.Querier) error {
		_, err := q.Exec(ctx, `INSERT INTO brand_voices (`+voiceColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
			v.ID, v.WorkspaceID, v.UserID, v.Scope, v.Name, v.Type, v.URL, v.Content, v.FetchInterval, v.IsActive, v.CreatedAt, v.UpdatedAt,
			v.SourceText, fetchAt, fetchOK, fetchErr, v.NextFetchAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("create voice: %w", err)
	}
	return nil
}

// ListVoices returns the active voices the user can see, newest first,
// without their content (ContentLength is set) or fetch interval.
func (s *Store) ListVoices(ctx context.Context, workspaceID, userID string) ([]Voice, error) {
	rows, err := s.db.Query(ctx, `SELECT `+voiceListColumns+` FROM brand_voices WHERE `+voiceVisible+` ORDER BY created_at DESC, id DESC`, workspaceID, userID)
	if err != nil {
		return nil, fmt.Errorf("list voices: %w", err)
	}
	defer rows.Close()
	var out []Voice
	for rows.Next() {
		v := Voice{WorkspaceID: workspaceID, IsActive: true}
		err := rows.Scan(&v.ID, &v.Scope, &v.Name, &v.Type, &v.URL, &v.ContentLength, &v.CreatedAt, &v.UpdatedAt)
		if err != nil {
			return nil, fmt.Errorf("list voices: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// GetVoice returns an active voice the user can see, or store.ErrNotFound.
func (s *Store) GetVoice(ctx context.Context, workspaceID, userID, id string) (Voice, error) {
	return scanVoice(s.db.QueryRow(ctx, `SELECT `+voiceColumns+` FROM brand_voices WHERE `+voiceVisible+` AND id = $3`, workspaceID, userID, id))
}

// UpdateVoice applies u to an active voice the user can see and returns the
// result, or store.ErrNotFound.
func (s *Store) UpdateVoice(ctx context.Context, workspaceID, userID, id string, u VoiceUpdate) (Voice, error) {
	var out Voice
	err := s.db.Tx(ctx, func(q store.Querier) error {
		v, err := scanVoice(q.QueryRow(ctx, `SELECT `+voiceColumns+` FROM brand_voices WHERE `+voiceVisible+` AND id = $3`, workspaceID, userID, id))
		if err != nil {
			return err
		}
		if u.Name != nil {
			v.Name = *u.Name
		}
		if u.Content != nil {
			v.Content = *u.Content
		}
		if u.URL != nil {
			v.URL = u.URL
		}
		if u.FetchInterval != nil {
			v.FetchInterval = u.FetchInterval
		}
		if u.SourceText != nil {
			v.SourceText = u.SourceText
		}
		v.UpdatedAt = s.db.Now()
		v.ContentLength = utf8.RuneCountInString(v.Content)
		if _, err := q.Exec(ctx, `UPDATE brand_voices SET name = $1, content = $2, url = $3, fetch_interval = $4, updated_at = $5, source_text = $8 WHERE id = $6 AND workspace_id = $7`,
			v.Name, v.Content, v.URL, v.FetchInterval, v.UpdatedAt, v.ID, workspaceID, v.SourceText); err != nil {
			return fmt.Errorf("update voice: %w", err)
		}
		out = v
		return nil
	})
	return out, err
}

// DeactivateVoice soft-deletes a voice the user can see: the row stays with
// is_active false. store.ErrNotFound when there is no such active voice.
func (s *Store) DeactivateVoice(ctx context.Context, workspaceID, userID, id string) error {
	n, err := s.db.Exec(ctx, `UPDATE brand_voices SET is_active = FALSE, updated_at = $4 WHERE `+voiceVisible+` AND id = $3`, workspaceID, userID, id, s.db.Now())
	if err != nil {
		return fmt.Errorf("delete voice: %w", err)
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Store reads and writes the voice area's tables of the one schema.
type Store struct{ db *store.Store }

// New returns the voice queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
