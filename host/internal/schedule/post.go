package schedule

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/store"
)

// NewPost is a post to one or more destinations (POST /v1/posts, and POST
// /v1/scheduler/create with exportTo as a list). Content, Title, Text and
// Body are the post's contentToExport; each destination's Variant is
// merged over it for that destination alone.
type NewPost struct {
	Destinations []PostDestination
	Content      map[string]any
	Title        *string
	Text         *string
	Body         *string
	WhenToExport string
	// Status is pending (the default) or draft, for every destination.
	Status  string
	Confirm *bool
	// Image is the post's image, stored once for all its destinations.
	Image  ImageInput
	Repeat *Repeat
}

// PostDestination is one destination of a post and its variant.
type PostDestination struct {
	ExportTo  string
	WebhookID *string
	// Variant is merged over the post's contentToExport (title, body,
	// imageUrl, ... of this destination).
	Variant map[string]any
}

// PostStatus sums up the statuses of a post's schedules.
type PostStatus string

// Post statuses. When every schedule has the same status the post has that
// word; otherwise a post still being worked on is publishing, one with
// both published and failed schedules is partially_failed, and one with
// failed and cancelled schedules is failed.
const (
	PostDraft           PostStatus = "draft"
	PostPending         PostStatus = "pending"
	PostPublishing      PostStatus = "publishing"
	PostPublished       PostStatus = "published"
	PostPartiallyFailed PostStatus = "partially_failed"
	PostFailed          PostStatus = "failed"
	PostCancelled       PostStatus = "cancelled"
)

// postStatus is the status of a post whose schedules have statuses sts.
func postStatus(sts []Status) PostStatus {
	count := map[Status]int{}
	for _, st := range sts {
		count[st]++
	}
	switch {
	case len(sts) == 0:
		return PostCancelled
	case len(count) == 1:
		return PostStatus(sts[0])
	case count[StatusPending]+count[StatusPublishing] > 0:
		return PostPublishing
	case count[StatusPublished] > 0 && count[StatusFailed] > 0:
		return PostPartiallyFailed
	case count[StatusFailed] > 0:
		return PostFailed
	case count[StatusPublished] > 0:
		return PostPublished
	case count[StatusDraft] > 0:
		return PostDraft
	}
	return PostCancelled
}

// Post is a planned post and its schedules, one per destination.
type Post struct {
	ID           string
	WorkspaceID  string
	Title        string
	Status       PostStatus
	WhenToExport *int64
	// RuleID and OccurrenceAt are set on an occurrence of a repeat rule.
	RuleID       *string
	OccurrenceAt *int64
	Schedules    []Schedule
	CreatedAt    int64
	UpdatedAt    int64
}

func postOf(p store.Post, rows []store.Schedule) Post {
	out := Post{ID: p.ID, WorkspaceID: p.WorkspaceID, Title: p.Title, WhenToExport: p.WhenToExport, RuleID: p.RuleID,
		OccurrenceAt: p.OccurrenceAt, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Schedules: make([]Schedule, len(rows))}
	sts := make([]Status, len(rows))
	for i, sc := range rows {
		out.Schedules[i] = fromStore(sc)
		sts[i] = out.Schedules[i].Status
	}
	out.Status = postStatus(sts)
	return out
}

// maxTitle bounds the calendar's label of a post.
const maxTitle = 200

// titleOf is the calendar's label of content: its title, else the start of
// its text or body.
func titleOf(content map[string]any) string {
	for _, k := range []string{"title", "text", "content"} {
		if v, ok := content[k].(string); ok && strings.TrimSpace(v) != "" {
			v = strings.TrimSpace(v)
			if i := strings.IndexByte(v, '\n'); i >= 0 {
				v = v[:i]
			}
			if utf8.RuneCountInString(v) > maxTitle {
				v = string([]rune(v)[:maxTitle])
			}
			return v
		}
	}
	return ""
}

// destinationCap is the plan's cap on destinations per post.
func destinationCap(plan config.Plan) int {
	if plan.PostDestinations > 0 {
		return plan.PostDestinations
	}
	return config.DefaultPostDestinations
}

// CreatePost validates and stores a post with one schedule per destination,
// all in one transaction with their publish jobs; with a repeat rule, the
// rule and its first occurrences. 400 names the field of a destination
// (destinations[i].…); more destinations than the plan allows is a 403
// naming destinations.
func (s *Service) CreatePost(ctx context.Context, p auth.Principal, in NewPost) (Post, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Post{}, err
	}
	if len(in.Destinations) == 0 {
		return Post{}, apierr.Invalid("destinations is required: at least one of %s", strings.Join(s.destinationNames(), ", "))
	}
	plan, _ := s.plans.Get(p.Plan)
	if n, max := len(in.Destinations), destinationCap(plan); n > max {
		return Post{}, apierr.Forbidden("destinations: %d destinations, the %s plan allows %d per post", n, p.Plan, max)
	}
	seen := map[string]int{}
	base := NewSchedule{Content: in.Content, Title: in.Title, Text: in.Text, Body: in.Body}
	content := base.content()
	ins := make([]NewSchedule, len(in.Destinations))
	for i, d := range in.Destinations {
		key := strings.TrimSpace(d.ExportTo)
		if d.WebhookID != nil {
			key += "/" + *d.WebhookID
		}
		if j, dup := seen[key]; dup {
			return Post{}, apierr.Invalid("destinations[%d] repeats destinations[%d] (%s): a post goes to each destination once", i, j, key)
		}
		seen[key] = i
		c := maps.Clone(content)
		maps.Copy(c, d.Variant)
		ins[i] = NewSchedule{ExportTo: d.ExportTo, WebhookID: d.WebhookID, Content: c, WhenToExport: in.WhenToExport, Status: in.Status, Confirm: in.Confirm}
		if err := ins[i].validate(s.destinationNames()); err != nil {
			return Post{}, fieldOf(fmt.Sprintf("destinations[%d]", i), err)
		}
	}
	return s.createPost(ctx, p, ins, in.Image, in.Repeat, plan)
}

// fieldOf prefixes the message of a request error with the request field
// it is about.
func fieldOf(field string, err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	out := apierr.New(ce.Code(), field+": "+ce.Message())
	for _, d := range ce.Details() {
		out.AddDetail(d)
	}
	return out
}

// createPost stores the validated schedules ins as one post. The image is
// stored once for all of them; a destination's own contentToExport.imageUrl
// (a variant's) is its own.
func (s *Service) createPost(ctx context.Context, p auth.Principal, ins []NewSchedule, image ImageInput, repeat *Repeat, plan config.Plan) (_ Post, err error) {
	if err := s.quota.Room(ctx, store.CountSchedules, p.WorkspaceID); err != nil {
		return Post{}, err
	}
	first := ins[0]
	now := time.UnixMilli(s.store.Now())
	var when *int64
	if first.when != nil {
		if err := checkWhen(*first.when, now); err != nil {
			return Post{}, err
		}
		ms := first.when.UnixMilli()
		when = &ms
	}
	var r *rule
	if repeat != nil {
		if first.when == nil || first.status != StatusPending {
			return Post{}, apierr.Invalid("repeat needs a pending post with whenToExport (its first occurrence)")
		}
		checked, err := checkRepeat(*repeat, *first.when, now, plan)
		if err != nil {
			return Post{}, err
		}
		r = &checked
		ms := r.First
		when = &ms
	}
	meta := map[string]any{}
	if err := imageMeta(image, meta); err != nil {
		return Post{}, err
	}
	shared, err := s.hostImage(ctx, p.WorkspaceID, image, map[string]any{})
	if err != nil {
		return Post{}, err
	}
	var keys []string
	if shared.Key != nil {
		keys = append(keys, *shared.Key)
	}
	// A create refused after an image was stored leaves nothing behind.
	defer func() {
		if err != nil {
			for _, k := range keys {
				s.dropImage(context.WithoutCancel(ctx), k)
			}
		}
	}()
	rows := make([]store.Schedule, len(ins))
	for i, in := range ins {
		field := "destinations[" + fmt.Sprint(i) + "]"
		if len(ins) == 1 {
			field = ""
		}
		sc, err := s.prepare(ctx, p, in, shared, meta)
		if err != nil {
			if field != "" {
				err = fieldOf(field, err)
			}
			return Post{}, err
		}
		if sc.ImageKey != nil && (shared.Key == nil || *sc.ImageKey != *shared.Key) {
			keys = append(keys, *sc.ImageKey)
		}
		sc.WhenToExport = when
		rows[i] = sc
	}
	post := store.Post{WorkspaceID: p.WorkspaceID, UserID: p.UserID, Title: titleOf(ins[0].Content), WhenToExport: when}
	if r != nil {
		if !first.Targets.Empty() {
			return Post{}, apierr.Invalid("targetPrompts: a repeating post cannot target prompts (its impact is read per published post)")
		}
		return s.createRule(ctx, p, *r, post, rows)
	}
	if err := s.insertPost(ctx, &post, rows, first.Targets, s.quota.Cap(store.CountSchedules)); err != nil {
		return Post{}, err
	}
	return postOf(post, rows), nil
}

// prepare runs a validated schedule's destination checks and returns its
// row: credentials, its own image (a variant's imageUrl) or the post's
// shared one, the raw-image refusal and the plugin's Validate.
func (s *Service) prepare(ctx context.Context, p auth.Principal, in NewSchedule, shared hostedImage, meta map[string]any) (store.Schedule, error) {
	creds, err := s.creds.ExportCredentials(ctx, destination.Export{Workspace: p.WorkspaceID, Destination: in.ExportTo, WebhookID: in.WebhookID})
	if err != nil {
		return store.Schedule{}, err
	}
	content := maps.Clone(in.content())
	img := shared
	if shared.URL == "" {
		if img, err = s.hostImage(ctx, p.WorkspaceID, ImageInput{}, content); err != nil {
			return store.Schedule{}, err
		}
	}
	if img.URL != "" {
		content["imageUrl"] = img.URL
		maps.Copy(content, meta)
	}
	if err := refuseRawImages(content); err != nil {
		return store.Schedule{}, err
	}
	if err := s.validateWith(ctx, in.ExportTo, in.status, content, creds); err != nil {
		return store.Schedule{}, err
	}
	body, err := marshalContent(content)
	if err != nil {
		return store.Schedule{}, err
	}
	return store.Schedule{WorkspaceID: p.WorkspaceID, UserID: p.UserID, ExportTo: in.ExportTo, Status: in.status.stored(),
		WebhookID: in.WebhookID, Content: body, ImageKey: img.Key}, nil
}

// insertPost stores post and its schedules rows (with their targets, and the publish jobs of
// the pending ones) in one transaction. caps bound the workspace's waiting
// schedules.
func (s *Service) insertPost(ctx context.Context, post *store.Post, rows []store.Schedule, targets Targets, caps ...store.Cap) error {
	err := s.store.Tx(ctx, func(q store.Querier) error {
		if _, err := insertPostTx(ctx, s.store, s.queue, q, post, rows, caps...); err != nil {
			return err
		}
		for i := range rows {
			if err := s.insertTargets(ctx, q, &rows[i], targets); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return quota.Err(err)
	}
	s.queue.Wake(jobs.ContentQueue)
	return nil
}

// insertPostTx stores post and rows through q; it reports false, writing
// nothing, when the post is an occurrence that is already stored.
func insertPostTx(ctx context.Context, st *store.Store, queue Queue, q store.Querier, post *store.Post, rows []store.Schedule, caps ...store.Cap) (bool, error) {
	post.ID = store.NewID()
	ok, err := st.InsertPost(ctx, q, post)
	if err != nil || !ok {
		return false, err
	}
	for i := range rows {
		sc := &rows[i]
		sc.ID, sc.JobID, sc.PostID, sc.CreatedAt = store.NewID(), nil, &post.ID, 0
		if statusOf(sc.Status) == StatusPending {
			jobID, err := queue.EnqueueTx(ctx, q, publishJob(sc.WorkspaceID, sc.ID, *sc.WhenToExport))
			if err != nil {
				return false, fmt.Errorf("enqueue publish job: %w", err)
			}
			sc.JobID = &jobID
		}
		if err := st.InsertSchedule(ctx, q, sc, caps...); err != nil {
			return false, err
		}
	}
	return true, nil
}

// GetPost returns a post of the caller's workspace with its schedules.
func (s *Service) GetPost(ctx context.Context, p auth.Principal, id string) (Post, error) {
	if err := quota.SchedulerAPI(s.plans, p); err != nil {
		return Post{}, err
	}
	post, rows, err := s.store.GetPost(ctx, p.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return Post{}, apierr.NotFound("post %s not found", id)
	}
	if err != nil {
		return Post{}, err
	}
	return postOf(post, rows), nil
}
