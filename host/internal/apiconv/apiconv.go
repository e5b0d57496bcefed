package apiconv

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"
)

// Timestamp is ms (epoch milliseconds, as the store keeps times) as a
// proto Timestamp.
func Timestamp(ms int64) *timestamppb.Timestamp { return timestamppb.New(time.UnixMilli(ms)) }

// OptionalTimestamp is Timestamp, or nil for 0 (not set).
func OptionalTimestamp(ms int64) *timestamppb.Timestamp {
	if ms == 0 {
		return nil
	}
	return Timestamp(ms)
}

// JobQueued is the message of a response that queued job id: where to
// poll it.
func JobQueued(id string) string { return "Job queued; poll /v1/ai/generate/job/" + id }
