package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/agentstore"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
)

// confirm runs a proposal's action once: the token is claimed first (a
// second confirmation is 409), and released again if the action fails so
// that the user can fix the cause and confirm again.
func (s *Service) confirm(ctx context.Context, p auth.Principal, sessionID, token string) (Reply, error) {
	if _, err := s.ownSession(ctx, p, sessionID); err != nil {
		return Reply{}, err
	}
	prop, err := s.chats.ClaimProposal(ctx, p.WorkspaceID, sessionID, token)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Reply{}, apierr.NotFound("no proposal with this confirm token in session %s", sessionID)
	case errors.Is(err, agentstore.ErrAlreadyConfirmed):
		return Reply{}, apierr.Conflict("this proposal was already confirmed")
	case err != nil:
		return Reply{}, err
	}
	release := func() {
		if err := s.chats.ReleaseProposal(context.WithoutCancel(ctx), p.WorkspaceID, sessionID, token); err != nil {
			s.log.Error("release proposal", "workspace", p.WorkspaceID, "error", err)
		}
	}
	if prop.Action == nil || prop.Args == nil {
		release()
		return Reply{}, apierr.Unavailable("this proposal's action is not available on this host")
	}
	name := *prop.Action
	var result map[string]any
	var text string
	// follow is a proposal that comes of the confirmed action (a draft's
	// schedule), added after its result.
	var follow *followUp
	switch {
	case name == "write_for_gap" && s.gapDraft != nil && s.scheduler != nil:
		if result, text, follow, err = s.confirmGapDraft(ctx, p, *prop.Args); err != nil {
			release()
			return Reply{}, err
		}
	case name == "schedule_content" && s.scheduler != nil:
		var a scheduleArgs
		if err := json.Unmarshal([]byte(*prop.Args), &a); err != nil {
			release()
			return Reply{}, fmt.Errorf("proposal arguments: %w", err)
		}
		yes := true
		sc, err := s.scheduler.Create(ctx, p, schedule.NewSchedule{ExportTo: a.ExportTo, Title: a.Title, Text: a.Text, Body: a.Content,
			WhenToExport: a.WhenToExport, Status: a.Status, WebhookID: a.WebhookID, Confirm: &yes, Targets: a.targets()})
		if err != nil {
			release()
			return Reply{}, err
		}
		result = map[string]any{"confirmed": true, "scheduleId": sc.ID, "status": sc.Status, "exportTo": sc.ExportTo}
		text = fmt.Sprintf("Confirmed: schedule %s (%s to %s).", sc.ID, sc.Status, sc.ExportTo)
	case name == "generate_image" && s.images != nil:
		var a imageArgs
		if err := json.Unmarshal([]byte(*prop.Args), &a); err != nil {
			release()
			return Reply{}, fmt.Errorf("proposal arguments: %w", err)
		}
		img, err := s.images.GenerateImage(ctx, p, a.input())
		if err != nil {
			release()
			return Reply{}, err
		}
		result = map[string]any{"confirmed": true, "url": img.URL, "model": img.Model, "size": img.Size, "quality": img.Quality}
		text = fmt.Sprintf("Confirmed: image generated at %s.", img.URL)
	default:
		release()
		return Reply{}, apierr.Unavailable("this proposal's action is not available on this host")
	}
	body, _ := json.Marshal(result)
	t := &turn{p: p, session: sessionID}
	t.add(Block{Role: RoleTool, Type: TypeToolResult, Content: string(body), ToolName: &name})
	t.add(Block{Role: RoleAssistant, Type: TypeText, Content: jsonString(text)})
	if follow != nil {
		if err := propose(t, follow.action, follow.summary, follow.args); err != nil {
			return Reply{}, err
		}
	}
	if t.blocks, err = s.appendBlocks(ctx, p, sessionID, "", "", t.blocks); err != nil {
		// The action happened and the token stays claimed; only the
		// record of it in the session is missing.
		s.log.Error("record confirmation", "workspace", p.WorkspaceID, "action", name, "error", err)
	}
	return Reply{SessionID: sessionID, Text: text, Blocks: t.blocks}, nil
}
