package agentstore

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// ChatSession is one personal agent conversation.
type ChatSession struct {
	ID           string
	WorkspaceID  string
	UserID       string
	Title        string
	Model        string
	MessageCount int64
	CreatedAt    int64
	UpdatedAt    int64
	// TrainingOptIn says the owner lets the workspace's fine-tuning jobs
	// train on this session's up-rated exchanges (default false).
	TrainingOptIn bool
}

// ChatBlock is one stored message block of a session. Content is a JSON
// value as text; Args is the JSON object of a proposal's arguments.
type ChatBlock struct {
	ID           string
	SessionID    string
	Seq          int64
	Role         string
	Type         string
	Content      string
	Model        *string
	ToolName     *string
	ToolCallID   *string
	Action       *string
	Args         *string
	ConfirmToken *string
	ConfirmedAt  *int64
	CreatedAt    int64
	// Feedback is the latest rating of the block (read paths only).
	Feedback *Feedback
}

// Feedback is one rating of a chat block, a job or an inline generation.
type Feedback struct {
	ID          string
	WorkspaceID string
	UserID      string
	TargetKind  string
	TargetID    string
	Rating      string
	Comment     *string
	CreatedAt   int64
}

// Feedback target kinds.
const (
	FeedbackChatBlock  = "chat_block"
	FeedbackJob        = "job"
	FeedbackGeneration = "generation"
)

// ErrAlreadyConfirmed is returned when a proposal's token was used before.
var ErrAlreadyConfirmed = errors.New("proposal already confirmed")

const chatSessionColumns = `id, workspace_id, user_id, title, model, message_count, created_at, updated_at, training_opt_in`

func scanChatSession(r interface{ Scan(...any) error }) (ChatSession, error) {
	var c ChatSession
	err := r.Scan(&c.ID, &c.WorkspaceID, &c.UserID, &c.Title, &c.Model, &c.MessageCount, &c.CreatedAt, &c.UpdatedAt, &c.TrainingOptIn)
	return c, err
}

// CreateChatSession stores a new empty session; an id already used by
// anyone is store.ErrConflict.
func (s *Store) CreateChatSession(ctx context.Context, c *ChatSession) error {
	if c.ID == "" {
		c.ID = store.NewID()
	}
	now := s.db.Now()
	c.CreatedAt, c.UpdatedAt, c.MessageCount = now, now, 0
	_, err := s.db.Exec(ctx, `INSERT INTO chat_sessions (`+chatSessionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		c.ID, c.WorkspaceID, c.UserID, c.Title, c.Model, c.MessageCount, c.CreatedAt, c.UpdatedAt, c.TrainingOptIn)
	if s.db.IsConflict(err) {
		return store.ErrConflict
	}
	if err != nil {
		return fmt.Errorf("create chat session: %w", err)
	}
	return nil
}

// GetChatSession returns the user's own session; any other is store.ErrNotFound.
func (s *Store) GetChatSession(ctx context.Context, workspaceID, userID, id string) (ChatSession, error) {
	return scanChatSession(s.db.QueryRow(ctx, `SELECT `+chatSessionColumns+` FROM chat_sessions WHERE workspace_id = $1 AND user_id = $2 AND id = $3`, workspaceID, userID, id))
}

// SetChatSessionTraining sets whether the user's own session may be used
// to fine-tune the workspace's model; any other session is store.ErrNotFound.
func (s *Store) SetChatSessionTraining(ctx context.Context, workspaceID, userID, id string, optIn bool) error {
	n, err := s.db.Exec(ctx, `UPDATE chat_sessions SET training_opt_in = $4 WHERE workspace_id = $1 AND user_id = $2 AND id = $3`, workspaceID, userID, id, optIn)
	if err != nil {
		return fmt.Errorf("set chat session training: %w", err)
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ChatSessionExists reports whether any user anywhere holds id, so that a
// client-generated id is never given to two sessions.
func (s *Store) ChatSessionExists(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM chat_sessions WHERE id = $1`, id).Scan(&n)
	return n > 0, err
}

// LatestChatSession returns the user's most recently updated session.
func (s *Store) LatestChatSession(ctx context.Context, workspaceID, userID string) (ChatSession, error) {
	return scanChatSession(s.db.QueryRow(ctx, `SELECT `+chatSessionColumns+` FROM chat_sessions WHERE workspace_id = $1 AND user_id = $2
		ORDER BY updated_at DESC, id DESC LIMIT 1`, workspaceID, userID))
}

// ListChatSessions returns a page of the user's sessions, most recently
// updated first, and their total.
func (s *Store) ListChatSessions(ctx context.Context, workspaceID, userID string, skip, limit int) ([]ChatSession, int, error) {
	var total int
	if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM chat_sessions WHERE workspace_id = $1 AND user_id = $2`, workspaceID, userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count chat sessions: %w", err)
	}
	rows, err := s.db.Query(ctx, `SELECT `+chatSessionColumns+` FROM chat_sessions WHERE workspace_id = $1 AND user_id = $2
		ORDER BY updated_at DESC, id DESC LIMIT $3 OFFSET $4`, workspaceID, userID, limit, skip)
	if err != nil {
		return nil, 0, fmt.Errorf("list chat sessions: %w", err)
	}
	defer rows.Close()
	var out []ChatSession
	for rows.Next() {
		c, err := scanChatSession(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list chat sessions: %w", err)
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// DeleteChatSession removes the user's session with its blocks.
func (s *Store) DeleteChatSession(ctx context.Context, workspaceID, userID, id string) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		n, err := q.Exec(ctx, `DELETE FROM chat_sessions WHERE workspace_id = $1 AND user_id = $2 AND id = $3`, workspaceID, userID, id)
		if err != nil {
			return fmt.Errorf("delete chat session: %w", err)
		}
		if n == 0 {
			return store.ErrNotFound
		}
		if _, err := q.Exec(ctx, `DELETE FROM chat_blocks WHERE workspace_id = $1 AND session_id = $2`, workspaceID, id); err != nil {
			return fmt.Errorf("delete chat blocks: %w", err)
		}
		return nil
	})
}

const chatBlockColumns = `id, session_id, seq, role, type, content, model, tool_name, tool_call_id, action, args, confirm_token, confirmed_at, created_at`

func scanChatBlock(r interface{ Scan(...any) error }) (ChatBlock, error) {
	var b ChatBlock
	err := r.Scan(&b.ID, &b.SessionID, &b.Seq, &b.Role, &b.Type, &b.Content, &b.Model, &b.ToolName, &b.ToolCallID, &b.Action, &b.Args, &b.ConfirmToken, &b.ConfirmedAt, &b.CreatedAt)
	return b, err
}

// AppendChatBlocks adds blocks at the end of the user's session (Seq is
// set, and IDs and times when empty: a streamed turn names its blocks as it
// sends them), counts them, sets the session's model when model
// is not empty and its title when it has none yet.
func (s *Store) AppendChatBlocks(ctx context.Context, workspaceID, userID, sessionID, title, model string, blocks []ChatBlock) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		var curTitle, curModel string
		err := q.QueryRow(ctx, `SELECT title, model FROM chat_sessions WHERE workspace_id = $1 AND user_id = $2 AND id = $3`+s.db.ForUpdate(),
			workspaceID, userID, sessionID).Scan(&curTitle, &curModel)
		if err != nil {
			return err
		}
		var next int64
		if err := q.QueryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM chat_blocks WHERE workspace_id = $1 AND session_id = $2`, workspaceID, sessionID).Scan(&next); err != nil {
			return fmt.Errorf("next block: %w", err)
		}
		now := s.db.Now()
		for i := range blocks {
			b := &blocks[i]
			next++
			b.SessionID, b.Seq = sessionID, next
			if b.ID == "" {
				b.ID = store.NewID()
			}
			if b.CreatedAt == 0 {
				b.CreatedAt = now
			}
			_, err := q.Exec(ctx, `INSERT INTO chat_blocks (`+chatBlockColumns+`, workspace_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
				b.ID, b.SessionID, b.Seq, b.Role, b.Type, b.Content, b.Model, b.ToolName, b.ToolCallID, b.Action, b.Args, b.ConfirmToken, b.ConfirmedAt, b.CreatedAt, workspaceID)
			if err != nil {
				return fmt.Errorf("insert chat block: %w", err)
			}
		}
		if curTitle == "" {
			curTitle = title
		}
		if model != "" {
			curModel = model
		}
		_, err = q.Exec(ctx, `UPDATE chat_sessions SET message_count = message_count + $4, updated_at = $5, title = $6, model = $7
			WHERE workspace_id = $1 AND user_id = $2 AND id = $3`, workspaceID, userID, sessionID, len(blocks), now, curTitle, curModel)
		return err
	})
}

// maxChatBlockKeys bounds the block ids of one IN list (a power of two:
// inList pads a list to one).
const maxChatBlockKeys = 256

// ListChatBlocks returns a page of a session's blocks, newest first, each
// with its latest feedback. The caller has checked that the session is
// the user's.
func (s *Store) ListChatBlocks(ctx context.Context, workspaceID, sessionID string, skip, limit int) ([]ChatBlock, error) {
	rows, err := s.db.Query(ctx, `SELECT `+chatBlockColumns+` FROM chat_blocks WHERE workspace_id = $1 AND session_id = $2
		ORDER BY seq DESC LIMIT $3 OFFSET $4`, workspaceID, sessionID, limit, skip)
	if err != nil {
		return nil, fmt.Errorf("list chat blocks: %w", err)
	}
	out, err := collectChatBlocks(rows)
	if err != nil || len(out) == 0 {
		return out, err
	}
	ids := make([]string, len(out))
	for i, b := range out {
		ids[i] = b.ID
	}
	latest := map[string]*Feedback{}
	err = store.InList(s.db.Dialect, []any{workspaceID}, ids, maxChatBlockKeys, func(list string, args []any) error {
		fb, err := s.db.Query(ctx, `SELECT id, user_id, target_id, rating, comment, created_at FROM feedback
			WHERE workspace_id = `+store.Placeholder(s.db.Dialect, 1)+` AND target_kind = 'chat_block' AND target_id IN (`+list+`)
			ORDER BY created_at, id`, args...)
		if err != nil {
			return err
		}
		defer fb.Close()
		for fb.Next() {
			f := Feedback{WorkspaceID: workspaceID, TargetKind: FeedbackChatBlock}
			if err := fb.Scan(&f.ID, &f.UserID, &f.TargetID, &f.Rating, &f.Comment, &f.CreatedAt); err != nil {
				return err
			}
			latest[f.TargetID] = &f
		}
		return fb.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list block feedback: %w", err)
	}
	for i := range out {
		out[i].Feedback = latest[out[i].ID]
	}
	return out, nil
}

// RecentChatBlocks returns the last limit blocks of a session, oldest
// first: the history a new message is answered with.
func (s *Store) RecentChatBlocks(ctx context.Context, workspaceID, sessionID string, limit int) ([]ChatBlock, error) {
	rows, err := s.db.Query(ctx, `SELECT `+chatBlockColumns+` FROM chat_blocks WHERE workspace_id = $1 AND session_id = $2
		ORDER BY seq DESC LIMIT $3`, workspaceID, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("chat history: %w", err)
	}
	out, err := collectChatBlocks(rows)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

func collectChatBlocks(rows store.Rows) ([]ChatBlock, error) {
	defer rows.Close()
	var out []ChatBlock
	for rows.Next() {
		b, err := scanChatBlock(rows)
		if err != nil {
			return nil, fmt.Errorf("scan chat block: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// ClaimProposal marks the proposal with token in the user's session as
// confirmed and returns it. It succeeds once per token: a second claim is
// ErrAlreadyConfirmed, an unknown token (or another session's) store.ErrNotFound.
func (s *Store) ClaimProposal(ctx context.Context, workspaceID, sessionID, token string) (ChatBlock, error) {
	var b ChatBlock
	err := s.db.Tx(ctx, func(q store.Querier) error {
		var err error
		b, err = scanChatBlock(q.QueryRow(ctx, `SELECT `+chatBlockColumns+` FROM chat_blocks WHERE workspace_id = $1 AND session_id = $2
			AND confirm_token = $3 AND type = 'proposal'`+s.db.ForUpdate(), workspaceID, sessionID, token))
		if err != nil {
			return err
		}
		if b.ConfirmedAt != nil {
			return ErrAlreadyConfirmed
		}
		now := s.db.Now()
		n, err := q.Exec(ctx, `UPDATE chat_blocks SET confirmed_at = $4 WHERE workspace_id = $1 AND session_id = $2 AND confirm_token = $3 AND confirmed_at IS NULL`,
			workspaceID, sessionID, token, now)
		if err != nil {
			return fmt.Errorf("claim proposal: %w", err)
		}
		if n == 0 {
			return ErrAlreadyConfirmed
		}
		b.ConfirmedAt = &now
		return nil
	})
	return b, err
}

// ReleaseProposal undoes ClaimProposal after the action failed, so that the
// user may confirm again.
func (s *Store) ReleaseProposal(ctx context.Context, workspaceID, sessionID, token string) error {
	_, err := s.db.Exec(ctx, `UPDATE chat_blocks SET confirmed_at = NULL WHERE workspace_id = $1 AND session_id = $2 AND confirm_token = $3`, workspaceID, sessionID, token)
	return err
}

// ChatBlockOwned reports whether block id lies in one of the user's own
// sessions.
func (s *Store) ChatBlockOwned(ctx context.Context, workspaceID, userID, sessionID, blockID string) (bool, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM chat_blocks b JOIN chat_sessions c ON c.id = b.session_id AND c.workspace_id = b.workspace_id
		WHERE b.workspace_id = $1 AND c.user_id = $2 AND b.session_id = $3 AND b.id = $4`, workspaceID, userID, sessionID, blockID).Scan(&n)
	return n > 0, err
}

// InsertFeedback stores one rating; ID and time are set.
func (s *Store) InsertFeedback(ctx context.Context, f *Feedback) error {
	f.ID, f.CreatedAt = store.NewID(), s.db.Now()
	_, err := s.db.Exec(ctx, `INSERT INTO feedback (id, workspace_id, user_id, target_kind, target_id, rating, comment, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, f.ID, f.WorkspaceID, f.UserID, f.TargetKind, f.TargetID, f.Rating, f.Comment, f.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert feedback: %w", err)
	}
	return nil
}

// RecordGeneration stores an inline generation so that it can be rated and
// returns its id.
func (s *Store) RecordGeneration(ctx context.Context, workspaceID, userID, model string) (string, error) {
	id := store.NewID()
	_, err := s.db.Exec(ctx, `INSERT INTO generations (id, workspace_id, user_id, model, created_at) VALUES ($1, $2, $3, $4, $5)`,
		id, workspaceID, userID, model, s.db.Now())
	if err != nil {
		return "", fmt.Errorf("record generation: %w", err)
	}
	return id, nil
}

// GenerationExists reports whether the workspace has generation id.
func (s *Store) GenerationExists(ctx context.Context, workspaceID, id string) (bool, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM generations WHERE workspace_id = $1 AND id = $2`, workspaceID, id).Scan(&n)
	return n > 0, err
}

// Store reads and writes the agent's tables of the one schema.
type Store struct{ db *store.Store }

// New returns the agent's queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
