package finetunestore_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Fine-tuning reads only the sessions whose owner opted in, on SQLite and
// PostgreSQL; only the owner can set the flag.
func TestUpRatedExchangesComeOnlyFromOptedInSessions(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, c := range []struct{ id, user, q string }{{"in", "u1", `"opted in"`}, {"out", "u2", `"personal"`}} {
			if err := agentstore.New(s).CreateChatSession(ctx, &agentstore.ChatSession{ID: c.id, WorkspaceID: "acme", UserID: c.user}); err != nil {
				t.Fatal(err)
			}
			blocks := []agentstore.ChatBlock{{Role: "user", Type: "text", Content: c.q}, {Role: "assistant", Type: "text", Content: `"answer"`}}
			if err := agentstore.New(s).AppendChatBlocks(ctx, "acme", c.user, c.id, "t", "m", blocks); err != nil {
				t.Fatal(err)
			}
			if err := agentstore.New(s).InsertFeedback(ctx, &agentstore.Feedback{WorkspaceID: "acme", UserID: c.user, TargetKind: agentstore.FeedbackChatBlock, TargetID: blocks[1].ID, Rating: "up"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := agentstore.New(s).SetChatSessionTraining(ctx, "acme", "u2", "in", true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another user opted a session in: %v", err)
		}
		if ex, err := finetunestore.New(s).UpRatedExchanges(ctx, "acme"); err != nil || len(ex) != 0 {
			t.Fatalf("before any opt-in: %+v %v", ex, err)
		}
		if err := agentstore.New(s).SetChatSessionTraining(ctx, "acme", "u1", "in", true); err != nil {
			t.Fatal(err)
		}
		ex, err := finetunestore.New(s).UpRatedExchanges(ctx, "acme")
		if err != nil || len(ex) != 1 || ex[0].User != `"opted in"` {
			t.Fatalf("exchanges %+v %v, want only the opted-in session's", ex, err)
		}
		if c, _ := agentstore.New(s).GetChatSession(ctx, "acme", "u1", "in"); !c.TrainingOptIn {
			t.Fatalf("session %+v", c)
		}
	})
}
