package mcp

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

type postImpactInput struct {
	ID string `json:"id" jsonschema:"the schedule's id (the scheduled post)"`
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
	}
}
