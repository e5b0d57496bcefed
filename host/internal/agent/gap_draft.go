package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/sdk"
)

// GapDraftArgs are write_for_gap's arguments: the fields of the draft
// route (POST /v1/visibility/trackers/{id}/drafts).
type GapDraftArgs struct {
	TrackerID string  `json:"trackerId"`
	VoiceID   string  `json:"voiceId"`
	Keyphrase string  `json:"keyphrase"`
	MinScore  *int    `json:"minScore,omitempty"`
	MaxRounds *int    `json:"maxRounds,omitempty"`
	ExportTo  string  `json:"exportTo"`
	WebhookID *string `json:"webhookId,omitempty"`
	PublishAt string  `json:"publishAt,omitempty"`
}

// GapDraft is a draft written for a gap: its rounds' scores and the
// schedule it proposes.
type GapDraft struct {
	Title, Content string
	// Scores are every round's overall score, first to last.
	Scores   []int
	Met      bool
	MinScore int
	Credits  int
	// Proposal is the schedule proposed (the scheduler's create fields).
	ExportTo, WhenToExport, Status, TrackerID string
	WebhookID                                 *string
	TargetPrompts                             []string
}

// GapDraftFunc writes a draft for a tracker's gap, as the draft route
// does (the same service function); it schedules nothing.
type GapDraftFunc func(ctx context.Context, p auth.Principal, in GapDraftArgs) (GapDraft, error)

// gapDraftTool is write_for_gap. It spends up to 3 AI credits, more than a
// message may spend without a confirmation, so calling it only proposes;
// confirming runs the draft and proposes its schedule, which the user
// confirms again before anything is scheduled.
func (s *Service) gapDraftTool() []tool {
	if s.gapDraft == nil || s.scheduler == nil {
		return nil
	}
	return []tool{{sdk.Tool{Name: "write_for_gap",
		Description: "Proposes to write a post for a visibility tracker's gap: the brief, a draft in the chosen brand voice, scored for SEO against the keyphrase and improved until it reaches minScore (at most 3 rounds, one AI credit each). The user confirms before it runs; then its schedule (with trackerId and targetPrompts set to the gap's prompts) is proposed, and the user confirms that too.",
		Parameters: object(map[string]any{"trackerId": str("the tracker's id"), "voiceId": str("the brand voice's id (list_brand_voices)"),
			"keyphrase": str("the phrase the SEO score is computed for"), "minScore": map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
			"maxRounds": map[string]any{"type": "integer", "minimum": 1, "maximum": 3}, "exportTo": str("destination, such as webhook or wordpress"),
			"webhookId": str("saved webhook id when exportTo is webhook"), "publishAt": str("ISO-8601 time, such as 2030-01-02T15:04:05Z; empty: a draft without a time")},
			"trackerId", "voiceId", "keyphrase", "exportTo")}, s.toolGapDraft}}
}

func (s *Service) toolGapDraft(_ context.Context, t *turn, args json.RawMessage) (any, error) {
	var a GapDraftArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	for name, v := range map[string]string{"trackerId": a.TrackerID, "voiceId": a.VoiceID, "keyphrase": a.Keyphrase, "exportTo": a.ExportTo} {
		if strings.TrimSpace(v) == "" {
			return nil, badArgs("%s is required", name)
		}
	}
	clean, _ := json.Marshal(a)
	summary := fmt.Sprintf("Write a post for the gap of tracker %s (keyphrase %q, up to 3 AI credits), then propose its schedule to %s", a.TrackerID, a.Keyphrase, a.ExportTo)
	if err := propose(t, "write_for_gap", summary, string(clean)); err != nil {
		return nil, err
	}
	return map[string]any{"status": "proposed", "proposal": summary,
		"note": "Nothing was written and no credit spent: the user sees a proposal and must confirm it."}, nil
}

// followUp is a proposal a confirmed action makes.
type followUp struct{ action, summary, args string }

// confirmGapDraft runs a confirmed write_for_gap; its schedule is the
// follow-up proposal.
func (s *Service) confirmGapDraft(ctx context.Context, p auth.Principal, raw string) (map[string]any, string, *followUp, error) {
	var a GapDraftArgs
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return nil, "", nil, fmt.Errorf("proposal arguments: %w", err)
	}
	d, err := s.gapDraft(ctx, p, a)
	if err != nil {
		return nil, "", nil, err
	}
	title, content := d.Title, d.Content
	sa := scheduleArgs{ExportTo: d.ExportTo, Title: &title, Content: &content, WhenToExport: d.WhenToExport, WebhookID: d.WebhookID,
		Status: d.Status, TrackerID: d.TrackerID, TargetPrompts: d.TargetPrompts}
	clean, _ := json.Marshal(sa)
	summary := fmt.Sprintf("Schedule the post written for the gap to %s: %s (targets %d prompts of tracker %s)", d.ExportTo, d.Title, len(d.TargetPrompts), d.TrackerID)
	result := map[string]any{"confirmed": true, "title": d.Title, "content": d.Content, "scores": d.Scores, "met": d.Met, "minScore": d.MinScore,
		"credits": d.Credits, "scheduled": false, "note": "Nothing is scheduled yet: the user sees the schedule's proposal and must confirm it."}
	text := fmt.Sprintf("Draft written in %d round(s) (scores %v, minimum %d, %d AI credit(s)); confirm the schedule's proposal to schedule it.", len(d.Scores), d.Scores, d.MinScore, d.Credits)
	return result, text, &followUp{action: "schedule_content", summary: summary, args: string(clean)}, nil
}
