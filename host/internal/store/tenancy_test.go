package store_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/creditstore"
	"github.com/heraldhq/herald/host/internal/store/destinationstore"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"testing"

	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// tenancy holds one row of each workspace-scoped kind in workspace A, and
// workspace B, whose calls must neither see nor change them.
type tenancy struct {
	a, b         string // workspace ids
	userA, userB string
	schedule     store.Schedule
	webhook      store.Webhook
	voice        voicestore.Voice
	site         store.TrafficSite
	jobID        string
}

func newTenancy(t *testing.T, s *store.Store, n int) *tenancy {
	t.Helper()
	ctx := context.Background()
	wa, ua, err := s.EnsureWorkspaceUser(ctx, fmt.Sprintf("a%d", n), "business", fmt.Sprintf("a%d@a.test", n))
	if err != nil {
		t.Fatal(err)
	}
	wb, ub, err := s.EnsureWorkspaceUser(ctx, fmt.Sprintf("b%d", n), "business", fmt.Sprintf("b%d@b.test", n))
	if err != nil {
		t.Fatal(err)
	}
	f := &tenancy{a: wa.ID, b: wb.ID, userA: ua.ID, userB: ub.ID, jobID: store.NewID()}
	if err := jobstore.New(s).InsertJobs(ctx, nil, []jobstore.Job{{ID: f.jobID, WorkspaceID: f.a, Queue: "contentQueue", Name: "publish", State: store.JobWaiting, Data: "{}", MaxAttempts: 1, RunAt: 1, CreatedAt: 1}}); err != nil {
		t.Fatal(err)
	}
	f.webhook = store.Webhook{WorkspaceID: f.a, Name: "hook", DisplayURL: "https://a.test/hook", Sealed: "v1.a"}
	if err := s.CreateWebhook(ctx, &f.webhook); err != nil {
		t.Fatal(err)
	}
	when := s.Now() - 1000
	f.schedule = store.Schedule{WorkspaceID: f.a, UserID: f.userA, ExportTo: "webhook", Status: store.SchedulePending,
		WhenToExport: &when, WebhookID: &f.webhook.ID, Content: `{"title":"a"}`, JobID: &f.jobID}
	if err := s.InsertSchedule(ctx, nil, &f.schedule); err != nil {
		t.Fatal(err)
	}
	if err := destinationstore.New(s).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: f.a, Destination: "wordpress", Sealed: "v1.a", Fields: []string{"url"}}); err != nil {
		t.Fatal(err)
	}
	f.voice = voicestore.Voice{WorkspaceID: f.a, UserID: f.userA, Scope: "team", Name: "A voice", Type: "text", Content: "plain"}
	if err := voicestore.New(s).CreateVoice(ctx, &f.voice); err != nil {
		t.Fatal(err)
	}
	if f.site, _, err = s.CreateTrafficSite(ctx, store.TrafficSite{WorkspaceID: f.a, SiteKey: fmt.Sprintf("ks_tenancy%d", n), Domain: "a.test", Name: "A", IsActive: true}); err != nil {
		t.Fatal(err)
	}
	return f
}

// intact fails unless every row of workspace A is as newTenancy left it.
func (f *tenancy) intact(ctx context.Context, s *store.Store) error {
	sc, err := s.GetSchedule(ctx, f.a, f.schedule.ID)
	if err != nil || sc.Status != store.SchedulePending || sc.Attempts != 0 || sc.JobID == nil || *sc.JobID != f.jobID || sc.LastError != nil {
		return fmt.Errorf("A's schedule changed: %+v, %v", sc, err)
	}
	if w, err := s.GetWebhook(ctx, f.a, f.webhook.ID); err != nil || w.Sealed != "v1.a" {
		return fmt.Errorf("A's webhook changed: %+v, %v", w, err)
	}
	if c, err := destinationstore.New(s).GetConnection(ctx, f.a, "wordpress"); err != nil || c.Sealed != "v1.a" {
		return fmt.Errorf("A's connection changed: %+v, %v", c, err)
	}
	if v, err := voicestore.New(s).GetVoice(ctx, f.a, f.userA, f.voice.ID); err != nil || v.Name != "A voice" || v.Content != "plain" || !v.IsActive {
		return fmt.Errorf("A's voice changed: %+v, %v", v, err)
	}
	if site, err := s.TrafficSiteByKey(ctx, f.site.SiteKey); err != nil || !site.IsActive || site.WorkspaceID != f.a {
		return fmt.Errorf("A's traffic site changed: %+v, %v", site, err)
	}
	if j, err := jobstore.New(s).GetJob(ctx, f.a, f.jobID); err != nil || j.State != store.JobWaiting {
		return fmt.Errorf("A's job changed: %+v, %v", j, err)
	}
	return nil
}

// notFound is nil when err is ErrNotFound: the refusal every cross-workspace
// read or write of one row must give.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("got %v, want ErrNotFound", err)
}

func none[T any](what string, rows []T, err error) error {
	if err != nil || len(rows) != 0 {
		return fmt.Errorf("%s of another workspace: %d rows, %v; want none", what, len(rows), err)
	}
	return nil
}

func refused(what string, ok bool, err error) error {
	if err != nil || ok {
		return fmt.Errorf("%s across workspaces: ok %v, %v; want false", what, ok, err)
	}
	return nil
}

// Every workspace-scoped store method, called with workspace B and the ids
// of A's rows, finds nothing and changes nothing. A method added to the
// store that takes a workspace id belongs in this table.
func TestWorkspaceScopedMethodsNeverReachAnotherWorkspace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		cross func(ctx context.Context, s *store.Store, f *tenancy) error
	}{
		{"GetSchedule", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := s.GetSchedule(ctx, f.b, f.schedule.ID)
			return notFound(err)
		}},
		{"ListSchedules", func(ctx context.Context, s *store.Store, f *tenancy) error {
			rows, total, err := s.ListSchedules(ctx, f.b, 0, 20)
			if total != 0 {
				return fmt.Errorf("total %d", total)
			}
			return none("schedules", rows, err)
		}},
		{"CancelSchedule", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, _, err := s.CancelSchedule(ctx, f.b, f.schedule.ID)
			return notFound(err)
		}},
		{"ClaimSchedule", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, ok, err := s.ClaimSchedule(ctx, f.b, f.schedule.ID)
			return refused("claim", ok, err)
		}},
		{"ReclaimSchedule", func(ctx context.Context, s *store.Store, f *tenancy) error {
			// A's schedule is publishing for this one (claimed by A), so
			// only the workspace guards it.
			if _, ok, err := s.ClaimSchedule(ctx, f.a, f.schedule.ID); !ok || err != nil {
				return fmt.Errorf("claim in A: %v %v", ok, err)
			}
			_, ok, err := s.ReclaimSchedule(ctx, f.b, f.schedule.ID, 1)
			if err := refused("reclaim", ok, err); err != nil {
				return err
			}
			if sc, err := s.GetSchedule(ctx, f.a, f.schedule.ID); err != nil || sc.Attempts != 1 {
				return fmt.Errorf("A's schedule after a reclaim from B: %+v, %v", sc, err)
			}
			return errSkipIntact
		}},
		{"FinishSchedule", func(ctx context.Context, s *store.Store, f *tenancy) error {
			if _, ok, err := s.ClaimSchedule(ctx, f.a, f.schedule.ID); !ok || err != nil {
				return fmt.Errorf("claim in A: %v %v", ok, err)
			}
			ok, err := s.FinishSchedule(ctx, f.b, f.schedule.ID, 1, store.ScheduleOutcome{Status: store.ScheduleFailed, Error: "from B"})
			if err := refused("finish", ok, err); err != nil {
				return err
			}
			if sc, err := s.GetSchedule(ctx, f.a, f.schedule.ID); err != nil || sc.Status != store.SchedulePublishing || sc.LastError != nil {
				return fmt.Errorf("A's schedule after a finish from B: %+v, %v", sc, err)
			}
			return errSkipIntact
		}},
		{"FailUnfinishedSchedule", func(ctx context.Context, s *store.Store, f *tenancy) error {
			return s.FailUnfinishedSchedule(ctx, f.b, f.schedule.ID, "from B", nil)
		}},
		{"SetScheduleJob", func(ctx context.Context, s *store.Store, f *tenancy) error {
			return s.SetScheduleJob(ctx, nil, f.b, f.schedule.ID, "job-of-b")
		}},
		{"ReplaceScheduleJob", func(ctx context.Context, s *store.Store, f *tenancy) error {
			ok, err := s.ReplaceScheduleJob(ctx, nil, f.b, f.schedule.ID, &f.jobID, "job-of-b")
			return refused("replace job", ok, err)
		}},
		{"GetWebhook", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := s.GetWebhook(ctx, f.b, f.webhook.ID)
			return notFound(err)
		}},
		{"ListWebhooks", func(ctx context.Context, s *store.Store, f *tenancy) error {
			rows, err := s.ListWebhooks(ctx, f.b)
			return none("webhooks", rows, err)
		}},
		{"DeleteWebhook", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := s.DeleteWebhook(ctx, f.b, f.webhook.ID, true, "deleted")
			return notFound(err)
		}},
		{"GetConnection", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := destinationstore.New(s).GetConnection(ctx, f.b, "wordpress")
			return notFound(err)
		}},
		{"ListConnections", func(ctx context.Context, s *store.Store, f *tenancy) error {
			m, err := destinationstore.New(s).ListConnections(ctx, f.b)
			if err != nil || len(m) != 0 {
				return fmt.Errorf("connections of another workspace: %v, %v", m, err)
			}
			return nil
		}},
		{"DeleteConnection", func(ctx context.Context, s *store.Store, f *tenancy) error {
			return notFound(destinationstore.New(s).DeleteConnection(ctx, f.b, "wordpress"))
		}},
		{"PutConnection", func(ctx context.Context, s *store.Store, f *tenancy) error {
			// B connecting the same destination is B's own row.
			if err := destinationstore.New(s).PutConnection(ctx, &destinationstore.Connection{WorkspaceID: f.b, Destination: "wordpress", Sealed: "v1.b", Fields: []string{"url"}}); err != nil {
				return err
			}
			if c, err := destinationstore.New(s).GetConnection(ctx, f.b, "wordpress"); err != nil || c.Sealed != "v1.b" {
				return fmt.Errorf("B's own connection: %+v, %v", c, err)
			}
			return nil
		}},
		{"GetJob", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := jobstore.New(s).GetJob(ctx, f.b, f.jobID)
			return notFound(err)
		}},
		{"GetVoice", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := voicestore.New(s).GetVoice(ctx, f.b, f.userB, f.voice.ID)
			return notFound(err)
		}},
		{"ListVoices", func(ctx context.Context, s *store.Store, f *tenancy) error {
			rows, err := voicestore.New(s).ListVoices(ctx, f.b, f.userB)
			return none("voices", rows, err)
		}},
		{"UpdateVoice", func(ctx context.Context, s *store.Store, f *tenancy) error {
			name := "taken over"
			_, err := voicestore.New(s).UpdateVoice(ctx, f.b, f.userB, f.voice.ID, voicestore.VoiceUpdate{Name: &name})
			return notFound(err)
		}},
		{"DeactivateVoice", func(ctx context.Context, s *store.Store, f *tenancy) error {
			return notFound(voicestore.New(s).DeactivateVoice(ctx, f.b, f.userB, f.voice.ID))
		}},
		{"ListTrafficSites", func(ctx context.Context, s *store.Store, f *tenancy) error {
			rows, err := s.ListTrafficSites(ctx, f.b)
			return none("traffic sites", rows, err)
		}},
		{"SetTrafficSiteActive", func(ctx context.Context, s *store.Store, f *tenancy) error {
			return notFound(s.SetTrafficSiteActive(ctx, f.b, f.site.ID, false))
		}},
		{"PrincipalByUser", func(ctx context.Context, s *store.Store, f *tenancy) error {
			_, err := s.PrincipalByUser(ctx, f.b, f.userA)
			if err == nil {
				return errors.New("A's user resolved under workspace B")
			}
			return nil
		}},
		{"ReserveCredits", func(ctx context.Context, s *store.Store, f *tenancy) error {
			if _, ok, err := creditstore.New(s).ReserveCredits(ctx, f.a, "2026-11", 1, 1); !ok || err != nil {
				return fmt.Errorf("A's reservation: %v %v", ok, err)
			}
			if used, err := creditstore.New(s).CreditsUsed(ctx, f.b, "2026-11"); err != nil || used != 0 {
				return fmt.Errorf("B's credits used after A spent one: %d, %v", used, err)
			}
			if _, ok, err := creditstore.New(s).ReserveCredits(ctx, f.b, "2026-11", 1, 1); !ok || err != nil {
				return fmt.Errorf("B's own reservation refused after A spent its allowance: %v %v", ok, err)
			}
			return nil
		}},
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newTenancy(t, s, i)
				err := tc.cross(ctx, s, f)
				if errors.Is(err, errSkipIntact) {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := f.intact(ctx, s); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// errSkipIntact ends a case that checked A's rows itself (it changed them
// on purpose, as A).
var errSkipIntact = errors.New("checked")
