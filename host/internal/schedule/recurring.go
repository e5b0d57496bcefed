package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/store"
)

// RepeatAhead is how far ahead of time a repeat rule's occurrences are
// created (each a post of its own, with a schedule and a publish job per
// destination): the rule's create creates those within it, and every
// host's publisher creates the next ones as time passes.
const RepeatAhead = 7 * 24 * time.Hour

// template is what every occurrence of a rule copies: the post's title and
// its schedules (destination, webhook, contentToExport, image key), all
// checked when the rule was created.
type template struct {
	Title     string             `json:"title"`
	Schedules []templateSchedule `json:"schedules"`
}

type templateSchedule struct {
	ExportTo  string  `json:"exportTo"`
	WebhookID *string `json:"webhookId,omitempty"`
	Content   string  `json:"content"`
	ImageKey  *string `json:"imageKey,omitempty"`
}

// createRule stores the repeat rule r of post (whose schedules are rows)
// and creates its occurrences within RepeatAhead; it returns the first
// occurrence.
func (s *Service) createRule(ctx context.Context, p auth.Principal, r rule, post store.Post, rows []store.Schedule) (Post, error) {
	tpl := template{Title: post.Title}
	for _, sc := range rows {
		tpl.Schedules = append(tpl.Schedules, templateSchedule{ExportTo: sc.ExportTo, WebhookID: sc.WebhookID, Content: sc.Content, ImageKey: sc.ImageKey})
	}
	ruleJSON, err := json.Marshal(r)
	if err != nil {
		return Post{}, err
	}
	tplJSON, err := json.Marshal(tpl)
	if err != nil {
		return Post{}, err
	}
	first := r.First
	row := store.ScheduleRule{WorkspaceID: p.WorkspaceID, UserID: p.UserID, Rule: string(ruleJSON), Template: string(tplJSON), NextAt: &first}
	if err := s.store.InsertScheduleRule(ctx, &row); err != nil {
		return Post{}, err
	}
	if _, err := createOccurrences(ctx, s.store, s.queue, row, s.store.Now()+s.ahead.Milliseconds()); err != nil {
		return Post{}, err
	}
	s.queue.Wake(jobs.ContentQueue)
	entries, err := s.store.Calendar(ctx, p.WorkspaceID, first, first+1, 100)
	if err != nil {
		return Post{}, err
	}
	for _, e := range entries {
		if e.RuleID != nil && *e.RuleID == row.ID {
			return s.GetPost(ctx, p, e.PostID)
		}
	}
	// Not within RepeatAhead yet: the post as its first occurrence will
	// be, without an id until a host creates it.
	planned := Post{WorkspaceID: p.WorkspaceID, Title: post.Title, Status: PostPending, WhenToExport: &first, RuleID: &row.ID, OccurrenceAt: &first}
	for _, sc := range rows {
		planned.Schedules = append(planned.Schedules, Schedule{WorkspaceID: p.WorkspaceID, ExportTo: sc.ExportTo, Status: StatusPending,
			WhenToExport: &first, WebhookID: sc.WebhookID, Content: sc.Content})
	}
	return planned, nil
}

// CancelRule stops a repeat rule of the caller's workspace; the
// occurrences already created stay, each a post that DELETE /v1/posts/{id}
// cancels.
func (s *Service) CancelRule(ctx context.Context, p auth.Principal, id string) error {
	ok, err := s.store.CancelScheduleRule(ctx, p.WorkspaceID, id)
	if err == nil && !ok {
		return apierr.NotFound("repeat rule %s not found", id)
	}
	return err
}

// createOccurrences creates the occurrences of rule row due up to upTo
// (epoch ms) that do not exist yet, each in its own transaction with the
// rule's advance, and returns how many it created. Exactly once across
// hosts: an occurrence's post is unique on (rule, occurrence time), so a
// second host's insert writes nothing, and the advance is guarded by the
// next occurrence seen, so a host that lost the race rolls back.
func createOccurrences(ctx context.Context, st *store.Store, queue Queue, row store.ScheduleRule, upTo int64) (int, error) {
	var r rule
	var tpl template
	if err := json.Unmarshal([]byte(row.Rule), &r); err != nil {
		return 0, fmt.Errorf("repeat rule %s: %w", row.ID, err)
	}
	if err := json.Unmarshal([]byte(row.Template), &tpl); err != nil {
		return 0, fmt.Errorf("repeat rule %s: %w", row.ID, err)
	}
	made := 0
	for row.NextAt != nil && *row.NextAt <= upTo {
		at := *row.NextAt
		created := row.CreatedCount + 1
		var next *int64
		if t, ok := r.next(time.UnixMilli(at), created); ok {
			ms := t.UnixMilli()
			next = &ms
		}
		inserted := false
		err := st.Tx(ctx, func(q store.Querier) error {
			post := store.Post{WorkspaceID: row.WorkspaceID, UserID: row.UserID, Title: tpl.Title, WhenToExport: &at, RuleID: &row.ID, OccurrenceAt: &at}
			rows := make([]store.Schedule, len(tpl.Schedules))
			for i, ts := range tpl.Schedules {
				rows[i] = store.Schedule{WorkspaceID: row.WorkspaceID, UserID: row.UserID, ExportTo: ts.ExportTo, Status: StatusPending.stored(),
					WhenToExport: &at, WebhookID: ts.WebhookID, Content: ts.Content, ImageKey: ts.ImageKey}
			}
			var err error
			if inserted, err = insertPostTx(ctx, st, queue, q, &post, rows); err != nil {
				return err
			}
			return st.AdvanceScheduleRule(ctx, q, row.ID, at, next, created)
		})
		if errors.Is(err, store.ErrRuleMoved) {
			return made, nil // another host created it
		}
		if err != nil {
			return made, err
		}
		if inserted {
			made++
		}
		row.NextAt, row.CreatedCount = next, created
	}
	return made, nil
}

// createDueOccurrences creates the occurrences of every rule due within
// RepeatAhead; the publisher runs it with each reconcile pass.
func (p *Publisher) createDueOccurrences(ctx context.Context) (int, error) {
	st := p.deps.Store
	upTo := st.Now() + p.opts.RepeatAhead.Milliseconds()
	rules, err := st.DueScheduleRules(ctx, upTo, 200)
	if err != nil {
		return 0, err
	}
	made := 0
	for _, r := range rules {
		n, err := createOccurrences(ctx, st, p.deps.Queue, r, upTo)
		made += n
		if err != nil {
			return made, err
		}
	}
	return made, nil
}
