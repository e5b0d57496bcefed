package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"sync"

	"github.com/heraldhq/herald/sdk"
)

// engines stand in for the provider plugins with scripted answers, as the
// area tests do: answer engines for reports (gpt-4o, claude), the judge and
// the prompt suggester (gpt-4o with a system prompt), the editor and blog
// writer (gpt-4o-mini), the agent (Chat) and an image model.
type engines struct {
	mu    sync.Mutex
	calls map[string]int // what → count: "answer", "judge", "edit", "image", "chat"
}

func newEngines() *engines { return &engines{calls: map[string]int{}} }

func (e *engines) count(what string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[what]
}

func (e *engines) note(what string) {
	e.mu.Lock()
	e.calls[what]++
	e.mu.Unlock()
}

func (e *engines) Models() []string {
	return []string{"claude", "gpt-4o", "gpt-4o-mini", "gpt-image-1"}
}

// The scripted report: Acme is named in three of four answers, Globex in
// three, Initech cited by URL once.
var answers = map[string]map[string]string{
	"gpt-4o": {
		"best widget supplier":  "Top picks: Acme, Globex Corp and Initech.",
		"widgets for factories": "Globex Corp is the leader; see https://initech.io/widgets.",
		gapQuestion:             "Globex Corp makes them; see https://initech.io/widgets.",
	},
	"claude": {
		"best widget supplier":  "Acme (https://example.com) is great. Globex Corp is cheaper.",
		"widgets for factories": "I would pick Acme, then Globex Corp.",
		gapQuestion:             "Globex Corp, or Initech.",
	},
}

// improvedText is what the scripted editor answers: the test's text,
// shorter sentences, keyphrase kept.
const improvedText = `# Industrial widgets for factories

Acme makes industrial widgets for factories. They last for years.

Each industrial widget is tested before it ships. Factories across Europe use them every day.

Read more on [our widget guide](https://example.com/guide).`

func (e *engines) GenerateText(_ context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	switch {
	case strings.Contains(req.System, "buyers"):
		e.note("suggest")
		return sdk.TextResponse{Text: `{"competitors":["Globex Corp","Initech"],"prompts":["best widget supplier","widgets for factories"]}`, Model: model}, nil
	case strings.Contains(req.System, "You write blog posts for a brand's website"):
		// The draft route's writer: a thin first round, a full post when
		// asked to improve it.
		e.note("draft")
		if strings.Contains(req.Prompt, "Improve the previous draft") {
			return sdk.TextResponse{Text: improvedText, Model: model + "-2026"}, nil
		}
		return sdk.TextResponse{Text: "# Widgets\n\nWe make them.", Model: model + "-2026"}, nil
	case strings.Contains(req.System, "careful editor"):
		e.note("edit")
		return sdk.TextResponse{Text: improvedText, Model: model + "-2026", Usage: sdk.Usage{InputTokens: 50, OutputTokens: 40, TotalTokens: 90}}, nil
	case req.System != "":
		e.note("judge")
		verdict := "correct"
		if strings.Contains(req.Prompt, "don't know") {
			verdict = "unknown"
		}
		b, _ := json.Marshal(map[string]any{"verdict": verdict, "explanation": "graded " + verdict, "entities": []any{}})
		return sdk.TextResponse{Text: string(b), Model: model}, nil
	case strings.Contains(req.Prompt, "Post:\n"):
		e.note("image prompts")
		return sdk.TextResponse{Text: `[{"prompt":"A row of shiny industrial widgets","alt":"Industrial widgets on a workbench"}]`, Model: model}, nil
	}
	e.note("answer")
	if text, ok := answers[model][req.Prompt]; ok {
		return sdk.TextResponse{Text: text, Model: model + "-2026"}, nil
	}
	if strings.HasPrefix(req.Prompt, "What is") {
		return sdk.TextResponse{Text: "Acme makes industrial widgets in Lyon.", Model: model + "-2026"}, nil
	}
	return sdk.TextResponse{Text: "I don't know.", Model: model + "-2026"}, nil
}

func (e *engines) GenerateImage(_ context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	e.note("image")
	img := image.NewRGBA(image.Rect(0, 0, 24, 16))
	for x := 0; x < 24; x++ {
		for y := 0; y < 16; y++ {
			img.Set(x, y, color.RGBA{R: 40, G: uint8(100 + 6*y), B: uint8(200 - 5*x), A: 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return sdk.ImageResponse{Data: buf.Bytes(), MIMEType: "image/png", Model: model, Size: req.Size, Quality: req.Quality}, nil
}

// webhookInText finds "webhook <id>" in the user's message: the scripted
// agent proposes a post to that saved webhook.
var webhookInText = regexp.MustCompile(`webhook (\S+)`)

// Chat is the scripted agent: a message that says "schedule" makes it call
// schedule_content (which only proposes); once a tool result is in, it
// answers in two text deltas. Any other message is answered in words.
func (e *engines) Chat(_ context.Context, model string, req sdk.ChatRequest, stream sdk.ChatStream) error {
	e.note("chat")
	last := req.Messages[len(req.Messages)-1]
	finish := func(reason string) error {
		return stream.Send(sdk.ChatEvent{Finish: &sdk.ChatFinish{FinishReason: reason, Model: model + "-2026", Usage: sdk.Usage{InputTokens: 20, OutputTokens: 8, TotalTokens: 28}}})
	}
	words := func(parts ...string) error {
		for _, p := range parts {
			if err := stream.Send(sdk.ChatEvent{TextDelta: p}); err != nil {
				return err
			}
		}
		return finish("stop")
	}
	if last.Role == sdk.RoleTool {
		return words("I have prepared the post. ", "Confirm the card to schedule it.")
	}
	m := webhookInText.FindStringSubmatch(last.Content)
	if !strings.Contains(strings.ToLower(last.Content), "schedule") || m == nil || len(req.Tools) == 0 {
		return words("Hello! ", "Ask me to schedule a post.")
	}
	args := fmt.Sprintf(`{"exportTo":"webhook","webhookId":%q,"title":"Launch day","text":"We ship today.","status":"draft"}`, m[1])
	if err := stream.Send(sdk.ChatEvent{ToolCall: &sdk.ToolCall{ID: "call_1", Name: "schedule_content", Arguments: args}}); err != nil {
		return err
	}
	return finish("tool_calls")
}
