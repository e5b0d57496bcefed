package store

import (
	"context"
	"encoding/base64"
	"fmt"
)

// PutBlob stores an object's bytes under key.
func (s *Store) PutBlob(ctx context.Context, key, mime string, data []byte) error {
	_, err := s.exec(ctx, `INSERT INTO blobs (key, mime, size, data, created_at) VALUES ($1, $2, $3, $4, $5)`,
		key, mime, int64(len(data)), base64.StdEncoding.EncodeToString(data), s.Now())
	if err != nil {
		return fmt.Errorf("store blob: %w", err)
	}
	return nil
}

// GetBlob returns the MIME type and bytes stored under key, or ErrNotFound.
func (s *Store) GetBlob(ctx context.Context, key string) (string, []byte, error) {
	var mime, encoded string
	if err := s.queryRow(ctx, `SELECT mime, data FROM blobs WHERE key = $1`, key).Scan(&mime, &encoded); err != nil {
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
	if _, err := s.exec(ctx, `DELETE FROM blobs WHERE key = $1`, key); err != nil {
		return fmt.Errorf("delete blob: %w", err)
	}
	return nil
}
