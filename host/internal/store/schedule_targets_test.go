package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// A post's targets are stored beside it and read back per workspace: the
// targets of another workspace's schedule, and its tracker's posts, are
// never returned.
func TestScheduleTargetsAreWorkspaceScoped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var ids []string
		for i, ws := range []string{"acme", "acme", "rival"} {
			sc := newSchedule(ws, store.ScheduleDraft, nil)
			if i == 0 {
				pub, url := int64(5000), "https://acme.test/post/"
				sc.Status, sc.PublishedAt, sc.ExternalURL = store.SchedulePublished, &pub, &url
			}
			if err := s.InsertSchedule(ctx, nil, sc); err != nil {
				t.Fatal(err)
			}
			if err := s.InsertScheduleTarget(ctx, nil, store.ScheduleTarget{ScheduleID: sc.ID, WorkspaceID: ws, TrackerID: "tr1", Prompts: []string{"guide", fmt.Sprint("p_", i)}}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, sc.ID)
		}
		got, err := s.ScheduleTargets(ctx, "acme", ids)
		if err != nil || len(got) != 2 || got[ids[0]].TrackerID != "tr1" || fmt.Sprint(got[ids[1]].Prompts) != "[guide p_1]" {
			t.Fatalf("acme's targets = %v, %v; want its two schedules only", got, err)
		}
		posts, err := s.TargetedPosts(ctx, "acme", "tr1")
		if err != nil || len(posts) != 2 || posts[0].ScheduleID != ids[0] || posts[0].PublishedAt == nil || *posts[0].ExternalURL != "https://acme.test/post/" {
			t.Fatalf("acme's targeted posts = %+v, %v; want the published one first, then the draft", posts, err)
		}
		if posts, err := s.TargetedPosts(ctx, "rival", "tr1"); err != nil || len(posts) != 1 || posts[0].ScheduleID != ids[2] {
			t.Errorf("rival's targeted posts = %+v, %v", posts, err)
		}
	})
}
