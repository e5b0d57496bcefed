package visibility

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
	"github.com/heraldhq/herald/host/internal/visibility/scoring"
	"github.com/heraldhq/herald/sdk"
)

// Kinds of stored answers.
const (
	KindPrompt = "prompt"
	kindProbe  = "probe"
)

// siteRecord is the crawl stored with a report: the facts the probes and
// clarity checks are judged on, or why the site could not be fetched.
type siteRecord struct {
	Reached bool       `json:"reached"`
	Error   string     `json:"error,omitempty"`
	Facts   site.Facts `json:"facts"`
}

// Result is a report job's result.
type Result struct {
	ReportID string `json:"reportId"`
}

// progress is the partial result pollers see while the report runs.
type progress struct {
	ReportID       string `json:"reportId"`
	AnswersDone    int    `json:"answersDone"`
	AnswersPlanned int    `json:"answersPlanned"`
}

// workspaceSem caps the engine calls of one workspace on this host, shared
// by all its running reports; with a Slots limiter, the calls it admits
// then take a cross-host lease (slots.go).
type workspaceSem struct {
	ch   chan struct{}
	refs int
}

func (s *Service) workspaceSlots(ws string) (chan struct{}, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem := s.sems[ws]
	if sem == nil {
		sem = &workspaceSem{ch: make(chan struct{}, s.cfg.Concurrency)}
		s.sems[ws] = sem
	}
	sem.refs++
	return sem.ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if sem.refs--; sem.refs == 0 {
			delete(s.sems, ws)
		}
	}
}

// RunReport runs (or resumes) the report of a JobReport job. Answers
// already stored are not asked again; a retry after a crash picks up where
// the last attempt stopped.
func (s *Service) RunReport(ctx context.Context, job *jobs.Job) (any, error) {
	var data jobData
	if err := job.Decode(&data); err != nil {
		return nil, err
	}
	ws := job.Workspace
	r, err := s.store.GetVisibilityReport(ctx, ws, data.ReportID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, jobs.NoRetry(fmt.Errorf("report %s is gone", data.ReportID))
	}
	if err != nil {
		return nil, err
	}
	if StateOf(r) == StateCompleted {
		return Result{ReportID: r.ID}, nil
	}
	if err := s.run(ctx, job, r); err != nil {
		if errors.Is(err, jobs.ErrLeaseLost) || ctx.Err() != nil {
			return nil, err // another host resumes it, or shutdown hands it back
		}
		if job.Attempt >= job.MaxAttempts {
			s.fail(context.WithoutCancel(ctx), r, err)
		}
		return nil, err
	}
	return Result{ReportID: r.ID}, nil
}

func (s *Service) fail(ctx context.Context, r store.VisibilityReport, cause error) {
	msg := "the report could not be generated: " + cause.Error()
	if err := s.store.UpdateVisibilityReport(ctx, r.WorkspaceID, r.ID, store.ReportUpdate{State: StateFailed.stored(), Error: &msg, Events: failureEvents(r, msg)}); err != nil {
		s.log.Error("mark report failed", "report", r.ID, "error", err)
	}
	s.settle(ctx, r)
}

// settle gives back, once, the credits of answers no engine gave or that
// came from the cache: a report costs what the engines answered.
func (s *Service) settle(ctx context.Context, r store.VisibilityReport) {
	answers, err := s.store.ListVisibilityAnswers(ctx, r.WorkspaceID, r.ID, KindPrompt)
	if err != nil {
		s.log.Error("settle report credits", "report", r.ID, "error", err)
		return
	}
	paid := 0
	for _, a := range answers {
		if a.Error == nil && !a.Cached {
			paid++
		}
	}
	refund := r.CreditsReserved - paid
	if refund <= 0 {
		_, _ = s.store.SettleVisibilityCredits(ctx, r.WorkspaceID, r.ID)
		return
	}
	ok, err := s.store.SettleVisibilityCredits(ctx, r.WorkspaceID, r.ID)
	if err != nil || !ok {
		return
	}
	s.quota.Refund(ctx, r.WorkspaceID, r.CreditsMonth, refund)
}

// task is one question to one engine.
type task struct {
	kind, engine, item, question string
	fact                         string // probes
	// sample is the prompt's sample (0-based): a prompt is asked samples
	// times on each engine.
	sample int
}

// sampleItem is the stored item of a prompt's sample: the prompt's index
// for the first sample (as before samples existed), "<index>#<k>" for
// the k-th (1-based) after it.
func sampleItem(prompt, sample int) string {
	if sample == 0 {
		return strconv.Itoa(prompt)
	}
	return strconv.Itoa(prompt) + "#" + strconv.Itoa(sample+1)
}

// parseItem is sampleItem's inverse (sample 0-based).
func parseItem(item string) (prompt, sample int) {
	p, k, found := strings.Cut(item, "#")
	prompt, _ = strconv.Atoi(p)
	if found {
		n, _ := strconv.Atoi(k)
		sample = max(0, n-1)
	}
	return prompt, sample
}

func (s *Service) run(ctx context.Context, job *jobs.Job, r store.VisibilityReport) error {
	ws := r.WorkspaceID
	if err := s.store.UpdateVisibilityReport(ctx, ws, r.ID, store.ReportUpdate{State: StateRunning.stored()}); err != nil {
		return err
	}
	var in Input
	var engines []string
	if err := json.Unmarshal([]byte(r.Input), &in); err != nil {
		return jobs.NoRetry(fmt.Errorf("decode input: %w", err))
	}
	if err := json.Unmarshal([]byte(r.Engines), &engines); err != nil {
		return jobs.NoRetry(fmt.Errorf("decode engines: %w", err))
	}
	rec, brands, err := s.siteAndBrands(ctx, r, in)
	if err != nil {
		return err
	}
	cues := analysis.NewCueIndex(brands) // every answer's sentiment cues, one pass each
	domain := ""
	if len(brands[0].Domains) > 0 {
		domain = brands[0].Domains[0]
	}
	var tasks []task
	for _, e := range engines {
		for i, p := range in.Prompts {
			// The samples of a prompt run concurrently, each in its own
			// slot of the workspace's engine cap.
			for k := range max(1, r.Samples) {
				tasks = append(tasks, task{kind: KindPrompt, engine: e, item: sampleItem(i, k), question: p, sample: k})
			}
		}
		for _, pd := range scoring.Probes {
			tasks = append(tasks, task{kind: kindProbe, engine: e, item: pd.ID, question: pd.Question(brands[0].Name, domain), fact: pd.Fact(rec.Facts, analysis.CompetitorNames(in.Competitors))})
		}
	}
	done := map[string]store.VisibilityAnswer{}
	for _, kind := range []string{KindPrompt, kindProbe} {
		stored, err := s.store.ListVisibilityAnswers(ctx, ws, r.ID, kind)
		if err != nil {
			return err
		}
		for _, a := range stored {
			if a.Error == nil {
				done[a.Kind+"/"+a.Engine+"/"+a.Item] = a
			}
		}
	}

	slots, release := s.workspaceSlots(ws)
	defer release()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	report, stopProgress := s.progressWriter(ctx, cancel, job, r.ID, len(done), len(tasks))
	defer stopProgress()
	for _, t := range tasks {
		if prev, ok := done[t.kind+"/"+t.engine+"/"+t.item]; ok {
			// Resumed: the answer is kept; only an unjudged probe is judged,
			// and a prompt answer without its sentiment or named brands gets them.
			if unjudged(prev) {
				wg.Add(1)
				go func(a store.VisibilityAnswer) {
					defer wg.Done()
					s.withSlot(ctx, ws, slots, func() { s.saveSentiment(ctx, r, brands, cues, engines, a) })
				}(prev)
			}
			if t.kind == kindProbe && prev.Verdict == nil {
				wg.Add(1)
				go func(t task, a store.VisibilityAnswer) {
					defer wg.Done()
					s.withSlot(ctx, ws, slots, func() { s.judgeAndSave(ctx, brands[0], t, a) })
				}(t, prev)
			}
			continue
		}
		wg.Add(1)
		go func(t task) {
			defer wg.Done()
			s.withSlot(ctx, ws, slots, func() {
				a, err := s.ask(ctx, r, t)
				if err != nil {
					return // the context ended: the next attempt asks again
				}
				if t.kind == kindProbe {
					s.judgeAndSave(ctx, brands[0], t, a)
				}
				if t.kind == KindPrompt {
					s.saveSentiment(ctx, r, brands, cues, engines, a)
				}
				report()
			})
		}(t)
	}
	wg.Wait()
	stopProgress()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return s.complete(ctx, r)
}

// ask answers one task, from the cache when the same question went to the
// same engine within the cache window (the k-th sample reuses the k-th
// answer another report got, never one of this report's: one answer is
// never two samples), and stores the answer at once. It returns an error
// only when the context ended (nothing is stored then).
func (s *Service) ask(ctx context.Context, r store.VisibilityReport, t task) (store.VisibilityAnswer, error) {
	a := store.VisibilityAnswer{ReportID: r.ID, WorkspaceID: r.WorkspaceID, Kind: t.kind, Engine: t.engine, Item: t.item, Question: t.question}
	since := s.now().Add(-s.ttl).UnixMilli()
	if c, err := s.store.CachedVisibilityAnswer(ctx, r.WorkspaceID, r.ID, t.kind, t.engine, t.question, since, t.sample); err == nil {
		a.Text, a.Model, a.Citations, a.Cached, a.AskedAt, a.Outcome = c.Text, c.Model, c.Citations, true, c.AskedAt, c.Outcome
		// The brands a text names do not depend on who tracks what: the
		// judge's list comes along (sentiment, which does, is judged again).
		a.Discovered = c.Discovered
		withPages(&a)
		err := s.save(ctx, &a)
		return a, err
	}
	actx, cancel := context.WithTimeout(ctx, answerTimeout)
	res, err := s.models.GenerateText(actx, t.engine, sdk.TextRequest{Model: t.engine, Prompt: t.question})
	cancel()
	if ctx.Err() != nil {
		return a, ctx.Err()
	}
	a.AskedAt = s.now().UnixMilli()
	if err != nil {
		msg := engineError(err)
		a.Error = &msg
		s.log.Warn("engine failed", "report", r.ID, "engine", t.engine, "error", err)
	} else {
		if res.FinishReason == sdk.FinishNoAnswer {
			a.Outcome = store.AnswerNoAnswer
		}
		a.Text = res.Text
		truncated := false
		a.Text, truncated = capAnswer(a.Text)
		if truncated {
			defer func() {
				if err := s.store.MarkAnswerTruncated(context.WithoutCancel(ctx), r.WorkspaceID, r.ID, t.engine, t.item); err != nil {
					s.log.Error("mark answer truncated", "report", r.ID, "error", err)
				}
			}()
		}
		if res.Model != "" {
			a.Model = &res.Model
		}
		cites := make([]analysis.Citation, 0, len(res.Citations))
		for _, c := range res.Citations {
			cites = append(cites, analysis.Citation{URL: c.URL, Title: c.Title})
		}
		b, _ := json.Marshal(cites)
		a.Citations = string(b)
	}
	withPages(&a)
	err = s.save(ctx, &a)
	return a, err
}

func (s *Service) save(ctx context.Context, a *store.VisibilityAnswer) error {
	a.CreatedAt = s.now().UnixMilli()
	if err := s.store.SaveVisibilityAnswer(context.WithoutCancel(ctx), a); err != nil {
		s.log.Error("store answer", "report", a.ReportID, "error", err)
		return err
	}
	// Its pages are written: a later save of the same answer (its
	// sentiment, its judged brands) leaves them as they are.
	a.Pages = nil
	return nil
}

// saveSentiment judges a stored prompt answer's sentiment and the brands
// it names, and stores both with the answer. The brands stay unjudged
// (NULL) when there is no judge model or it failed.
func (s *Service) saveSentiment(ctx context.Context, r store.VisibilityReport, brands []analysis.Brand, cues *analysis.CueIndex, engines []string, sa store.VisibilityAnswer) {
	if !unjudged(sa) {
		return
	}
	a := analysis.Answer{Engine: sa.Engine, Prompt: sa.Question, Text: sa.Text}
	_ = json.Unmarshal([]byte(sa.Citations), &a.Citations)
	model := s.judgeModel(engines)
	changed := false
	if sa.Sentiment == nil {
		sent := s.judgeSentiment(ctx, model, brands, cues, a)
		if ctx.Err() != nil {
			return // judged on the next attempt
		}
		b, _ := json.Marshal(sent)
		str := string(b)
		sa.Sentiment, changed = &str, true
	}
	if sa.Discovered == nil {
		if named, ok := s.judgeDiscovery(ctx, model, a); ok {
			str := MustJSON(named)
			sa.Discovered, changed = &str, true
		}
		if ctx.Err() != nil {
			return
		}
	}
	if changed {
		_ = s.save(ctx, &sa)
	}
}

// unjudged reports whether a stored prompt answer still lacks its
// sentiment or its named brands.
func unjudged(a store.VisibilityAnswer) bool {
	return a.Kind == KindPrompt && a.Error == nil && a.Outcome != store.AnswerNoAnswer && (a.Sentiment == nil || a.Discovered == nil)
}

// engineError is the message of a missing answer, shown in the report: a
// generic one by kind, as for every provider failure a tenant sees;
// the operator's log has the provider's own text.
func engineError(err error) string {
	var se *sdk.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sdk.CodeUnconfigured, sdk.CodeUnauthenticated:
			return "the engine is not configured on this server (the operator's log says what to set)"
		case sdk.CodeRateLimited:
			return "the engine was rate limiting"
		case sdk.CodeInvalidArgument:
			return "the engine refused the question"
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the engine did not answer in time"
	}
	return "the engine failed"
}

// siteAndBrands crawls the site once per report (stored for resumes and
// recomputation) and builds the tracked brands.
func (s *Service) siteAndBrands(ctx context.Context, r store.VisibilityReport, in Input) (siteRecord, []analysis.Brand, error) {
	var rec siteRecord
	var brands []analysis.Brand
	if r.Site != nil && r.Brands != nil {
		if err := json.Unmarshal([]byte(*r.Site), &rec); err != nil {
			return rec, nil, jobs.NoRetry(fmt.Errorf("decode site: %w", err))
		}
		if err := json.Unmarshal([]byte(*r.Brands), &brands); err != nil {
			return rec, nil, jobs.NoRetry(fmt.Errorf("decode brands: %w", err))
		}
		return rec, brands, nil
	}
	// The fetcher's crawl deadline (site.Deps.CrawlDeadline) bounds the
	// whole crawl, as for website voices.
	crawled, err := s.site.Crawl(ctx, in.WebsiteURL)
	if ctx.Err() != nil {
		return rec, nil, ctx.Err()
	}
	if err != nil {
		// The report still runs: engines answer whether or not the site is
		// up; the clarity checks say it could not be fetched.
		rec.Error = err.Error()
		if u, perr := url.Parse(in.WebsiteURL); perr == nil {
			rec.Facts.URL, rec.Facts.Domain = in.WebsiteURL, site.RegistrableDomain(u.Hostname())
		}
	} else {
		rec.Reached, rec.Facts = true, crawled.Facts
	}
	brands = buildBrands(rec, in)
	sj, _ := json.Marshal(rec)
	bj, _ := json.Marshal(brands)
	ss, bs := string(sj), string(bj)
	if err := s.store.UpdateVisibilityReport(ctx, r.WorkspaceID, r.ID, store.ReportUpdate{Site: &ss, Brands: &bs}); err != nil {
		return rec, nil, err
	}
	return rec, brands, nil
}

// buildBrands is the tracked brands of a report: the site's brand (with
// the user's selfAliases and the site's category) and the competitors.
func buildBrands(rec siteRecord, in Input) []analysis.Brand {
	self := analysis.SelfBrand(rec.Facts.BrandName(), rec.Facts.Domain).WithAliases(in.SelfAliases)
	self.Category = siteCategory(rec.Facts)
	return analysis.BuildBrands(self, in.Competitors)
}

// siteCategory is what the site says it is: its first H1, else the
// title after its brand part, else its meta description (at most 200
// characters).
func siteCategory(f site.Facts) string {
	c := ""
	switch {
	case len(f.H1s) > 0:
		c = f.H1s[0]
	case titleTail(f.Title) != "":
		c = titleTail(f.Title)
	default:
		c = f.Description
	}
	return analysis.Excerpt(strings.TrimSpace(c), 200)
}
