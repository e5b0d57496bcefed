package tracker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/visibility/analysis"
)

// What the impact of a published post reads of a tracker: its prompts
// (each with a stable id), and per completed run every answer's figures
// for the tracked brand itself and the pages of its own domain the answer
// cites (docs/IMPACT.md).

// PromptID is a prompt's stable id: "p_" and 10 hex digits of the SHA-256
// of its text, case folded. Editing a prompt's text gives it a new id.
func PromptID(text string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(text), " "))))
	return "p_" + hex.EncodeToString(sum[:5])
}

// ImpactPrompt is a prompt of the tracker with its id.
type ImpactPrompt struct {
	ID   string
	Text string
	Tags []string
}

// ImpactAnswer is one answer of a run, read for the brand itself.
type ImpactAnswer struct {
	// Prompt is the prompt's id.
	Prompt string
	Engine string
	// Weight is the brand's position weight (0 when not mentioned).
	Weight    float64
	Mentioned bool
	// Pages are the paths of the brand's own domain the answer cites
	// (citations and URLs in its text), query dropped, each once.
	Pages []string
	// Competitors are the tracked competitors the answer names.
	Competitors []string
	// Sources are the URLs the answer cites (citations and URLs in its
	// text) on other domains than the brand's own.
	Sources []string
}

// ImpactRun is one completed run.
type ImpactRun struct {
	ReportID string
	At       time.Time
	Answers  []ImpactAnswer
}

// ImpactData is what a tracker's impact views read.
type ImpactData struct {
	TrackerID string
	// Domain is the registrable domain of the tracked site.
	Domain  string
	Prompts []ImpactPrompt
	// Runs are the completed runs since the asked time, oldest first.
	Runs []ImpactRun
}

// CheckTargets checks a post's targets: the tracker must be the
// workspace's (404 naming trackerId otherwise) and each target a prompt id
// or a tag of one of its prompts (400 naming targetPrompts).
func (s *Service) CheckTargets(ctx context.Context, workspaceID, trackerID string, targets []string) error {
	row, err := s.store.GetTracker(ctx, workspaceID, trackerID)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFound("trackerId: tracker %s not found", trackerID)
	}
	if err != nil {
		return err
	}
	t, err := s.tracker(row)
	if err != nil {
		return err
	}
	prompts := impactPrompts(t.Setup)
	for i, target := range targets {
		if len(MatchTargets(prompts, []string{target})) == 0 {
			return apierr.Invalid("targetPrompts[%d] %q is neither a prompt id nor a tag of tracker %s", i, target, trackerID)
		}
	}
	return nil
}

// MatchTargets returns the ids of the prompts the targets name (by id or
// by tag, tags compared case-insensitively), in the prompts' order.
func MatchTargets(prompts []ImpactPrompt, targets []string) map[string]bool {
	out := map[string]bool{}
	for _, p := range prompts {
		for _, target := range targets {
			if target == p.ID || containsFold(p.Tags, target) {
				out[p.ID] = true
			}
		}
	}
	return out
}

func containsFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}

func impactPrompts(setup TrackerSetup) []ImpactPrompt {
	out := make([]ImpactPrompt, len(setup.Prompts))
	for i, p := range setup.Prompts {
		out[i] = ImpactPrompt{ID: PromptID(p.Text), Text: p.Text, Tags: p.Tags}
	}
	return out
}

// ImpactRuns returns the tracker's prompts and its completed runs created
// at or after since; another workspace's tracker is a 404.
func (s *Service) ImpactRuns(ctx context.Context, workspaceID, trackerID string, since time.Time) (ImpactData, error) {
	row, err := s.store.GetTracker(ctx, workspaceID, trackerID)
	if errors.Is(err, store.ErrNotFound) {
		return ImpactData{}, apierr.NotFound("tracker %s not found", trackerID)
	}
	if err != nil {
		return ImpactData{}, err
	}
	t, err := s.tracker(row)
	if err != nil {
		return ImpactData{}, err
	}
	data := ImpactData{TrackerID: trackerID, Domain: domainOf(t.Setup.WebsiteURL), Prompts: impactPrompts(t.Setup)}
	_, reports, err := s.store.TrackerReports(ctx, workspaceID, trackerID, since.UnixMilli())
	if err != nil {
		return ImpactData{}, err
	}
	ids := make([]string, len(reports))
	runs := map[string]*ImpactRun{}
	data.Runs = make([]ImpactRun, len(reports))
	for i, r := range reports {
		ids[i] = r.ID
		data.Runs[i] = ImpactRun{ReportID: r.ID, At: time.UnixMilli(r.CreatedAt).UTC()}
		runs[r.ID] = &data.Runs[i]
	}
	// The evidence (one query, its JSON decoded) is read beside the
	// answers (one query, their cited pages parsed on every core).
	var self map[string]answerBrands
	var selfErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		self, selfErr = s.selfEvidence(ctx, workspaceID, ids)
	}()
	answers, err := s.store.ImpactAnswers(ctx, workspaceID, ids)
	<-done
	if err != nil {
		return ImpactData{}, err
	}
	if selfErr != nil {
		return ImpactData{}, selfErr
	}
	parsed := make([]ImpactAnswer, len(answers))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(answers)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			promptIDs := map[string]string{} // question → prompt id
			for i := w; i < len(answers); i += workers {
				a := &answers[i]
				id, ok := promptIDs[a.Question]
				if !ok {
					id = PromptID(a.Question)
					promptIDs[a.Question] = id
				}
				ia := ImpactAnswer{Prompt: id, Engine: a.Engine}
				ia.Pages, ia.Sources = citedPages(a.Engine, a.Text, a.Citations, data.Domain)
				parsed[i] = ia
			}
		}()
	}
	wg.Wait()
	for i, a := range answers {
		run := runs[a.ReportID]
		if run == nil {
			continue
		}
		ia := parsed[i]
		if e, ok := self[a.ReportID+"\x00"+a.Engine+"/"+a.Item]; ok {
			ia.Weight, ia.Mentioned, ia.Competitors = e.weight, e.mentioned, e.competitors
		}
		run.Answers = append(run.Answers, ia)
	}
	return data, nil
}

// answerBrands are an answer's figures for the brand itself and the
// competitors it names.
type answerBrands struct {
	weight      float64
	mentioned   bool
	competitors []string
}

// selfEvidence reads the stored evidence of the runs: per report and
// engine/item, the brand itself and the competitors named.
func (s *Service) selfEvidence(ctx context.Context, workspaceID string, ids []string) (map[string]answerBrands, error) {
	bodies, err := s.store.VisibilityEvidenceBodies(ctx, workspaceID, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]answerBrands{}
	for _, id := range ids {
		body, ok := bodies[id]
		if !ok {
			continue
		}
		// Only the fields read here (analysis.BrandEvidence's names).
		var list []struct {
			Key    string `json:"key"`
			Brands []struct {
				Name      string  `json:"name"`
				Self      bool    `json:"self"`
				Mentioned bool    `json:"mentioned"`
				Weight    float64 `json:"weight"`
			} `json:"brands"`
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			return nil, fmt.Errorf("decode evidence of report %s: %w", id, err)
		}
		for _, e := range list {
			var ab answerBrands
			for _, b := range e.Brands {
				switch {
				case b.Self:
					ab.weight, ab.mentioned = b.Weight, b.Mentioned
				case b.Mentioned:
					ab.competitors = append(ab.competitors, b.Name)
				}
			}
			out[id+"\x00"+e.Key] = ab
		}
	}
	return out, nil
}

// citedPages are the paths of domain an answer cites and the URLs it
// cites elsewhere, each once.
func citedPages(engine, text, citations, domain string) (pages, others []string) {
	an := analysis.Answer{Engine: engine, Text: text}
	_ = json.Unmarshal([]byte(citations), &an.Citations)
	seen := map[string]bool{}
	for _, src := range analysis.AnswerSources(an) {
		if domain == "" || src.Domain != domain {
			if !seen[src.URL] {
				seen[src.URL] = true
				others = append(others, src.URL)
			}
			continue
		}
		if p := PagePath(src.URL); p != "" && !seen[p] {
			seen[p] = true
			pages = append(pages, p)
		}
	}
	return pages, others
}

// PagePath is a URL's path as the pages view keys it: query and fragment
// dropped, "/" when empty; "" when it is not a URL.
func PagePath(raw string) string {
	u := strings.TrimSpace(raw)
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Hostname() == "" {
		return ""
	}
	p := parsed.EscapedPath()
	if p == "" {
		p = "/"
	}
	return p
}

// domainOf is the registrable domain of a site URL.
func domainOf(raw string) string {
	u := strings.TrimSpace(raw)
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return site.RegistrableDomain(parsed.Hostname())
}
