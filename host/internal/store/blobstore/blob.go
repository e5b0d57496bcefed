package blobstore

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store"
)

// PutBlob stores an object's bytes under key.
func (s *Store) PutBlob(ctx context.Context, key, mime string, data []byte) error {
	_, err := s.db.Exec(ctx, `INSERT INTO blobs (key, mime, size, data, created_at) VALUES ($1, $2, $3, $4, $5)`,
		key, mime, int64(len(data)), base64.StdEncoding.EncodeToString(data), s.db.Now())
	if err != nil {
		return fmt.Errorf("store blob: %w", err)
	}
	return nil
}

// GetBlob returns the MIME type and bytes stored under key, or store.ErrNotFound.
func (s *Store) GetBlob(ctx context.Context, key string) (string, []byte, error) {
	var mime, encoded string
	if err := s.db.QueryRow(ctx, `SELECT mime, data FROM blobs WHERE key = $1`, key).Scan(&mime, &encoded); err != nil {
		return "", nil, err
	}
	data, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return "", nil, fmt.Errorf("read blob %s: %w", key, err)
	}
	return mime, data, nil
}

// DeleteBlob removes the object under key, if any.
func (s *Store) DeleteBlob(ctx context.Context, key string) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM blobs WHERE key = $1`, key); err != nil {
		return fmt.Errorf("delete blob: %w", err)
	}
	return nil
}

// Store reads and writes the blob tables of the one schema.
type Store struct{ db *store.Store }

// New returns the blob queries on db.
func New(db *store.Store) *Store { return &Store{db: db} }
