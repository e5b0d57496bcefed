package mcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/structpb"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// confirmMissing is the tool error of schedule_content without confirm:
// true. It tells the assistant what to do, since it is read by a model.
const confirmMissing = "Nothing was scheduled. Show the user this post (destination, time, title and content) and ask them to approve it; " +
	"call schedule_content again with confirm: true only after they say yes."

// scheduleInput is schedule_content's arguments: POST /v1/scheduler/create's
// body, with confirm required (SPEC: set after the user approves).
type scheduleInput struct {
	ExportTo        string         `json:"exportTo" jsonschema:"destination id: webflow, wordpress, notion, linkedin, webhook or another configured destination"`
	ContentToExport map[string]any `json:"contentToExport,omitempty" jsonschema:"the destination's payload (required unless title, text or content is given)"`
	Title           *string        `json:"title,omitempty" jsonschema:"title; merged into contentToExport"`
	Text            *string        `json:"text,omitempty" jsonschema:"post body for social networks (LinkedIn); merged into contentToExport"`
	Content         *string        `json:"content,omitempty" jsonschema:"blog or CMS body; merged into contentToExport"`
	WhenToExport    string         `json:"whenToExport,omitempty" jsonschema:"publish time, ISO-8601 with offset (2030-01-02T15:04:05Z); required unless status is draft"`
	Status          string         `json:"status,omitempty" jsonschema:"pending (default) or draft"`
	WebhookID       *string        `json:"webhookId,omitempty" jsonschema:"saved webhook id; required when exportTo is webhook"`
	ImageURL        string         `json:"imageUrl,omitempty" jsonschema:"hosted https image URL, or a data: URL (re-hosted by Herald)"`
	ImageBase64     string         `json:"imageBase64,omitempty" jsonschema:"image as raw base64 or a data URL; stored by Herald and imageUrl set"`
	ImageFileName   string         `json:"imageFileName,omitempty" jsonschema:"file name of imageBase64"`
	ImageMimeType   string         `json:"imageMimeType,omitempty" jsonschema:"MIME type hint for imageBase64"`
	ImageAlt        string         `json:"imageAlt,omitempty" jsonschema:"alt text of the image"`
	Image           *imageUpload   `json:"image,omitempty" jsonschema:"a file uploaded to the assistant host; download_url is fetched at once because it is temporary"`
	Confirm         *bool          `json:"confirm,omitempty" jsonschema:"REQUIRED: true, set only after the user has approved this exact post; without it nothing is scheduled"`
}

type imageUpload struct {
	DownloadURL string `json:"download_url"`
	FileID      string `json:"file_id,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
	FileName    string `json:"file_name,omitempty"`
}

type listSchedulesInput struct {
	Skip int32 `json:"skip,omitempty" jsonschema:"schedules to skip (pages of 20: 0, 20, 40...)"`
}

type idInput struct {
	ID string `json:"id" jsonschema:"the schedule id"`
}

type generateTextInput struct {
	Text         string         `json:"text" jsonschema:"the prompt"`
	Model        string         `json:"model,omitempty" jsonschema:"model id (default: the host's default text model)"`
	BrandVoiceID string         `json:"brandVoiceId,omitempty" jsonschema:"write in this brand voice (see list_brand_voices)"`
	Options      map[string]any `json:"options,omitempty" jsonschema:"model options, e.g. temperature, max_tokens"`
}

type generateImageInput struct {
	Text    string `json:"text" jsonschema:"what the image shows"`
	Model   string `json:"model,omitempty" jsonschema:"image model id (default: the host's default image model)"`
	Size    string `json:"size,omitempty" jsonschema:"size, e.g. 1024x1024"`
	Quality string `json:"quality,omitempty" jsonschema:"quality, e.g. standard or hd"`
	Purpose string `json:"purpose,omitempty" jsonschema:"what the image is for, e.g. blog"`
}

type seoInput struct {
	Content  string   `json:"content" jsonschema:"the text to score (HTML or Markdown)"`
	Title    string   `json:"title,omitempty" jsonschema:"the title"`
	Keywords []string `json:"keywords,omitempty" jsonschema:"target keywords; extracted from the content when empty"`
}

type reportInput struct {
	Evidence bool `json:"evidence,omitempty" jsonschema:"include the engines' answers behind the scores"`
}

type statsInput struct {
	Days    *int32 `json:"days,omitempty" jsonschema:"lookback in days (default 30)"`
	SiteKey string `json:"siteKey,omitempty" jsonschema:"site key (default: the workspace's site)"`
	Source  string `json:"source,omitempty" jsonschema:"only this AI source, e.g. chatgpt"`
}

type noInput struct{}

type trackerInput struct {
	ID string `json:"id" jsonschema:"the tracker's id (list_trackers gives them)"`
}

// addTools registers the tools of the wired features.
func (s *Server) addTools() {
	if h := s.d.Scheduler; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "schedule_content", Title: "Schedule a post",
			Description: "Schedules a post to a destination (CMS, social network or webhook) at a time, or saves a draft, " +
				"with the same rules and image handling as POST /v1/scheduler/create. Show the user the post first: " +
				"confirm must be true and set only after the user approves; without it nothing is scheduled."},
			func(ctx context.Context, req *mcp.CallToolRequest, in scheduleInput) (*mcp.CallToolResult, any, error) {
				if in.Confirm == nil || !*in.Confirm {
					return errorResult(confirmMissing), nil, nil
				}
				m := &apiv1.CreateScheduleRequest{ExportTo: in.ExportTo, Title: in.Title, Text: in.Text, Content: in.Content,
					WhenToExport: in.WhenToExport, Status: in.Status, WebhookId: in.WebhookID, Confirm: in.Confirm,
					ImageUrl: in.ImageURL, ImageBase64: in.ImageBase64, ImageFileName: in.ImageFileName, ImageMimeType: in.ImageMimeType, ImageAlt: in.ImageAlt}
				if in.ContentToExport != nil {
					st, err := structpb.NewStruct(in.ContentToExport)
					if err != nil {
						return errorResult("contentToExport: " + err.Error()), nil, nil
					}
					m.ContentToExport = st
				}
				if in.Image != nil {
					m.Image = &apiv1.ImageUpload{DownloadUrl: in.Image.DownloadURL, FileId: in.Image.FileID, MimeType: in.Image.MIMEType, FileName: in.Image.FileName}
				}
				return call(s, ctx, "schedule_content", req.Extra, m, h.CreateSchedule)
			})
		mcp.AddTool(s.srv, &mcp.Tool{Name: "list_schedules", Title: "List scheduled posts",
			Description: "The workspace's scheduled posts and drafts (status, time, destination, last error), newest first, 20 per page; total is the count of all."},
			func(ctx context.Context, req *mcp.CallToolRequest, in listSchedulesInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "list_schedules", req.Extra, &apiv1.ListSchedulesRequest{Skip: in.Skip}, h.ListSchedules)
			})
		mcp.AddTool(s.srv, &mcp.Tool{Name: "cancel_schedule", Title: "Cancel a scheduled post",
			Description: "Cancels a pending scheduled post or removes a draft, by id (from list_schedules). Ask the user first."},
			func(ctx context.Context, req *mcp.CallToolRequest, in idInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "cancel_schedule", req.Extra, &apiv1.DeleteScheduleRequest{Id: in.ID}, h.DeleteSchedule)
			})
	}
	if h := s.d.Generate; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "generate_text", Title: "Generate text",
			Description: "Generates text from a prompt with a language model, optionally in one of the user's brand voices. Uses the workspace's credits."},
			func(ctx context.Context, req *mcp.CallToolRequest, in generateTextInput) (*mcp.CallToolResult, any, error) {
				m := &apiv1.GenerateTextRequest{Text: in.Text, Model: in.Model, BrandVoiceId: in.BrandVoiceID}
				if in.Options != nil {
					st, err := structpb.NewStruct(in.Options)
					if err != nil {
						return errorResult("options: " + err.Error()), nil, nil
					}
					m.Options = st
				}
				return call(s, ctx, "generate_text", req.Extra, m, h.GenerateText)
			})
		mcp.AddTool(s.srv, &mcp.Tool{Name: "generate_image", Title: "Generate an image",
			Description: "Generates an image from a description and returns its hosted URL. Uses the workspace's credits."},
			func(ctx context.Context, req *mcp.CallToolRequest, in generateImageInput) (*mcp.CallToolResult, any, error) {
				m := &apiv1.GenerateImageRequest{Text: in.Text, Model: in.Model, Size: in.Size, Quality: in.Quality, Purpose: in.Purpose}
				return call(s, ctx, "generate_image", req.Extra, m, h.GenerateImage)
			})
	}
	if h := s.d.Voices; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "list_brand_voices", Title: "List brand voices",
			Description: "The brand voices the user can write in (id, name, type); read one in full as the resource herald://brand-voices/{id}."},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "list_brand_voices", req.Extra, &apiv1.ListBrandVoicesRequest{}, h.ListBrandVoices)
			})
	}
	if h := s.d.Content; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "calculate_seo_score", Title: "Score content for SEO",
			Description: "Scores a text for SEO (0-100) with the checks behind the score and suggestions; no model is called and no credit is used."},
			func(ctx context.Context, req *mcp.CallToolRequest, in seoInput) (*mcp.CallToolResult, any, error) {
				m := &apiv1.CalculateSEOScoreRequest{Content: in.Content, Title: in.Title, Keywords: in.Keywords}
				return call(s, ctx, "calculate_seo_score", req.Extra, m, h.CalculateSEOScore)
			})
	}
	if h := s.d.Visibility; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "get_visibility_report", Title: "Latest AI visibility report",
			Description: "The workspace's latest AI visibility report: how AI engines see the brand (visibility, share of voice, understanding) against competitors, with recommendations."},
			func(ctx context.Context, req *mcp.CallToolRequest, in reportInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "get_visibility_report", req.Extra, &apiv1.GetReportRequest{Evidence: in.Evidence}, h.GetReport)
			})
	}
	if h := s.d.Trackers; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "list_trackers", Title: "Visibility trackers",
			Description: "The workspace's visibility trackers: the site, competitors, prompts and engines each runs daily or weekly, its next and last run, and the last skipped slot."},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "list_trackers", req.Extra, &apiv1.ListTrackersRequest{}, h.ListTrackers)
			})
		mcp.AddTool(s.srv, &mcp.Tool{Name: "get_tracker", Title: "One visibility tracker",
			Description: "One visibility tracker by id: its setup, schedule (slot, next run), last run and last skipped slot."},
			func(ctx context.Context, req *mcp.CallToolRequest, in trackerInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "get_tracker", req.Extra, &apiv1.GetTrackerRequest{Id: in.ID}, h.GetTracker)
			})
	}
	if h := s.d.Traffic; h != nil {
		mcp.AddTool(s.srv, &mcp.Tool{Name: "get_ai_traffic_stats", Title: "AI traffic statistics",
			Description: "Visits AI assistants (ChatGPT, Perplexity, Claude, Gemini...) sent to the user's site over the last N days: totals, daily visits per source, top pages, crawler hits."},
			func(ctx context.Context, req *mcp.CallToolRequest, in statsInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "get_ai_traffic_stats", req.Extra, &apiv1.GetStatsRequest{Days: in.Days, SiteKey: in.SiteKey, Source: in.Source}, h.GetStats)
			})
		mcp.AddTool(s.srv, &mcp.Tool{Name: "ensure_tracking_site", Title: "Set up AI traffic tracking",
			Description: "Returns the workspace's AI traffic tracking site, creating it from the team's or user's website when missing, with the snippet to add to the site; needsDomain means a website must be set first."},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
				return call(s, ctx, "ensure_tracking_site", req.Extra, &apiv1.EnsureSiteRequest{}, h.EnsureSite)
			})
	}
}
