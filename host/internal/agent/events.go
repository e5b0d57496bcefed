package agent

import (
	"context"
	"encoding/json"
	"time"
)

// recentEventsLimit is how many events list_recent_events returns at most.
const recentEventsLimit = 20

// toolRecentEvents lists the workspace's newest events (reports, tracker
// runs, posts, connections, credits, crawlers), newest first. Their
// payloads carry receivers' error answers and paths from site logs, so
// the result reaches the model as untrusted data (outsideText).
func (s *Service) toolRecentEvents(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	var a struct {
		Type  string `json:"type"`
		Limit int    `json:"limit"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Limit <= 0 || a.Limit > recentEventsLimit {
		a.Limit = recentEventsLimit
	}
	evs, err := s.store.ListEvents(ctx, t.p.WorkspaceID, a.Type, a.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		out = append(out, map[string]any{"type": e.Type, "date": time.UnixMilli(e.CreatedAt).UTC().Format(time.RFC3339),
			"data": json.RawMessage(e.Data), "link": e.Link})
	}
	return map[string]any{"events": out}, nil
}
