package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// TestPostsMovesRulesAndOAuthStatesOnBothBackends runs the scheduler's
// post, rule and OAuth SQL on SQLite and PostgreSQL.
func TestPostsMovesRulesAndOAuthStatesOnBothBackends(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, user, err := s.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
		if err != nil {
			t.Fatal(err)
		}
		other, _, _ := s.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
		at := s.Now() + 3600*1000
		post := store.Post{WorkspaceID: ws.ID, UserID: user.ID, Title: "Launch", WhenToExport: &at}
		var scID string
		err = s.Tx(ctx, func(q store.Querier) error {
			if _, err := s.InsertPost(ctx, q, &post); err != nil {
				return err
			}
			sc := store.Schedule{WorkspaceID: ws.ID, UserID: user.ID, ExportTo: "webhook", Status: store.SchedulePending, WhenToExport: &at, Content: `{}`, PostID: &post.ID}
			err := s.InsertSchedule(ctx, q, &sc)
			scID = sc.ID
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.GetPost(ctx, other.ID, post.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace's post: %v", err)
		}
		// Moving: the schedule gets the new time and job, the post its time.
		later, job := at+86400*1000, "job-2"
		err = s.Tx(ctx, func(q store.Querier) error {
			ok, err := s.MoveSchedule(ctx, q, ws.ID, scID, later, &job)
			if err != nil || !ok {
				t.Fatalf("move: %v %v", ok, err)
			}
			return s.SetPostTime(ctx, q, ws.ID, post.ID, later)
		})
		if err != nil {
			t.Fatal(err)
		}
		p, scs, err := s.GetPost(ctx, ws.ID, post.ID)
		if err != nil || *p.WhenToExport != later || len(scs) != 1 || *scs[0].WhenToExport != later || *scs[0].JobID != job {
			t.Fatalf("after the move: %+v %+v %v", p, scs, err)
		}
		cal, err := s.Calendar(ctx, ws.ID, later, later+1, 10)
		if err != nil || len(cal) != 1 || cal[0].Title != "Launch" || cal[0].ScheduleID != scID {
			t.Fatalf("calendar: %+v %v", cal, err)
		}
		// An emptied post goes; one with a schedule stays.
		if err := s.DropEmptyPost(ctx, ws.ID, post.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.GetPost(ctx, ws.ID, post.ID); err != nil {
			t.Fatalf("a post with a schedule was dropped: %v", err)
		}
		// Rules: cancel stops them (another workspace's is unknown).
		next := at
		r := store.ScheduleRule{WorkspaceID: ws.ID, UserID: user.ID, Rule: `{}`, Template: `{}`, NextAt: &next}
		if err := s.InsertScheduleRule(ctx, &r); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.CancelScheduleRule(ctx, other.ID, r.ID); ok {
			t.Fatal("another workspace cancelled the rule")
		}
		if ok, err := s.CancelScheduleRule(ctx, ws.ID, r.ID); !ok || err != nil {
			t.Fatalf("cancel: %v %v", ok, err)
		}
		if due, _ := s.DueScheduleRules(ctx, at+1, 10); len(due) != 0 {
			t.Fatalf("a cancelled rule is due: %+v", due)
		}
		// OAuth states are consumed once.
		st := destinationstore.OAuthState{StateHash: "h1", WorkspaceID: ws.ID, UserID: user.ID, Destination: "linkedin", CreatedAt: s.Now(), ExpiresAt: s.Now() + 60000}
		if err := destinationstore.New(s).InsertOAuthState(ctx, st); err != nil {
			t.Fatal(err)
		}
		if _, err := destinationstore.New(s).ConsumeOAuthState(ctx, "h1", "webflow"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another destination's state: %v", err)
		}
		if got, err := destinationstore.New(s).ConsumeOAuthState(ctx, "h1", "linkedin"); err != nil || got.WorkspaceID != ws.ID {
			t.Fatalf("consume: %+v %v", got, err)
		}
		if _, err := destinationstore.New(s).ConsumeOAuthState(ctx, "h1", "linkedin"); !errors.Is(err, destinationstore.ErrOAuthStateUsed) {
			t.Fatalf("second consume: %v", err)
		}
		// Connection expiry: listed as expiring unless refreshable past it.
		if err := destinationstore.New(s).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: ws.ID, Destination: "linkedin", Sealed: "x", Fields: []string{"token"}}); err != nil {
			t.Fatal(err)
		}
		soon, far := s.Now()+86400*1000, s.Now()+300*86400*1000
		destinationstore.New(s).SetConnectionExpiry(ctx, ws.ID, "linkedin", &soon, &far)
		if list, _ := destinationstore.New(s).ExpiringConnections(ctx, s.Now()+7*86400*1000, 10); len(list) != 0 {
			t.Fatalf("a refreshable connection is expiring: %+v", list)
		}
		destinationstore.New(s).SetConnectionExpiry(ctx, ws.ID, "linkedin", &soon, nil)
		if list, _ := destinationstore.New(s).ExpiringConnections(ctx, s.Now()+7*86400*1000, 10); len(list) != 1 || *list[0].ExpiresAt != soon {
			t.Fatalf("expiring: %+v", list)
		}
	})
}
