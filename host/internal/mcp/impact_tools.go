package mcp

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

type postImpactInput struct {
	ID string `json:"id" jsonschema:"the schedule's id (the scheduled post)"`
}

type gapDraftInput struct {
	ID        string  `json:"id" jsonschema:"the tracker's id (list_trackers gives them)"`
	VoiceID   string  `json:"voiceId" jsonschema:"the brand voice to write in (list_brand_voices gives them)"`
	Keyphrase string  `json:"keyphrase" jsonschema:"the phrase the SEO score is computed for"`
	MinScore  *int32  `json:"minScore,omitempty" jsonschema:"the SEO score to reach, 0 to 100 (default 70)"`
	MaxRounds *int32  `json:"maxRounds,omitempty" jsonschema:"at most this many model rounds, 1 to 3 (default 3), one AI credit each"`
	Model     string  `json:"model,omitempty" jsonschema:"a text model; empty: the default"`
	ExportTo  string  `json:"exportTo" jsonschema:"the destination the post is proposed for, such as wordpress or webhook"`
	WebhookID *string `json:"webhookId,omitempty" jsonschema:"a saved webhook id when exportTo is webhook"`
	PublishAt string  `json:"publishAt,omitempty" jsonschema:"ISO-8601 time to publish at; empty: a draft without a time"`
}

// impactTools are the read tools of the impact of published posts.
func (s *Server) impactTools() []toolDef {
	h := s.d.Impact
	if h == nil {
		return nil
	}
	return []toolDef{
		def(&mcp.Tool{Name: "get_post_impact", Title: "Impact of a published post", Annotations: readOnly,
			Description: "How a published post moved the brand's AI visibility on the tracker prompts it targets: the change on those prompts between the 14 days before publishing and the days since, minus the same change on the tracker's other prompts, with a 95% interval and whether it is significant (only a significant effect may be called a change); pending with the date it can first be read before 7 days; plus the answers citing the post's page, verified crawler hits and AI visits landing on it, before and after. It compares prompts; it does not prove the post caused the change."},
			noAsk, func(in postImpactInput) (prepared, error) {
				return prepared{do: invoke(h.GetScheduleImpact, &apiv1.GetScheduleImpactRequest{Id: in.ID})}, nil
			}),
		def(&mcp.Tool{Name: "list_tracker_impact", Title: "Impact of a tracker's posts", Annotations: readOnly,
			Description: "Every post written for a visibility tracker's prompts, each with its effect on the targeted prompts (interval, significant), its state (pending, ready, unpublished) and its page's citations, crawls and AI visits before and after."},
			noAsk, func(in trackerInput) (prepared, error) {
				return prepared{do: invoke(h.ListTrackerImpact, &apiv1.ListTrackerImpactRequest{Id: in.ID})}, nil
			}),
		def(&mcp.Tool{Name: "draft_for_gap", Title: "Write a post for a tracker's gap", Annotations: spends,
			Description: "Writes a post for a visibility tracker's gap (the prompts where AI engines name competitors and not the brand): the brief, a draft in the brand voice, scored for SEO against the keyphrase and improved until it reaches minScore or 3 rounds are used (one AI credit per round; every round's score is returned). It schedules nothing: the answer's proposal is the body of schedule_content (POST /v1/scheduler/create) with trackerId and targetPrompts set; show it to the user and schedule it only once they approve. Herald asks the user through the client first."},
			askHuman, func(in gapDraftInput) (prepared, error) {
				m := &apiv1.CreateTrackerDraftRequest{Id: in.ID, VoiceId: in.VoiceID, Keyphrase: in.Keyphrase, MinScore: in.MinScore, MaxRounds: in.MaxRounds,
					Model: in.Model, ExportTo: in.ExportTo, WebhookId: in.WebhookID, PublishAt: in.PublishAt}
				return prepared{summary: fmt.Sprintf("Write a post for the gap of tracker %s in voice %s for the keyphrase %q (up to 3 AI credits%s)? Nothing is scheduled.", in.ID, in.VoiceID, in.Keyphrase, modelNote(in.Model)),
					do: invoke(h.CreateTrackerDraft, m)}, nil
			}),
	}
}
