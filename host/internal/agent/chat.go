package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"slices"
	"strings"
	"unicode/utf8"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/sdk"
)

// Block roles and types.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"

	TypeText       = "text"
	TypeToolCall   = "tool_call"
	TypeToolResult = "tool_result"
	TypeProposal   = "proposal"
)

// Message is one chat request: a user message, or the confirmation of a
// proposal (Confirm set, with SessionID).
type Message struct {
	Model, Text  string
	SessionID    *string
	BrandVoiceID *string
	Confirm      string
}

// validate checks a message; tuned reports that the model is the
// workspace's fine-tuned model (ft:<workspace name>), routed outside the
// configured models.
func (m Message) validate(models []string, tuned bool) error {
	if m.Confirm != "" {
		if m.SessionID == nil || *m.SessionID == "" {
			return apierr.Invalid("sessionId is required with confirm")
		}
		return nil
	}
	if strings.TrimSpace(m.Model) == "" {
		return apierr.Invalid("model is required (configured: %s)", strings.Join(models, ", "))
	}
	if !tuned && !slices.Contains(models, m.Model) {
		return apierr.Invalid("unknown model %q (configured: %s)", m.Model, strings.Join(models, ", "))
	}
	if strings.TrimSpace(m.Text) == "" {
		return apierr.Invalid("text is required")
	}
	if n := utf8.RuneCountInString(m.Text); n > MaxTextChars {
		return apierr.Invalid("text is %d characters; the limit is %d", n, MaxTextChars)
	}
	if m.SessionID != nil {
		if err := checkSessionID(*m.SessionID); err != nil {
			return err
		}
	}
	return nil
}

// Event is one streamed event of a turn; exactly one field is set.
type Event struct {
	// SessionID is set on every event (a new session's id included).
	SessionID  string
	TextDelta  string
	ToolCall   *Block
	ToolResult *Block
}

// Emit receives a turn's events in order; an error ends the turn.
type Emit func(Event) error

// Reply is the outcome of a turn.
type Reply struct {
	SessionID string
	Text      string
	Model     string
	// Blocks are the blocks the turn added, oldest first.
	Blocks []Block
	Usage  sdk.Usage
}

// turn is the state of one message being answered.
type turn struct {
	p       auth.Principal
	session string
	model   string
	blocks  []Block
	emit    Emit
	budget  *budget
}

func (t *turn) add(b Block) *Block {
	b.ID = store.NewID()
	t.blocks = append(t.blocks, b)
	return &t.blocks[len(t.blocks)-1]
}

// Send answers one message (or confirms a proposal); emit, when not nil,
// receives text deltas, tool calls and tool results as they happen.
func (s *Service) Send(ctx context.Context, p auth.Principal, m Message, emit Emit) (Reply, error) {
	if emit == nil {
		emit = func(Event) error { return nil }
	}
	models := slices.Sorted(slices.Values(s.models.Models()))
	var target finetune.Target
	tuned := false
	if m.Confirm == "" {
		var err error
		if target, tuned, err = s.tuned.Resolve(ctx, p.WorkspaceID, m.Model); err != nil {
			return Reply{}, err
		}
	}
	if err := m.validate(models, tuned); err != nil {
		return Reply{}, err
	}
	var chat chatFunc = s.models.Chat
	if tuned {
		chat = func(ctx context.Context, _ string, req sdk.ChatRequest, stream sdk.ChatStream) error {
			return s.tuned.Chat(ctx, target, req, stream)
		}
	}
	if m.Confirm != "" {
		return s.confirm(ctx, p, *m.SessionID, m.Confirm)
	}

	sessionID, isNew, err := s.sessionFor(ctx, p, m.SessionID)
	if err != nil {
		return Reply{}, err
	}
	bud, err := newBudget(m.Text)
	if err != nil {
		return Reply{}, err
	}
	voice, fetchedVoice, err := s.voiceFor(ctx, p, m.BrandVoiceID, bud.nonce)
	if err != nil {
		return Reply{}, err
	}
	var history []Block
	if !isNew {
		rows, err := agentstore.New(s.store).RecentChatBlocks(ctx, p.WorkspaceID, sessionID, historyBlocks)
		if err != nil {
			return Reply{}, err
		}
		history = blocksOf(rows)
	}
	summary, err := s.Summary(ctx, p)
	if err != nil {
		return Reply{}, err
	}

	// One AI credit per message, reserved before the model runs and given
	// back if the turn fails.
	refund, err := s.quota.Reserve(ctx, p, 1)
	if err != nil {
		return Reply{}, err
	}
	bud.tainted = fetchedVoice
	reply, err := s.run(ctx, p, chat, m, sessionID, systemPrompt(summary, voice, s.ToolNames()), bud, history, emit)
	if err == nil {
		reply.Blocks, err = s.save(ctx, p, sessionID, isNew, title(m.Text), reply)
	}
	if err != nil {
		refund()
		return Reply{}, err
	}
	s.met.messages.Inc()
	return reply, nil
}

// sessionFor is the session a message goes to: the caller's own, or a new
// one (a server id, or the client's id when nobody holds it); another
// user's id is 404.
func (s *Service) sessionFor(ctx context.Context, p auth.Principal, id *string) (sessionID string, isNew bool, err error) {
	if id == nil {
		return store.NewID(), true, nil
	}
	_, err = agentstore.New(s.store).GetChatSession(ctx, p.WorkspaceID, p.UserID, *id)
	switch {
	case err == nil:
		return *id, false, nil
	case !errors.Is(err, store.ErrNotFound):
		return "", false, err
	}
	taken, err := agentstore.New(s.store).ChatSessionExists(ctx, *id)
	if err != nil {
		return "", false, err
	}
	if taken {
		return "", false, apierr.NotFound("session %s not found", *id)
	}
	return *id, true, nil
}

// voiceFor is the brand voice a message asked for ("" when none), and
// whether it was made from fetched pages (then it is wrapped as outside
// text with the turn's nonce).
func (s *Service) voiceFor(ctx context.Context, p auth.Principal, id *string, nonce string) (voice string, fetched bool, err error) {
	if id == nil || *id == "" {
		return "", false, nil
	}
	if s.voices == nil {
		return "", false, apierr.Invalid("brandVoiceId: brand voices are not available on this host")
	}
	v, err := s.voices.Get(ctx, p, *id)
	if err != nil {
		return "", false, err
	}
	if v.Type == "website" || v.Type == "file" {
		// A profile made from fetched pages: outside text.
		return wrapVoice(nonce, v.Content), true, nil
	}
	return v.Content, false, nil
}

// save writes a turn: the new session when there was none, then every new
// block in one append. It returns the blocks as stored.
func (s *Service) save(ctx context.Context, p auth.Principal, sessionID string, isNew bool, title string, reply Reply) ([]Block, error) {
	if isNew {
		c := agentstore.ChatSession{ID: sessionID, WorkspaceID: p.WorkspaceID, UserID: p.UserID}
		if err := agentstore.New(s.store).CreateChatSession(ctx, &c); errors.Is(err, store.ErrConflict) {
			return nil, apierr.Conflict("sessionId %s was taken while answering; retry", sessionID)
		} else if err != nil {
			return nil, err
		}
	}
	blocks, err := s.appendBlocks(ctx, p, sessionID, title, reply.Model, reply.Blocks)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFound("session %s was deleted while answering", sessionID)
	}
	return blocks, err
}

// chatFunc streams one model turn: Models.Chat, or the workspace's
// fine-tuned model.
type chatFunc func(ctx context.Context, model string, req sdk.ChatRequest, stream sdk.ChatStream) error

// run is the tool loop of one message.
func (s *Service) run(ctx context.Context, p auth.Principal, chat chatFunc, m Message, sessionID, system string, bud *budget, history []Block, emit Emit) (Reply, error) {
	outer := emit
	emit = func(ev Event) error {
		ev.SessionID = sessionID
		return outer(ev)
	}
	t := &turn{p: p, session: sessionID, model: m.Model, emit: emit, budget: bud}
	t.add(Block{Role: RoleUser, Type: TypeText, Content: jsonString(m.Text)})
	msgs := trimHistory(system+untrustedRule(bud.nonce), toMessages(history), s.contextTokens)
	wrapHistory(msgs, bud.nonce)
	bud.tainted = bud.tainted || taintedBy(msgs)
	msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Content: m.Text})
	reply := Reply{SessionID: sessionID, Model: m.Model}
	for round := 0; ; round++ {
		req := sdk.ChatRequest{Messages: msgs, Tools: s.toolDef}
		if round >= MaxToolRounds || bud.calls >= MaxToolCallsPerTurn {
			req.Tools = nil // the last round must answer in words
		}
		var text strings.Builder
		var calls []sdk.ToolCall
		err := chat(ctx, m.Model, req, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
			switch {
			case ev.TextDelta != "":
				text.WriteString(ev.TextDelta)
				return emit(Event{TextDelta: ev.TextDelta})
			case ev.ToolCall != nil:
				calls = append(calls, *ev.ToolCall)
			case ev.Finish != nil:
				if ev.Finish.Model != "" {
					reply.Model = ev.Finish.Model
				}
				reply.Usage.InputTokens += ev.Finish.Usage.InputTokens
				reply.Usage.OutputTokens += ev.Finish.Usage.OutputTokens
				reply.Usage.TotalTokens += ev.Finish.Usage.TotalTokens
			}
			return nil
		}))
		if err != nil {
			return Reply{}, s.providerError(ctx, err)
		}
		if len(calls) == 0 || req.Tools == nil {
			reply.Text = text.String()
			t.add(Block{Role: RoleAssistant, Type: TypeText, Content: jsonString(reply.Text), Model: &reply.Model})
			break
		}
		if text.Len() > 0 {
			t.add(Block{Role: RoleAssistant, Type: TypeText, Content: jsonString(text.String()), Model: &reply.Model})
		}
		asked := len(calls)
		calls = s.capCalls(t, calls)
		msgs = append(msgs, sdk.Message{Role: sdk.RoleAssistant, Content: text.String(), ToolCalls: calls})
		for _, call := range calls {
			result, err := s.callTool(ctx, t, call)
			if err != nil {
				return Reply{}, err // the stream to the client failed
			}
			if _, outside := outsideText[call.Name]; outside {
				bud.tainted = true
			}
			msgs = append(msgs, sdk.Message{Role: sdk.RoleTool, ToolCallID: call.ID, Content: wrapUntrusted(bud.nonce, call.Name, result)})
		}
		if dropped := asked - len(calls); dropped > 0 && len(calls) > 0 {
			// The model learns why (this turn only; the history keeps
			// the calls that ran).
			last := &msgs[len(msgs)-1]
			last.Content += fmt.Sprintf("\n(%d more tool calls of this answer were not run: at most %d run per answer and %d per message.)", dropped, MaxToolCallsPerRound, MaxToolCallsPerTurn)
		}
	}
	reply.Blocks = t.blocks
	return reply, nil
}

// capCalls keeps the calls of one model answer that the turn's budget
// allows: at most MaxToolCallsPerRound, and no more than the turn has
// left. Dropped calls are neither run nor recorded nor answered.
func (s *Service) capCalls(t *turn, calls []sdk.ToolCall) []sdk.ToolCall {
	keep := min(len(calls), MaxToolCallsPerRound, MaxToolCallsPerTurn-t.budget.calls)
	if dropped := calls[keep:]; len(dropped) > 0 {
		for _, c := range dropped {
			s.met.toolCalls.WithLabelValues(c.Name, "dropped").Inc()
		}
		s.log.Warn("dropped tool calls over the turn's budget", "workspace", t.p.WorkspaceID, "asked", len(calls), "ran", keep)
	}
	t.budget.calls += keep
	return calls[:keep]
}

// callTool records and runs one tool call and returns the text the model
// gets back: the result, or {"error": ...} when the tool failed.
func (s *Service) callTool(ctx context.Context, t *turn, call sdk.ToolCall) (string, error) {
	name, id := call.Name, call.ID
	args := call.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	callContent, _ := json.Marshal(map[string]any{"name": name, "arguments": json.RawMessage(validJSON(args))})
	cb := t.add(Block{Role: RoleAssistant, Type: TypeToolCall, Content: string(callContent), ToolName: &name, ToolCallID: &id, Model: &t.model})
	if err := t.emit(Event{ToolCall: cb}); err != nil {
		return "", err
	}
	result, terr := s.runTool(ctx, t, name, json.RawMessage(args))
	outcome := "ok"
	if terr != nil {
		outcome = "error"
		result = map[string]any{"error": toolErrorMessage(terr)}
		s.log.Debug("tool failed", "tool", name, "workspace", t.p.WorkspaceID, "error", terr)
	}
	s.met.toolCalls.WithLabelValues(name, outcome).Inc()
	body, err := json.Marshal(result)
	if err != nil {
		body, _ = json.Marshal(map[string]any{"error": "the tool's result could not be encoded"})
	}
	rb := t.add(Block{Role: RoleTool, Type: TypeToolResult, Content: string(body), ToolName: &name, ToolCallID: &id})
	if err := t.emit(Event{ToolResult: rb}); err != nil {
		return "", err
	}
	return string(body), nil
}

// toolErrorMessage is what the model is told about a failed tool: an API
// error's client message, never internal detail.
func toolErrorMessage(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) && ce.Code() != connect.CodeInternal && ce.Code() != connect.CodeUnknown {
		return ce.Message()
	}
	var ae argError
	if errors.As(err, &ae) {
		return ae.Error()
	}
	return "internal error"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func validJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	return jsonString(s)
}

// providerError turns a model-router or plugin failure into an API error:
// the tenant's message is the one every route gives
// (generate.TenantProviderError); the provider's text goes to the log.
func (s *Service) providerError(ctx context.Context, err error) error {
	var se *sdk.Error
	if !errors.As(err, &se) {
		var ce *connect.Error
		if errors.As(err, &ce) {
			return err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return apierr.New(connect.CodeDeadlineExceeded, "the model did not answer in time")
		}
		if errors.Is(err, context.Canceled) {
			return apierr.New(connect.CodeCanceled, "request canceled")
		}
		return fmt.Errorf("chat: %w", err)
	}
	s.log.Warn("provider call failed", "request_id", apierr.RequestID(ctx), "code", se.Code, "retryable", se.Retryable, "detail", generate.RedactKeys(se.Message))
	return generate.TenantProviderError(ctx, se)
}
