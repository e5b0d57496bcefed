package schedule

import (
	"context"
	"strings"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// A post may be written for a tracker's prompts: its targets name the
// tracker and the prompts (prompt ids or tags of that tracker). Once the
// post is published, its impact compares the tracker's figures on those
// prompts before and after publishing (docs/IMPACT.md).

// Bounds of a post's targets.
const (
	MaxTargetPrompts = 50
	MaxTargetChars   = 200
)

// Targets is the tracker and the prompts a post is written for.
type Targets struct {
	TrackerID string
	Prompts   []string
}

// Empty reports whether no targets were given.
func (t Targets) Empty() bool { return t.TrackerID == "" && len(t.Prompts) == 0 }

// TargetChecker checks targets against the workspace's trackers
// (*tracker.Service implements it): another workspace's tracker or a
// missing one is an API 404 naming trackerId, a target that is neither a
// prompt id nor a tag of the tracker a 400 naming targetPrompts.
type TargetChecker interface {
	CheckTargets(ctx context.Context, workspaceID, trackerID string, prompts []string) error
}

// validate trims the targets and checks their shape (no I/O).
func (t *Targets) validate() error {
	t.TrackerID = strings.TrimSpace(t.TrackerID)
	var prompts []string
	for i, p := range t.Prompts {
		p = strings.TrimSpace(p)
		if p == "" {
			return apierr.Invalid("targetPrompts[%d] is empty", i)
		}
		if len(p) > MaxTargetChars {
			return apierr.Invalid("targetPrompts[%d] is longer than %d characters", i, MaxTargetChars)
		}
		prompts = append(prompts, p)
	}
	t.Prompts = prompts
	switch {
	case len(t.Prompts) > MaxTargetPrompts:
		return apierr.Invalid("targetPrompts has %d entries, at most %d", len(t.Prompts), MaxTargetPrompts)
	case len(t.Prompts) > 0 && t.TrackerID == "":
		return apierr.Invalid("trackerId is required when targetPrompts is set: the tracker whose prompts the post targets")
	case len(t.Prompts) == 0 && t.TrackerID != "":
		return apierr.Invalid("targetPrompts is required when trackerId is set: prompt ids or tags of the tracker")
	}
	return nil
}

// checkTargets checks the targets against the workspace's trackers.
func (s *Service) checkTargets(ctx context.Context, workspaceID string, t Targets) error {
	if t.Empty() {
		return nil
	}
	if s.trackers == nil {
		return apierr.Invalid("trackerId: this host does not track visibility, so a post cannot target prompts")
	}
	return s.trackers.CheckTargets(ctx, workspaceID, t.TrackerID, t.Prompts)
}

// insertTargets stores a new schedule's targets in its transaction.
func (s *Service) insertTargets(ctx context.Context, q store.Querier, sc *store.Schedule, t Targets) error {
	if t.Empty() {
		return nil
	}
	return s.store.InsertScheduleTarget(ctx, q, store.ScheduleTarget{
		ScheduleID: sc.ID, WorkspaceID: sc.WorkspaceID, TrackerID: t.TrackerID, Prompts: t.Prompts,
	})
}

// attachTargets sets the targets of the listed schedules.
func (s *Service) attachTargets(ctx context.Context, workspaceID string, list []Schedule) error {
	ids := make([]string, len(list))
	for i, sc := range list {
		ids[i] = sc.ID
	}
	targets, err := s.store.ScheduleTargets(ctx, workspaceID, ids)
	if err != nil {
		return err
	}
	for i := range list {
		if t, ok := targets[list[i].ID]; ok {
			list[i].Targets = Targets{TrackerID: t.TrackerID, Prompts: t.Prompts}
		}
	}
	return nil
}

// Targeted returns a schedule of the caller's workspace with its targets,
// for the scheduler's impact route: the scheduler's plan rule applies, and
// another workspace's schedule is a 404.
func (s *Service) Targeted(ctx context.Context, p auth.Principal, id string) (Schedule, error) {
	return s.Get(ctx, p, id)
}

// TargetedPosts returns a tracker's targeted schedules of a workspace,
// oldest published first.
func (s *Service) TargetedPosts(ctx context.Context, workspaceID, trackerID string) ([]Schedule, error) {
	rows, err := s.store.TargetedPosts(ctx, workspaceID, trackerID)
	if err != nil {
		return nil, err
	}
	out := make([]Schedule, len(rows))
	for i, r := range rows {
		out[i] = Schedule{ID: r.ScheduleID, WorkspaceID: r.WorkspaceID, Status: statusOf(r.Status), ExternalURL: r.ExternalURL,
			PublishedAt: r.PublishedAt, Targets: Targets{TrackerID: r.TrackerID, Prompts: r.Prompts}}
	}
	return out, nil
}
