package agentstore_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func TestChatSessionsArePersonalAndBlocksKeepTheirOrder(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := agentstore.ChatSession{ID: "s1", WorkspaceID: "acme", UserID: "u1"}
		if err := agentstore.New(s).CreateChatSession(ctx, &c); err != nil {
			t.Fatal(err)
		}
		if err := agentstore.New(s).CreateChatSession(ctx, &agentstore.ChatSession{ID: "s1", WorkspaceID: "other", UserID: "u9"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a used id: %v, want ErrConflict", err)
		}
		for i := range 2 {
			blocks := []agentstore.ChatBlock{
				{Role: "user", Type: "text", Content: fmt.Sprintf(`"q%d"`, i)},
				{Role: "assistant", Type: "text", Content: fmt.Sprintf(`"a%d"`, i)},
			}
			if err := agentstore.New(s).AppendChatBlocks(ctx, "acme", "u1", "s1", fmt.Sprintf("q%d", i), "m", blocks); err != nil {
				t.Fatal(err)
			}
		}
		if err := agentstore.New(s).AppendChatBlocks(ctx, "acme", "u2", "s1", "x", "m", []agentstore.ChatBlock{{Role: "user", Type: "text", Content: `"x"`}}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a teammate appended: %v", err)
		}
		got, err := agentstore.New(s).GetChatSession(ctx, "acme", "u1", "s1")
		if err != nil || got.Title != "q0" || got.MessageCount != 4 || got.Model != "m" {
			t.Fatalf("session %+v %v", got, err)
		}
		if _, err := agentstore.New(s).GetChatSession(ctx, "acme", "u2", "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a teammate read it: %v", err)
		}
		for id, want := range map[string]bool{"s1": true, "s2": false} {
			if got, err := agentstore.New(s).ChatSessionExists(ctx, id); err != nil || got != want {
				t.Fatalf("ChatSessionExists(%s) = %v %v, want %v", id, got, err, want)
			}
		}
		page, err := agentstore.New(s).ListChatBlocks(ctx, "acme", "s1", 1, 2)
		if err != nil || len(page) != 2 || page[0].Content != `"q1"` || page[1].Content != `"a0"` {
			t.Fatalf("blocks newest first from skip 1: %+v %v", page, err)
		}
		for _, c := range []struct {
			ws, user, session string
			want              bool
		}{{"acme", "u1", "s1", true}, {"acme", "u2", "s1", false}, {"other", "u1", "s1", false}, {"acme", "u1", "s2", false}} {
			if got, err := agentstore.New(s).ChatBlockOwned(ctx, c.ws, c.user, c.session, page[0].ID); err != nil || got != c.want {
				t.Fatalf("ChatBlockOwned(%s, %s, %s) = %v %v, want %v", c.ws, c.user, c.session, got, err, c.want)
			}
		}
		gen, err := agentstore.New(s).RecordGeneration(ctx, "acme", "u1", "m")
		if err != nil || gen == "" {
			t.Fatalf("RecordGeneration: %q %v", gen, err)
		}
		for ws, want := range map[string]bool{"acme": true, "other": false} {
			if got, err := agentstore.New(s).GenerationExists(ctx, ws, gen); err != nil || got != want {
				t.Fatalf("GenerationExists(%s) = %v %v, want %v", ws, got, err, want)
			}
		}
		f := agentstore.Feedback{WorkspaceID: "acme", UserID: "u1", TargetKind: agentstore.FeedbackChatBlock, TargetID: page[0].ID, Rating: "down"}
		if err := agentstore.New(s).InsertFeedback(ctx, &f); err != nil {
			t.Fatal(err)
		}
		page, _ = agentstore.New(s).ListChatBlocks(ctx, "acme", "s1", 1, 2)
		if page[0].Feedback == nil || page[0].Feedback.Rating != "down" || page[1].Feedback != nil {
			t.Fatalf("feedback on blocks: %+v", page)
		}
		recent, err := agentstore.New(s).RecentChatBlocks(ctx, "acme", "s1", 3)
		if err != nil || len(recent) != 3 || recent[0].Content != `"a0"` || recent[2].Content != `"a1"` {
			t.Fatalf("recent oldest first: %+v %v", recent, err)
		}
		// A block's creation time is kept when given, the store's now otherwise.
		s.SetClock(func() time.Time { return time.UnixMilli(7777) })
		if err := agentstore.New(s).AppendChatBlocks(ctx, "acme", "u1", "s1", "", "", []agentstore.ChatBlock{
			{Role: "user", Type: "text", Content: `"then"`, CreatedAt: 1234}, {Role: "assistant", Type: "text", Content: `"now"`},
		}); err != nil {
			t.Fatal(err)
		}
		recent, err = agentstore.New(s).RecentChatBlocks(ctx, "acme", "s1", 2)
		if err != nil || len(recent) != 2 || recent[0].CreatedAt != 1234 || recent[1].CreatedAt != 7777 {
			t.Fatalf("creation times of new blocks: %+v %v, want 1234 and 7777", recent, err)
		}
		if err := agentstore.New(s).DeleteChatSession(ctx, "acme", "u2", "s1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a teammate deleted: %v", err)
		}
		if err := agentstore.New(s).DeleteChatSession(ctx, "acme", "u1", "s1"); err != nil {
			t.Fatal(err)
		}
		if left, _ := agentstore.New(s).RecentChatBlocks(ctx, "acme", "s1", 10); len(left) != 0 {
			t.Fatalf("blocks outlived their session: %d", len(left))
		}
	})
}

func TestAProposalIsClaimedOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := agentstore.New(s).CreateChatSession(ctx, &agentstore.ChatSession{ID: "p1", WorkspaceID: "acme", UserID: "u1"}); err != nil {
			t.Fatal(err)
		}
		token, action := "ct_1", "schedule_content"
		if err := agentstore.New(s).AppendChatBlocks(ctx, "acme", "u1", "p1", "", "", []agentstore.ChatBlock{{Role: "assistant", Type: "proposal", Content: `"p"`, Action: &action, ConfirmToken: &token}}); err != nil {
			t.Fatal(err)
		}
		if _, err := agentstore.New(s).ClaimProposal(ctx, "other", "p1", token); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace claimed: %v", err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := agentstore.New(s).ClaimProposal(ctx, "acme", "p1", token)
				if err != nil && !errors.Is(err, agentstore.ErrAlreadyConfirmed) {
					t.Error(err)
				}
				mu.Lock()
				won += map[bool]int{true: 1}[err == nil]
				mu.Unlock()
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d claims succeeded, want 1", won)
		}
		if err := agentstore.New(s).ReleaseProposal(ctx, "acme", "p1", token); err != nil {
			t.Fatal(err)
		}
		if _, err := agentstore.New(s).ClaimProposal(ctx, "acme", "p1", token); err != nil {
			t.Fatalf("claim after release: %v", err)
		}
	})
}
