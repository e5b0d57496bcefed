package store

import "github.com/google/uuid"

// NewID returns a new time-ordered identifier (UUIDv7), so ids sort by
// creation and spread over CockroachDB ranges without a sequence.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}
