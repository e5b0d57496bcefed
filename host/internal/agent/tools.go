package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/sdk"
)

// tool is one function the model may call. run gets the turn (the caller
// and the session) and the model's JSON arguments.
type tool struct {
	def sdk.Tool
	run func(ctx context.Context, t *turn, args json.RawMessage) (any, error)
}

// argError is a problem with the model's arguments; its message goes back
// to the model as is.
type argError struct{ msg string }

func (e argError) Error() string { return e.msg }

func badArgs(format string, a ...any) error { return argError{fmt.Sprintf(format, a...)} }

// decodeArgs reads the model's arguments strictly, so that a misspelt
// field is reported instead of ignored.
func decodeArgs(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return badArgs("invalid arguments: %v", err)
	}
	return nil
}

// object is a JSON Schema object. It holds only JSON types (no []string),
// because the plugin protocol carries it as a google.protobuf.Struct.
func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		s["required"] = req
	}
	return s
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

// registerTools builds the tool set from the dependencies that are present:
// a feature that is not wired has no tool.
func (s *Service) registerTools() (map[string]tool, []sdk.Tool) {
	var list []tool
	if s.visibility != nil {
		list = append(list, tool{sdk.Tool{Name: "get_visibility_report", Description: "The workspace's latest AI visibility report: score, share of voice, understanding, each with its 95% interval and its change since the previous run. Report a change only as its 'says' words: a change that is not significant is 'no significant change'. Says 'none yet' when no report exists.",
			Parameters: object(map[string]any{})}, s.toolVisibility})
	}
	if s.traffic != nil {
		list = append(list, tool{sdk.Tool{Name: "get_ai_traffic_stats", Description: "AI assistant traffic to the workspace's site over the last N days: totals, visits per AI source, top pages, crawler hits.",
			Parameters: object(map[string]any{"days": map[string]any{"type": "integer", "minimum": 1, "maximum": traffic.MaxDays, "description": "lookback in days (default 30)"}})}, s.toolTraffic})
	}
	if s.scheduler != nil {
		list = append(list, tool{sdk.Tool{Name: "list_schedules", Description: "The workspace's scheduled posts, newest first, 20 per page.",
			Parameters: object(map[string]any{"skip": map[string]any{"type": "integer", "minimum": 0}})}, s.toolListSchedules})
	}
	if s.voices != nil {
		list = append(list, tool{sdk.Tool{Name: "list_brand_voices", Description: "The brand voices the user can use (id, name, type).",
			Parameters: object(map[string]any{})}, s.toolVoices})
	}
	if s.seoScore != nil {
		list = append(list, tool{sdk.Tool{Name: "calculate_seo_score", Description: "Scores a draft's SEO for a keyword.",
			Parameters: object(map[string]any{"title": str("page title"), "content": str("the text to score"), "keyword": str("target keyword")}, "content")}, s.toolSEO})
	}
	if s.images != nil {
		list = append(list, tool{sdk.Tool{Name: "generate_image", Description: "Generates and hosts one image (costs one AI credit) when the user asked for it; otherwise proposes it and the user confirms. Returns its URL or the proposal.",
			Parameters: object(map[string]any{"prompt": str("what to draw"), "purpose": str("blog, linkedin, square or portrait"),
				"size": str("1024x1024, 1536x1024, 1024x1536 or auto"), "quality": str("low, medium, high or auto")}, "prompt")}, s.toolImage})
	}
	if s.scheduler != nil {
		list = append(list, tool{sdk.Tool{Name: "schedule_content", Description: "Proposes to schedule a post; the user must confirm before anything is scheduled.",
			Parameters: object(map[string]any{"exportTo": str("destination, such as webhook or wordpress"), "title": str("post title"), "text": str("short text"),
				"content": str("post body"), "whenToExport": str("ISO-8601 time, such as 2030-01-02T15:04:05Z"), "webhookId": str("saved webhook id when exportTo is webhook"),
				"status": str("pending (default) or draft"), "trackerId": str("the visibility tracker the post is written for"),
				"targetPrompts": map[string]any{"type": "array", "items": str("a prompt id or a tag"), "description": "the tracker's prompts (ids or tags) the post targets; its impact is read on them once published"}}, "exportTo")}, s.toolSchedule})
	}
	list = append(list, s.gapTools()...)
	list = append(list, s.gapDraftTool()...)
	if s.events {
		list = append(list, tool{sdk.Tool{Name: "list_recent_events", Description: "What happened lately in the workspace, newest first: reports completed or failed, tracker runs and significant changes, posts published or failed, connection failures, credits running low, AI crawlers seen for the first time; each with its payload and a dashboard link.",
			Parameters: object(map[string]any{"type": str("only events of this type, such as schedule.failed"), "limit": map[string]any{"type": "integer", "minimum": 1, "maximum": recentEventsLimit}})}, s.toolRecentEvents})
	}
	byName := make(map[string]tool, len(list))
	defs := make([]sdk.Tool, len(list))
	for i, t := range list {
		byName[t.def.Name] = t
		defs[i] = t.def
	}
	return byName, defs
}

func (s *Service) runTool(ctx context.Context, t *turn, name string, args json.RawMessage) (any, error) {
	tl, ok := s.tools[name]
	if !ok {
		return nil, badArgs("unknown tool %q; the tools are %s", name, strings.Join(s.ToolNames(), ", "))
	}
	return tl.run(ctx, t, args)
}

func (s *Service) toolVisibility(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	v, err := s.visibility(ctx, t.p)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return map[string]any{"report": "none yet"}, nil
	}
	out := map[string]any{"score": v.Score, "shareOfVoice": v.ShareOfVoice, "understanding": v.Understanding, "createdAt": v.CreatedAt}
	if v.Detail != nil {
		out["report"] = v.Detail
	}
	return out, nil
}

func (s *Service) toolTraffic(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	var a struct {
		Days *int32 `json:"days"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	r, err := s.traffic.Stats(ctx, t.p, traffic.StatsQuery{Days: a.Days})
	if err != nil {
		return nil, err
	}
	type source struct {
		Source string `json:"source"`
		Name   string `json:"name"`
		Visits int64  `json:"visits"`
	}
	type page struct {
		Path     string `json:"path"`
		AIVisits int64  `json:"aiVisits"`
	}
	out := struct {
		Domain      string   `json:"domain"`
		Days        int32    `json:"days"`
		From        string   `json:"from"`
		To          string   `json:"to"`
		Visits      int64    `json:"visits"`
		AIVisits    int64    `json:"aiVisits"`
		AIShare     float64  `json:"aiShare"`
		CrawlerHits int64    `json:"crawlerHits"`
		Sources     []source `json:"sources"`
		TopPages    []page   `json:"topPages"`
	}{Domain: r.Domain, Days: r.Days, From: r.From, To: r.To, Sources: []source{}, TopPages: []page{}}
	tt := r.Totals
	out.Visits, out.AIVisits, out.AIShare, out.CrawlerHits = tt.Visits, tt.AIVisits, tt.AIShare, tt.CrawlerHits
	for _, src := range r.Sources {
		out.Sources = append(out.Sources, source{src.Source, src.Name, src.Visits})
	}
	for i, pg := range r.TopPages {
		if i == 5 {
			break
		}
		out.TopPages = append(out.TopPages, page{pg.Path, pg.AIVisits})
	}
	return out, nil
}

func (s *Service) toolListSchedules(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	var a struct {
		Skip int `json:"skip"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	list, total, err := s.scheduler.List(ctx, t.p, a.Skip)
	if err != nil {
		return nil, err
	}
	items := make([]map[string]any, 0, len(list))
	for _, sc := range list {
		item := map[string]any{"id": sc.ID, "exportTo": sc.ExportTo, "status": sc.Status, "whenToExport": sc.WhenToExport, "content": json.RawMessage(validJSON(sc.Content))}
		if sc.LastError != nil {
			item["lastError"] = *sc.LastError
		}
		items = append(items, item)
	}
	return map[string]any{"total": total, "schedules": items}, nil
}

func (s *Service) toolVoices(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	list, err := s.voices.List(ctx, t.p)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(list))
	for _, v := range list {
		out = append(out, map[string]any{"id": v.ID, "name": v.Name, "type": v.Type, "scope": v.Scope})
	}
	return map[string]any{"brandVoices": out}, nil
}

func (s *Service) toolSEO(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	var a SEOInput
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Content) == "" {
		return nil, badArgs("content is required")
	}
	return s.seoScore(ctx, t.p, a)
}

// imageArgs are generate_image's arguments.
type imageArgs struct {
	Prompt  string `json:"prompt"`
	Purpose string `json:"purpose,omitempty"`
	Size    string `json:"size,omitempty"`
	Quality string `json:"quality,omitempty"`
}

func (a imageArgs) input() generate.ImageInput {
	return generate.ImageInput{Text: a.Prompt, Purpose: a.Purpose, Size: a.Size, Quality: a.Quality}
}

// toolImage generates an image only when the user's own message asked for
// one and the turn's budget allows it (budget.mayRunDirectly); otherwise
// it proposes, and the image (and its credit) waits for the user.
func (s *Service) toolImage(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	var a imageArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, badArgs("prompt is required")
	}
	if !t.budget.mayRunDirectly("generate_image") {
		clean, _ := json.Marshal(a)
		prompt := []rune(a.Prompt)
		if len(prompt) > MaxTitleChars {
			prompt = append(prompt[:MaxTitleChars], '…')
		}
		summary := fmt.Sprintf("Generate an image (one AI credit): %s", string(prompt))
		if err := propose(t, "generate_image", summary, string(clean)); err != nil {
			return nil, err
		}
		return map[string]any{"status": "proposed", "proposal": summary,
			"note": "No image was generated and no credit spent: the user sees a proposal and must confirm it."}, nil
	}
	img, err := s.images.GenerateImage(ctx, t.p, a.input())
	if err != nil {
		return nil, err
	}
	return map[string]any{"url": img.URL, "model": img.Model, "size": img.Size, "quality": img.Quality}, nil
}

// propose adds a proposal block: the action and its arguments wait for
// the user to send the confirmToken back (Service.confirm).
func propose(t *turn, action, summary, args string) error {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return err
	}
	token := "ct_" + hex.EncodeToString(raw[:])
	t.add(Block{Role: RoleAssistant, Type: TypeProposal, Content: jsonString(summary), Action: &action, Args: &args, ConfirmToken: &token})
	return nil
}

// scheduleArgs are schedule_content's arguments: the fields of POST
// /v1/scheduler/create the agent may fill.
type scheduleArgs struct {
	ExportTo     string  `json:"exportTo"`
	Title        *string `json:"title,omitempty"`
	Text         *string `json:"text,omitempty"`
	Content      *string `json:"content,omitempty"`
	WhenToExport string  `json:"whenToExport,omitempty"`
	WebhookID    *string `json:"webhookId,omitempty"`
	Status       string  `json:"status,omitempty"`
	// TrackerID and TargetPrompts are what the post is written for.
	TrackerID     string   `json:"trackerId,omitempty"`
	TargetPrompts []string `json:"targetPrompts,omitempty"`
}

// targets are the post's targets.
func (a scheduleArgs) targets() schedule.Targets {
	return schedule.Targets{TrackerID: a.TrackerID, Prompts: a.TargetPrompts}
}

// toolSchedule never schedules: it adds a proposal block with a token the
// user sends back to confirm (see Service.confirm).
func (s *Service) toolSchedule(ctx context.Context, t *turn, args json.RawMessage) (any, error) {
	var a scheduleArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	// The scheduler's own checks, with its messages; the rest (plan,
	// credentials, the destination's Validate) runs at confirmation.
	if err := s.scheduler.Check(schedule.NewSchedule{ExportTo: a.ExportTo, Title: a.Title, Text: a.Text, Body: a.Content,
		WhenToExport: a.WhenToExport, Status: a.Status, WebhookID: a.WebhookID, Targets: a.targets()}); err != nil {
		return nil, err
	}
	clean, _ := json.Marshal(a)
	summary := fmt.Sprintf("Schedule a post to %s", a.ExportTo)
	if a.WhenToExport != "" {
		summary += " at " + a.WhenToExport
	}
	if a.Title != nil {
		summary += ": " + *a.Title
	}
	if len(a.TargetPrompts) > 0 {
		summary += fmt.Sprintf(" (targets %d prompts of tracker %s)", len(a.TargetPrompts), a.TrackerID)
	}
	if err := propose(t, "schedule_content", summary, string(clean)); err != nil {
		return nil, err
	}
	return map[string]any{"status": "proposed", "proposal": summary,
		"note": "Nothing is scheduled yet: the user sees a proposal and must confirm it."}, nil
}
