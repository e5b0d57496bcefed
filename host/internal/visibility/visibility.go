package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/deps"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/sdk"
)

// Models is what reports need from the plugin host's model router.
type Models interface {
	// Models lists the configured model names and aliases.
	Models() []string
	GenerateText(ctx context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error)
}

// Crawler fetches the brand's site (a *site.Fetcher).
type Crawler interface {
	Crawl(ctx context.Context, url string) (site.Site, error)
}

// JobReport is the seoQueue job of a report, run by Service.RunReport with
// ReportJobOptions (host/jobs.go mounts it).
const JobReport = "seo_site_report"

// ReportJobOptions are the report job's: a report asks many engines, so
// one attempt may run long, and a retry resumes from the answers stored
// so far.
var ReportJobOptions = jobs.HandlerOptions{MaxAttempts: 3, Timeout: 30 * time.Minute}

// Limits and defaults.
const (
	// MaxEngines is how many chat model routes are asked by default.
	MaxEngines        = 4
	MaxCompetitors    = 20
	MaxPromptChars    = 1000
	OneOffPageSize    = 20
	DefaultCacheTTL   = 10 * time.Minute
	defaultHistory    = 90
	refreshWindow     = 24 * time.Hour
	answerTimeout     = 2 * time.Minute
	defaultConcurrent = 16
)

// Queue is what reports need of the job queue (a *jobs.Queue): a report's
// job is written in the transaction that writes the report, then the
// seoQueue's workers are woken.
type Queue interface {
	EnqueueTx(ctx context.Context, tx store.Querier, j jobs.NewJob) (string, error)
	Wake(queues ...string)
}

// Deps are the dependencies of a Service. Store, Queue, Models and Site
// are required.
type Deps struct {
	// Logger: nil logs nothing.
	Logger hclog.Logger
	Store  *store.Store
	Queue  Queue
	// Quota holds the AI credits a report or a tracker's run reserves
	// (quota/credits.go); New gives its copy the service's Plans, Now
	// and Logger. Required.
	Quota *quota.Checker
	// Plans gives each plan's report limits, read at request time (a
	// reload may Set it); nil: config.DefaultPlans.
	Plans *plans.Table
	// Now is the clock (tests): the credits' month comes by it too. nil:
	// time.Now.
	Now func() time.Time

	Models Models
	Site   Crawler
	// Config is the visibility block (engines, judge model, concurrency).
	Config config.Visibility
	// Slots caps a workspace's engine calls (Config.Concurrency) across
	// hosts (a *lease.Limiter); nil: per host.
	Slots Slots
	// CacheTTL is how long an answer is reused for an identical question
	// (default 10 minutes).
	CacheTTL time.Duration
	// EngineProvider names the provider plugin of an engine (its model
	// route's first deployment), for the operator of the engine a page
	// citation came from; nil or "": guessed from the model name.
	EngineProvider func(engine string) string
}

// Service runs visibility reports for both API faces.
type Service struct {
	store  *store.Store
	queue  Queue
	quota  *quota.Checker
	models Models
	site   Crawler
	plans  *plans.Table
	cfg    config.Visibility
	slots  Slots
	log    hclog.Logger
	ttl    time.Duration
	now    func() time.Time
	// engineProvider: see Deps.EngineProvider.
	engineProvider func(string) string

	mu   sync.Mutex
	sems map[string]*workspaceSem
}

// New returns the Service, or an error naming each required dependency
// missing. Its report job (JobReport, RunReport) is mounted by the host's
// job table, not here.
func New(d Deps) (*Service, error) {
	if err := deps.Check("visibility",
		deps.Need("Store", d.Store == nil),
		deps.Need("Queue", d.Queue == nil),
		deps.Need("Quota", d.Quota == nil),
		deps.Need("Models", d.Models == nil),
		deps.Need("Site", d.Site == nil),
	); err != nil {
		return nil, err
	}
	s := &Service{store: d.Store, queue: d.Queue, models: d.Models, site: d.Site, plans: d.Plans, cfg: d.Config, slots: d.Slots,
		log: d.Logger, ttl: d.CacheTTL, now: d.Now, engineProvider: d.EngineProvider, sems: map[string]*workspaceSem{}}
	if s.plans == nil {
		s.plans = plans.New(nil)
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	s.log = s.log.Named("visibility")
	if s.now == nil {
		s.now = time.Now
	}
	s.quota = d.Quota.Follow(s.plans).WithClock(s.now).WithLogger(s.log)
	if s.ttl <= 0 {
		s.ttl = DefaultCacheTTL
	}
	if s.cfg.Concurrency <= 0 {
		s.cfg.Concurrency = defaultConcurrent
	}
	return s, nil
}

// Input is what a report runs on.
type Input struct {
	WebsiteURL  string                     `json:"websiteurl"`
	Competitors []analysis.CompetitorInput `json:"competitors"`
	Prompts     []string                   `json:"prompts"`
	// SelfAliases are more spellings of the brand itself.
	SelfAliases []string `json:"selfAliases,omitempty"`
}

// ReportRequest asks for a report.
type ReportRequest struct {
	Input
	Refresh bool
	OneOff  bool
}

// clean trims and de-duplicates (case-insensitively) the lists.
func (in Input) clean() Input {
	in.WebsiteURL = strings.TrimSpace(in.WebsiteURL)
	in.Competitors = analysis.DedupeCompetitors(in.Competitors)
	in.Prompts = analysis.Dedupe(in.Prompts)
	in.SelfAliases = analysis.Dedupe(in.SelfAliases)
	return in
}

// ValidateURL checks websiteurl: required, https.
func ValidateURL(raw string) (string, error) {
	if raw == "" {
		return "", apierr.Invalid("websiteurl is required (an https:// URL of the brand's site)")
	}
	u, err := site.ParseURL(raw)
	if err != nil {
		return "", apierr.Invalid("websiteurl: %s", err.Error())
	}
	return u.String(), nil
}

// Validate checks the lists against the plan's prompt limit. requirePrompts
// is false for prefill, which suggests them.
func (in Input) Validate(limit int, plan string, requirePrompts bool) error {
	if len(in.Prompts) > limit {
		return apierr.Invalid("prompts: %d prompts given; the %s plan allows %d per report", len(in.Prompts), plan, limit)
	}
	if requirePrompts && len(in.Prompts) == 0 {
		return apierr.Invalid("prompts: at least one buyer prompt is required (the prefill route suggests some)")
	}
	for i, p := range in.Prompts {
		if n := utf8.RuneCountInString(p); n > MaxPromptChars {
			return apierr.Invalid("prompts[%d] is %d characters; the limit is %d", i, n, MaxPromptChars)
		}
	}
	if len(in.Competitors) > MaxCompetitors {
		return apierr.Invalid("competitors: %d given; the limit is %d", len(in.Competitors), MaxCompetitors)
	}
	for i, c := range in.Competitors {
		if err := c.Validate(fmt.Sprintf("competitors[%d]", i)); err != nil {
			return err
		}
	}
	return analysis.ValidateAliases("selfAliases", in.SelfAliases)
}

// plan is the caller's plan (planNamed).
func (s *Service) plan(p auth.Principal) config.Plan { return s.PlanNamed(p.Plan) }

// validate normalises websiteurl and checks the request (its lists
// cleaned, a refresh's filled in from the previous report) against the
// plan's prompt limit: every 400 of a report request but a refresh
// without a prior report.
func (r *ReportRequest) validate(limit int, plan string) error {
	url, err := ValidateURL(r.WebsiteURL)
	if err != nil {
		return err
	}
	r.WebsiteURL = url
	return r.Input.Validate(limit, plan, true)
}

// Queue checks a report request against SPEC's statuses, in the order of
// its table (400, then 403, then 429), reserves its AI credits and queues
// the job. It returns the job id.
func (s *Service) Queue(ctx context.Context, p auth.Principal, req ReportRequest) (string, error) {
	plan := s.plan(p)
	// 400: no prior report for a refresh, then the request's own checks.
	req, err := s.withPrevious(ctx, p, req)
	if err != nil {
		return "", err
	}
	if err := req.validate(plan.PromptsPerReport, p.Plan); err != nil {
		return "", err
	}
	engines, err := s.reportEngines()
	if err != nil {
		return "", err
	}
	// 403 and 429: admit checks the plan's rules in the transaction that
	// writes the report.
	jobID, err := s.admit(ctx, p, plan, req, engines)
	if err != nil {
		return "", err
	}
	s.queue.Wake(jobs.SEOQueue)
	return jobID, nil
}

// withPrevious cleans the request's lists and, for a refresh, takes from
// the workspace's latest report the websiteurl and the lists the request
// does not give.
func (s *Service) withPrevious(ctx context.Context, p auth.Principal, req ReportRequest) (ReportRequest, error) {
	in := req.Input.clean()
	if req.Refresh {
		prev, err := s.previousInput(ctx, p)
		if err != nil {
			return req, err
		}
		if in.WebsiteURL == "" {
			in.WebsiteURL = prev.WebsiteURL
		}
		if len(req.Competitors) == 0 {
			in.Competitors = prev.Competitors
		}
		if len(req.Prompts) == 0 {
			in.Prompts = prev.Prompts
		}
		if len(req.SelfAliases) == 0 {
			in.SelfAliases = prev.SelfAliases
		}
	}
	req.Input = in
	return req, nil
}

// previousInput is the input of the workspace's latest report, which a
// refresh runs again; 400 when there is none.
func (s *Service) previousInput(ctx context.Context, p auth.Principal) (Input, error) {
	prev, err := s.store.LatestVisibilityReport(ctx, p.WorkspaceID, false)
	if errors.Is(err, store.ErrNotFound) {
		return Input{}, apierr.Invalid("refresh: there is no prior report to refresh; run a report first")
	}
	if err != nil {
		return Input{}, err
	}
	var in Input
	if err := json.Unmarshal([]byte(prev.Input), &in); err != nil {
		return Input{}, fmt.Errorf("decode report %s input: %w", prev.ID, err)
	}
	return in, nil
}

// reportEngines are the engines a report asks; 503 when none is
// configured.
func (s *Service) reportEngines() ([]string, error) {
	engines := s.Engines()
	if len(engines) == 0 {
		return nil, apierr.Unavailable("no answer engine is configured: add chat model routes or a visibility { engines = [...] } block")
	}
	return engines, nil
}

func creditError(planName string, plan config.Plan, used, cost int) error {
	return apierr.Forbidden("AI credit limit reached: this report costs %d credits (prompts × engines × samples) and %d of the %s plan's %d monthly credits remain",
		cost, max(0, plan.MonthlyAICredits-used), planName, plan.MonthlyAICredits)
}

// ReportJob is the job that runs the report reportID of workspace.
func ReportJob(workspace, reportID string) jobs.NewJob {
	return jobs.NewJob{Workspace: workspace, Queue: jobs.SEOQueue, Name: JobReport, Data: jobData{ReportID: reportID}}
}

// jobData is the stored input of a report job.
type jobData struct {
	ReportID string `json:"reportId"`
}

// PlanNamed is the plan named name, else the free plan (a plan the table
// no longer holds).
func (s *Service) PlanNamed(name string) config.Plan {
	if plan, ok := s.plans.Get(name); ok {
		return plan
	}
	plan, _ := s.plans.Get("free")
	return plan
}
