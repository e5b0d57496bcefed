package store_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"sync"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// Each capped create counts and inserts in one transaction under the
// workspace's row lock: 50 concurrent creates against a cap of 5 store
// exactly 5, the rest are *store.OverCapError, and another workspace is
// not affected. On SQLite and PostgreSQL.
func TestCappedCreatesHoldUnderConcurrency(t *testing.T) {
	t.Parallel()
	creates := map[store.Counted]func(s *store.Store, ws string, i int, c store.Cap) error{
		store.CountVoices: func(s *store.Store, ws string, i int, c store.Cap) error {
			return voicestore.New(s).CreateVoice(context.Background(), &voicestore.Voice{WorkspaceID: ws, Scope: "team", Name: "v", Type: "text", Content: "x"}, c)
		},
		store.CountWebhooks: func(s *store.Store, ws string, i int, c store.Cap) error {
			return s.CreateWebhook(context.Background(), &store.Webhook{WorkspaceID: ws, Name: "w", DisplayURL: "https://x", Sealed: "s"}, c)
		},
		store.CountSites: func(s *store.Store, ws string, i int, c store.Cap) error {
			_, _, err := s.CreateTrafficSite(context.Background(), store.TrafficSite{WorkspaceID: ws, SiteKey: fmt.Sprint(ws, i), Domain: fmt.Sprintf("s%d.test", i), Name: "s", IsActive: true}, c)
			return err
		},
		store.CountSchedules: func(s *store.Store, ws string, i int, c store.Cap) error {
			return s.InsertSchedule(context.Background(), nil, &store.Schedule{WorkspaceID: ws, ExportTo: "webhook", Status: store.ScheduleDraft, Content: "{}"}, c)
		},
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for kind, create := range creates {
			ws, _, _ := s.EnsureWorkspaceUser(ctx, "cap-"+string(kind), "free", "a@"+string(kind)+".test")
			var (
				mu       sync.Mutex
				ok, over int
				wg       sync.WaitGroup
			)
			for i := range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := create(s, ws.ID, i, store.Cap{Max: 5})
					var oc *store.OverCapError
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						ok++
					case errors.As(err, &oc) && oc.Kind == kind && oc.Max == 5:
						over++
					default:
						t.Errorf("%s: %v", kind, err)
					}
				}()
			}
			wg.Wait()
			n, err := s.CountWorkspace(ctx, kind, ws.ID)
			if err != nil || ok != 5 || over != 45 || n != 5 {
				t.Fatalf("%s: %d created, %d over the cap, %d stored (%v); want 5, 45, 5", kind, ok, over, n, err)
			}
			// Without a cap nothing is counted.
			if err := create(s, ws.ID, 99, store.Cap{}); err != nil {
				t.Fatalf("%s without a cap: %v", kind, err)
			}
		}
	})
}
