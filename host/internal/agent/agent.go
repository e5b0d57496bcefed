package agent

import (
	"context"
	"errors"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"github.com/heraldhq/herald/host/internal/store/jobstore"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

// Page sizes (SPEC) and limits.
const (
	SessionPageSize = 10
	BlockPageSize   = 3
	MaxTextChars    = 32_000
	MaxTitleChars   = 80
	MaxCommentChars = 2_000
	// MaxSessionIDChars bounds client-generated session ids.
	MaxSessionIDChars = 128
	// historyBlocks is how many of a session's last blocks a turn reads
	// before trimming to the budget.
	historyBlocks = 400
	// DefaultContextTokens is the history budget when Deps gives none.
	DefaultContextTokens = 24_000
)

// Models is what the agent needs from the plugin manager's model router
// (*pluginhost.Manager implements it).
type Models interface {
	Models() []string
	Chat(ctx context.Context, model string, req sdk.ChatRequest, stream sdk.ChatStream) error
}

// Traffic reads AI traffic stats as GET /v1/ai-traffic/stats does
// (*traffic.Service).
type Traffic interface {
	Stats(ctx context.Context, p auth.Principal, q traffic.StatsQuery) (traffic.Report, error)
}

// Scheduler lists and creates schedules as /v1/scheduler does, with its
// plan rule (*schedule.Service).
type Scheduler interface {
	List(ctx context.Context, p auth.Principal, skip int) ([]schedule.Schedule, int, error)
	Create(ctx context.Context, p auth.Principal, in schedule.NewSchedule) (schedule.Schedule, error)
	// Check runs Create's checks of the request itself, for a proposal.
	Check(in schedule.NewSchedule) error
	// CountsSince and RecentPosts feed the context summary.
	CountsSince(ctx context.Context, workspaceID string, since int64) (store.ScheduleCounts, error)
	RecentPosts(ctx context.Context, workspaceID string, limit int) ([]store.Schedule, error)
}

// Jobs reads the workspace's jobs (*jobs.Queue): one job for feedback,
// the recent generated texts for the context summary.
type Jobs interface {
	Get(ctx context.Context, workspace, id string) (jobstore.Job, error)
	RecentGenerated(ctx context.Context, workspace string, contentNames []string, limit int) ([]jobstore.FinishedJob, error)
}

// Voices reads the brand voices the caller can see (*voice.Service).
type Voices interface {
	List(ctx context.Context, p auth.Principal) ([]voice.Voice, error)
	Get(ctx context.Context, p auth.Principal, id string) (voice.Voice, error)
}

// Images generates a hosted image, spending its own AI credit
// (*generate.Service).
type Images interface {
	GenerateImage(ctx context.Context, p auth.Principal, in generate.ImageInput) (generate.Image, error)
}

// SEOInput is what calculate_seo_score scores.
type SEOInput struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	Keyword string `json:"keyword"`
}

// SEOScoreFunc scores content as the SEO scoring route does; the result is
// any JSON value.
type SEOScoreFunc func(ctx context.Context, p auth.Principal, in SEOInput) (any, error)

// Deps are the dependencies of a Service. A nil feature dependency leaves
// its tool out (and its part of the context null).
type Deps struct {
	// Logger: nil → hclog.NewNullLogger().
	Logger hclog.Logger
	// Store is required.
	Store *store.Store
	// Quota is required: one AI credit per message (Reserve).
	Quota *quota.Checker
	// Plans give each plan's MonthlyAICredits for the context summary,
	// read at request time; nil: config.DefaultPlans().
	Plans *plans.Table
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Models is required.
	Models     Models
	Traffic    Traffic
	Scheduler  Scheduler
	Jobs       Jobs
	Voices     Voices
	Images     Images
	Visibility VisibilityFunc
	SEOScore   SEOScoreFunc
	// GapBrief gives get_gap_brief (a tracker's gap as a brief); nil: no
	// such tool.
	GapBrief GapBriefFunc
	// GapDraft gives write_for_gap (a post written for a tracker's gap,
	// proposed and then scheduled only on confirmation); nil: no such
	// tool.
	GapDraft GapDraftFunc
	// Events says the event feed is wired: the agent may list the
	// workspace's recent events (list_recent_events).
	Events bool
	// FineTune answers the workspace's fine-tuning job; nil: the stored
	// job, never refreshed from its provider.
	FineTune FineTuning
	// Tuned routes ft:<workspace name> to the workspace's fine-tuned
	// model; nil: that name is an unknown model.
	Tuned *finetune.Resolver
	// ContextTokens is the history budget in (estimated) tokens; 0:
	// DefaultContextTokens.
	ContextTokens int
	Registerer    prometheus.Registerer
}

// Service is the agent's domain logic.
type Service struct {
	log           hclog.Logger
	store         *store.Store
	chats         *agentstore.Store
	quota         *quota.Checker
	plans         *plans.Table
	now           func() time.Time
	models        Models
	traffic       Traffic
	scheduler     Scheduler
	jobs          Jobs
	voices        Voices
	images        Images
	visibility    VisibilityFunc
	seoScore      SEOScoreFunc
	gapBrief      GapBriefFunc
	gapDraft      GapDraftFunc
	events        bool
	fineTune      FineTuning
	tuned         *finetune.Resolver
	contextTokens int
	tools         map[string]tool
	toolDef       []sdk.Tool
	met           *metrics
}

// New returns the agent service with the tools its Deps allow, or an error
// naming each missing required dependency.
func New(d Deps) (*Service, error) {
	if err := deps.Check("agent",
		deps.Need("Store", d.Store == nil),
		deps.Need("Quota", d.Quota == nil),
		deps.Need("Models", d.Models == nil),
	); err != nil {
		return nil, err
	}
	if d.Logger == nil {
		d.Logger = hclog.NewNullLogger()
	}
	if d.Plans == nil {
		d.Plans = plans.New(nil)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.ContextTokens <= 0 {
		d.ContextTokens = DefaultContextTokens
	}
	if d.FineTune == nil {
		ft, err := finetune.New(finetune.Deps{Store: d.Store, Logger: d.Logger})
		if err != nil {
			return nil, err
		}
		d.FineTune = ft
	}
	met, err := newMetrics(d.Registerer)
	if err != nil {
		return nil, err
	}
	log := d.Logger.Named("agent")
	s := &Service{
		log: log, store: d.Store, chats: agentstore.New(d.Store), quota: d.Quota.WithLogger(log), plans: d.Plans, now: d.Now,
		models: d.Models, traffic: d.Traffic, scheduler: d.Scheduler, jobs: d.Jobs, voices: d.Voices, images: d.Images,
		visibility: d.Visibility, seoScore: d.SEOScore, gapBrief: d.GapBrief, gapDraft: d.GapDraft, events: d.Events, fineTune: d.FineTune, tuned: d.Tuned,
		contextTokens: d.ContextTokens, met: met,
	}
	s.tools, s.toolDef = s.registerTools()
	return s, nil
}

// ToolNames lists the tools this service offers the model, in order.
func (s *Service) ToolNames() []string {
	out := make([]string, len(s.toolDef))
	for i, t := range s.toolDef {
		out[i] = t.Name
	}
	return out
}

// ChatSession is one of a user's personal chat sessions. Times are epoch
// milliseconds.
type ChatSession struct {
	ID, Title, Model     string
	MessageCount         int64
	CreatedAt, UpdatedAt int64
	// TrainingOptIn: the owner lets the workspace's fine-tuning jobs
	// train on the session's up-rated exchanges.
	TrainingOptIn bool
}

// Block is one ordered piece of a session: a text, a tool call, a tool
// result or a proposal (Role and Type), with its latest feedback.
type Block struct {
	ID, Role, Type string
	// Content is a JSON value (a string for texts).
	Content         string
	Model, ToolName *string
	ToolCallID      *string
	Action, Args    *string
	ConfirmToken    *string
	CreatedAt       int64
	Feedback        *BlockFeedback
}

// BlockFeedback is a block's latest rating.
type BlockFeedback struct {
	Rating  string
	Comment *string
}

func sessionOf(c agentstore.ChatSession) ChatSession {
	return ChatSession{ID: c.ID, Title: c.Title, Model: c.Model, MessageCount: c.MessageCount, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		TrainingOptIn: c.TrainingOptIn}
}

func blocksOf(rows []agentstore.ChatBlock) []Block {
	out := make([]Block, len(rows))
	for i, b := range rows {
		out[i] = Block{ID: b.ID, Role: b.Role, Type: b.Type, Content: b.Content, Model: b.Model, ToolName: b.ToolName, ToolCallID: b.ToolCallID,
			Action: b.Action, Args: b.Args, ConfirmToken: b.ConfirmToken, CreatedAt: b.CreatedAt}
		if f := b.Feedback; f != nil {
			out[i].Feedback = &BlockFeedback{Rating: f.Rating, Comment: f.Comment}
		}
	}
	return out
}

func blockRows(blocks []Block) []agentstore.ChatBlock {
	out := make([]agentstore.ChatBlock, len(blocks))
	for i, b := range blocks {
		out[i] = agentstore.ChatBlock{ID: b.ID, Role: b.Role, Type: b.Type, Content: b.Content, Model: b.Model, ToolName: b.ToolName, ToolCallID: b.ToolCallID,
			Action: b.Action, Args: b.Args, ConfirmToken: b.ConfirmToken, CreatedAt: b.CreatedAt}
	}
	return out
}

// appendBlocks stores a turn's new blocks at the end of the session and
// returns them as stored (times set).
func (s *Service) appendBlocks(ctx context.Context, p auth.Principal, sessionID, title, model string, blocks []Block) ([]Block, error) {
	rows := blockRows(blocks)
	err := s.chats.AppendChatBlocks(ctx, p.WorkspaceID, p.UserID, sessionID, title, model, rows)
	return blocksOf(rows), err
}

// ListSessions returns a page of the caller's own sessions and their total.
func (s *Service) ListSessions(ctx context.Context, p auth.Principal, skip int) ([]ChatSession, int, error) {
	if skip < 0 {
		return nil, 0, apierr.Invalid("skip must be 0 or more, got %d", skip)
	}
	rows, total, err := s.chats.ListChatSessions(ctx, p.WorkspaceID, p.UserID, skip, SessionPageSize)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ChatSession, len(rows))
	for i, c := range rows {
		out[i] = sessionOf(c)
	}
	return out, total, nil
}

// LatestSession returns the caller's most recent session (nil when none)
// and a page of its blocks, newest first.
func (s *Service) LatestSession(ctx context.Context, p auth.Principal, skip int) (*ChatSession, []Block, error) {
	if skip < 0 {
		return nil, nil, apierr.Invalid("skip must be 0 or more, got %d", skip)
	}
	c, err := s.chats.LatestChatSession(ctx, p.WorkspaceID, p.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	blocks, err := s.chats.ListChatBlocks(ctx, p.WorkspaceID, c.ID, skip, BlockPageSize)
	session := sessionOf(c)
	return &session, blocksOf(blocks), err
}

// Session returns one of the caller's sessions and a page of its blocks.
// Another user's session is reported like a missing one.
func (s *Service) Session(ctx context.Context, p auth.Principal, id string, skip int) (ChatSession, []Block, error) {
	if skip < 0 {
		return ChatSession{}, nil, apierr.Invalid("skip must be 0 or more, got %d", skip)
	}
	c, err := s.ownSession(ctx, p, id)
	if err != nil {
		return c, nil, err
	}
	blocks, err := s.chats.ListChatBlocks(ctx, p.WorkspaceID, c.ID, skip, BlockPageSize)
	return c, blocksOf(blocks), err
}

func (s *Service) ownSession(ctx context.Context, p auth.Principal, id string) (ChatSession, error) {
	if strings.TrimSpace(id) == "" {
		return ChatSession{}, apierr.Invalid("sessionId is required")
	}
	c, err := s.chats.GetChatSession(ctx, p.WorkspaceID, p.UserID, id)
	if errors.Is(err, store.ErrNotFound) {
		return ChatSession{}, apierr.NotFound("session %s not found", id)
	}
	return sessionOf(c), err
}

func checkSessionID(id string) error {
	if strings.TrimSpace(id) == "" {
		return apierr.Invalid("sessionId is required")
	}
	if utf8.RuneCountInString(id) > MaxSessionIDChars || strings.ContainsAny(id, "/?#\x00") {
		return apierr.Invalid("sessionId must be at most %d characters without '/', '?' or '#'", MaxSessionIDChars)
	}
	return nil
}

// CreateSession creates an empty session under a client-generated id. The
// caller's own existing id answers that session again (created false), so
// clients may retry; an id used by anyone else is 409.
func (s *Service) CreateSession(ctx context.Context, p auth.Principal, id string) (ChatSession, bool, error) {
	if err := checkSessionID(id); err != nil {
		return ChatSession{}, false, err
	}
	if c, err := s.chats.GetChatSession(ctx, p.WorkspaceID, p.UserID, id); err == nil {
		return sessionOf(c), false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return ChatSession{}, false, err
	}
	c := agentstore.ChatSession{ID: id, WorkspaceID: p.WorkspaceID, UserID: p.UserID}
	if err := s.chats.CreateChatSession(ctx, &c); errors.Is(err, store.ErrConflict) {
		return ChatSession{}, false, apierr.Conflict("sessionId %s is already in use; generate another", id)
	} else if err != nil {
		return ChatSession{}, false, err
	}
	return sessionOf(c), true, nil
}

// SetSessionTraining sets whether the workspace's fine-tuning jobs may
// train on the up-rated exchanges of one of the caller's own sessions
// (sessions are personal: another user's is 404, even a teammate's).
func (s *Service) SetSessionTraining(ctx context.Context, p auth.Principal, id string, optIn bool) (ChatSession, error) {
	if strings.TrimSpace(id) == "" {
		return ChatSession{}, apierr.Invalid("sessionId is required")
	}
	err := s.chats.SetChatSessionTraining(ctx, p.WorkspaceID, p.UserID, id, optIn)
	if errors.Is(err, store.ErrNotFound) {
		return ChatSession{}, apierr.NotFound("session %s not found", id)
	}
	if err != nil {
		return ChatSession{}, err
	}
	return s.ownSession(ctx, p, id)
}

// DeleteSession removes one of the caller's sessions with its blocks.
func (s *Service) DeleteSession(ctx context.Context, p auth.Principal, id string) error {
	if strings.TrimSpace(id) == "" {
		return apierr.Invalid("sessionId is required")
	}
	err := s.chats.DeleteChatSession(ctx, p.WorkspaceID, p.UserID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("session %s not found", id)
	}
	return err
}

func title(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= MaxTitleChars {
		return text
	}
	r := []rune(text)
	return string(r[:MaxTitleChars])
}
