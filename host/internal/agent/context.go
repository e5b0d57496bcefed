package agent

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// Summary is the workspace context the agent starts from; parts whose
// feature has no data (or is not wired) are nil.
type Summary struct {
	Workspace  auth.Principal
	Voices     []ContextVoice
	Visibility *VisibilitySnapshot
	Traffic    *TrafficSummary
	Schedules  ScheduleCounts
	Used       int
	Limit      int
	// Documents are the recent generated texts, blog drafts and
	// published posts, newest first.
	Documents []Document
}

// ContextVoice is a brand voice the caller can use.
type ContextVoice struct {
	ID, Name, Type string
}

// ScheduleCounts are the workspace's pending schedules and those published
// and failed in the last 30 days.
type ScheduleCounts struct {
	Pending, Published, Failed int64
}

// TrafficSummary is the last 30 days of AI traffic.
type TrafficSummary struct {
	Days       int32
	AIVisits   int64
	TopSources []TrafficSource
}

// TrafficSource is one AI source's visits.
type TrafficSource struct {
	Source, Name string
	Visits       int64
}

const summaryDays = 30

// Summary builds the caller's workspace context.
func (s *Service) Summary(ctx context.Context, p auth.Principal) (Summary, error) {
	plan, _ := s.plans.Get(p.Plan)
	sum := Summary{Workspace: p, Limit: plan.MonthlyAICredits}
	var err error
	if s.voices != nil {
		list, err := s.voices.List(ctx, p)
		if err != nil {
			return sum, err
		}
		sum.Voices = make([]ContextVoice, len(list))
		for i, v := range list {
			sum.Voices[i] = ContextVoice{ID: v.ID, Name: v.Name, Type: v.Type}
		}
	}
	if s.visibility != nil {
		if sum.Visibility, err = s.visibility(ctx, p); err != nil {
			return sum, err
		}
	}
	if s.traffic != nil {
		days := int32(summaryDays)
		r, err := s.traffic.Stats(ctx, p, traffic.StatsQuery{Days: &days})
		var ce *connect.Error
		switch {
		case errors.As(err, &ce) && ce.Code() == connect.CodeNotFound:
			// no site yet: null
		case err != nil:
			return sum, err
		default:
			t := &TrafficSummary{Days: days, TopSources: []TrafficSource{}}
			t.AIVisits = r.Totals.AIVisits
			for i, src := range r.Sources {
				if i == 5 {
					break
				}
				t.TopSources = append(t.TopSources, TrafficSource{src.Source, src.Name, src.Visits})
			}
			sum.Traffic = t
		}
	}
	since := s.now().Add(-summaryDays * 24 * time.Hour).UnixMilli()
	if s.scheduler != nil { // a service built without the scheduler counts none
		counts, err := s.scheduler.CountsSince(ctx, p.WorkspaceID, since)
		if err != nil {
			return sum, err
		}
		sum.Schedules = ScheduleCounts{Pending: counts.Pending, Published: counts.Published, Failed: counts.Failed}
	}
	if sum.Used, err = s.quota.Used(ctx, p.WorkspaceID); err != nil {
		return sum, err
	}
	if sum.Documents, err = s.documents(ctx, p.WorkspaceID); err != nil {
		return sum, err
	}
	return sum, nil
}

// summaryJSON is the summary as the model reads it.
func summaryJSON(sum Summary) map[string]any {
	voices := make([]map[string]any, 0, len(sum.Voices))
	for _, v := range sum.Voices {
		voices = append(voices, map[string]any{"id": v.ID, "name": v.Name, "type": v.Type})
	}
	out := map[string]any{
		"workspace":   map[string]any{"name": sum.Workspace.WorkspaceName, "plan": sum.Workspace.Plan, "website": sum.Workspace.Website},
		"brandVoices": voices,
		"visibility":  nil,
		"traffic":     nil,
		"schedules":   map[string]any{"pending": sum.Schedules.Pending, "publishedLast30d": sum.Schedules.Published, "failedLast30d": sum.Schedules.Failed},
		"credits":     map[string]any{"used": sum.Used, "limit": sum.Limit},
	}
	docs := make([]map[string]any, 0, len(sum.Documents))
	for _, d := range sum.Documents {
		docs = append(docs, map[string]any{"id": d.ID, "title": d.Title, "kind": d.Kind,
			"date": time.UnixMilli(d.Date).UTC().Format(time.RFC3339), "link": d.Link})
	}
	out["documents"] = docs
	if v := sum.Visibility; v != nil {
		out["visibility"] = map[string]any{"score": v.Score, "shareOfVoice": v.ShareOfVoice, "understanding": v.Understanding}
	}
	if t := sum.Traffic; t != nil {
		out["traffic"] = map[string]any{"days": t.Days, "aiVisits": t.AIVisits, "topSources": t.TopSources}
	}
	return out
}
