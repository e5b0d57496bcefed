package voice_test

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

func (b *bundle) modelCalls() int {
	b.model.mu.Lock()
	defer b.model.mu.Unlock()
	return len(b.model.reqs)
}

// Every profile the model writes costs the workspace one AI credit,
// refresh included; a workspace without credits makes no model call
// through voices: creating and re-pointing are 403, a due refresh is
// skipped and lastFetch says so, a text voice keeps its text as given.
func TestVoiceProfilesArePaidOneCreditEachAndNotMadeWithoutCredits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		b := setup(t, s, opts{profileText: true})
		ctx := context.Background()
		free, err := auth.CreateKey(ctx, s, "freebie", "free", "f@free.test")
		if err != nil {
			t.Fatal(err)
		}
		ws, _, _ := s.EnsureWorkspaceUser(ctx, "freebie", "free", "f@free.test")
		month := b.clock.Now().UTC().Format("2006-01")
		used := func() int {
			t.Helper()
			n, err := creditstore.New(s).CreditsUsed(ctx, ws.ID, month)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}

		id := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", free, `{"websiteurl":"https://example.com/","fetchInterval":"daily"}`).Want(t, 201).Data(t)["id"].(string)
		b.srv.Do(t, "PUT", "/v1/ai/brand-voice/"+id, free, `{"url":"https://example.com/other"}`).Want(t, 200)
		if used() != 2 || b.modelCalls() != 2 {
			t.Fatalf("after create and PUT url: %d credits, %d model calls; want 2 and 2", used(), b.modelCalls())
		}
		b.clock.add(25 * time.Hour)
		ids, err := b.svc.RefreshDue(ctx)
		if err != nil || len(ids) != 1 {
			t.Fatalf("due: %v %v", ids, err)
		}
		b.waitJob(t, ws.ID, ids[0])
		if used() != 3 || b.modelCalls() != 3 {
			t.Fatalf("after a refresh: %d credits, %d model calls; want 3 and 3", used(), b.modelCalls())
		}
		// A failed model call stores a measured profile and costs nothing.
		b.model.mu.Lock()
		b.model.err = errors.New("provider down")
		b.model.mu.Unlock()
		b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/file", free, `{"file":"https://example.com/style.md"}`).Want(t, 201)
		if used() != 3 {
			t.Fatalf("a failed profile call kept its credit: %d used", used())
		}
		b.model.mu.Lock()
		b.model.err = nil
		b.model.mu.Unlock()

		// The month's credits are spent.
		if _, ok, err := creditstore.New(s).ReserveCredits(ctx, ws.ID, month, 25-used(), 25); !ok || err != nil {
			t.Fatal("could not spend the rest", err)
		}
		calls := b.modelCalls()
		before := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+id, free, "").Want(t, 200).Data(t)
		b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", free, `{"websiteurl":"https://example.com/"}`).WantError(t, 403, "credit")
		b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/file", free, `{"file":"https://example.com/notes.txt"}`).WantError(t, 403, "credit")
		b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/website", free, `{"websiteurl":"https://example.com/","useWorker":true}`).WantError(t, 403, "credit")
		b.srv.Do(t, "PUT", "/v1/ai/brand-voice/"+id, free, `{"url":"https://example.com/"}`).WantError(t, 403, "credit")
		text := b.srv.Do(t, "POST", "/v1/ai/generate/brand-voice/text", free, `{"content":"We keep it short."}`).Want(t, 201).Data(t)["id"].(string)
		if v, _ := voicestore.New(s).GetWorkspaceVoice(ctx, ws.ID, text); v.Content != "We keep it short." {
			t.Fatalf("text voice without credits: %q", v.Content)
		}
		b.clock.add(25 * time.Hour)
		ids, err = b.svc.RefreshDue(ctx)
		if err != nil || len(ids) != 1 {
			t.Fatalf("due: %v %v", ids, err)
		}
		b.waitJob(t, ws.ID, ids[0])
		after := b.srv.Do(t, "GET", "/v1/ai/brand-voice/"+id, free, "").Want(t, 200).Data(t)
		lf := after["lastFetch"].(map[string]any)
		if lf["ok"] != false || !strings.Contains(lf["error"].(string), "refresh skipped: monthly AI credit limit reached") || after["content"] != before["content"] || after["url"] != "https://example.com/other" {
			t.Fatalf("skipped refresh: %v", after)
		}
		if b.modelCalls() != calls || used() != 25 {
			t.Fatalf("without credits: %d model calls (want %d), %d credits used (want 25)", b.modelCalls(), calls, used())
		}
	})
}
