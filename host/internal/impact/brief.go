package impact

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/tracker"
)

// A brief turns a tracker's gap into what to write: the prompts where
// engines name a competitor and not the brand (in the tracker's last run),
// the competitors they name and the pages those answers cite. Answer text
// and cited pages are written by others: whoever hands a brief to a model
// hands it as untrusted data (the agent's tool does).

// Bounds of a brief.
const (
	briefSources = 10
	briefDays    = 8
)

// GapPrompt is a prompt of the gap.
type GapPrompt struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Engines are the engines naming a competitor and not the brand.
	Engines     []string `json:"engines"`
	Competitors []string `json:"competitors"`
}

// GapSource is a page cited by the gap's answers.
type GapSource struct {
	URL     string `json:"url"`
	Answers int    `json:"answers"`
}

// Brief is what to write for a tracker's gap.
type Brief struct {
	TrackerID string      `json:"trackerId"`
	ReportID  string      `json:"reportId"`
	RunAt     time.Time   `json:"runAt"`
	Prompts   []GapPrompt `json:"prompts"`
	Sources   []GapSource `json:"sources"`
	// TargetPrompts are the gap's prompt ids, for the post's targets.
	TargetPrompts []string `json:"targetPrompts"`
	// Outline is the brief as text: what the post must answer, whom it
	// is compared with, what the cited pages cover.
	Outline string `json:"outline"`
}

// Brief builds the brief of a tracker's gap from its last completed run
// (within the last 8 days).
func (s *Service) Brief(ctx context.Context, p auth.Principal, trackerID string) (Brief, error) {
	data, err := s.trackers.ImpactRuns(ctx, p.WorkspaceID, trackerID, s.now().AddDate(0, 0, -briefDays))
	if err != nil {
		return Brief{}, err
	}
	if len(data.Runs) == 0 {
		return Brief{}, apierr.Invalid("tracker %s has no completed run in the last %d days: run it first (POST /v1/visibility/trackers/%s/run)", trackerID, briefDays, trackerID)
	}
	return BuildBrief(data, data.Runs[len(data.Runs)-1]), nil
}

// BuildBrief is the brief of one run (pure).
func BuildBrief(data tracker.ImpactData, run tracker.ImpactRun) Brief {
	b := Brief{TrackerID: data.TrackerID, ReportID: run.ReportID, RunAt: run.At, Prompts: []GapPrompt{}, Sources: []GapSource{}, TargetPrompts: []string{}}
	type acc struct {
		engines, competitors map[string]bool
	}
	gap := map[string]*acc{}
	cited := map[string]int{}
	for _, a := range run.Answers {
		if a.Mentioned || len(a.Competitors) == 0 {
			continue
		}
		g := gap[a.Prompt]
		if g == nil {
			g = &acc{engines: map[string]bool{}, competitors: map[string]bool{}}
			gap[a.Prompt] = g
		}
		g.engines[a.Engine] = true
		for _, c := range a.Competitors {
			g.competitors[c] = true
		}
		for _, u := range a.Sources {
			cited[u]++
		}
	}
	for _, pr := range data.Prompts {
		g := gap[pr.ID]
		if g == nil {
			continue
		}
		b.Prompts = append(b.Prompts, GapPrompt{ID: pr.ID, Text: pr.Text, Engines: keys(g.engines), Competitors: keys(g.competitors)})
		b.TargetPrompts = append(b.TargetPrompts, pr.ID)
	}
	for u, n := range cited {
		b.Sources = append(b.Sources, GapSource{URL: u, Answers: n})
	}
	sort.Slice(b.Sources, func(i, j int) bool {
		if b.Sources[i].Answers != b.Sources[j].Answers {
			return b.Sources[i].Answers > b.Sources[j].Answers
		}
		return b.Sources[i].URL < b.Sources[j].URL
	})
	if len(b.Sources) > briefSources {
		b.Sources = b.Sources[:briefSources]
	}
	b.Outline = outline(b)
	return b
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// outline writes the brief as text.
func outline(b Brief) string {
	if len(b.Prompts) == 0 {
		return "No gap in the last run: on every prompt either the brand is named or no competitor is."
	}
	var sb strings.Builder
	sb.WriteString("Write one post that answers these buyer questions, where AI engines name competitors and not the brand:\n")
	comps := map[string]bool{}
	for _, p := range b.Prompts {
		fmt.Fprintf(&sb, "- %s (engines: %s; named instead: %s)\n", p.Text, strings.Join(p.Engines, ", "), strings.Join(p.Competitors, ", "))
		for _, c := range p.Competitors {
			comps[c] = true
		}
	}
	fmt.Fprintf(&sb, "Say plainly how the brand compares with %s, with facts a reader can check.\n", strings.Join(keys(comps), ", "))
	if len(b.Sources) > 0 {
		sb.WriteString("The engines' answers cite these pages; cover what they cover, better:\n")
		for _, s := range b.Sources {
			fmt.Fprintf(&sb, "- %s (%d answers)\n", s.URL, s.Answers)
		}
	}
	sb.WriteString("Schedule the post with targetPrompts set to the prompt ids above and trackerId set, so its impact is measured.")
	return sb.String()
}
