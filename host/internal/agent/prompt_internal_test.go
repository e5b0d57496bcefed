package agent

import (
	"slices"
	"strings"
	"testing"
)

// TestToolSchemasListTheirRequiredArguments: a schema names its required
// arguments, and one with none has no required list (an empty list is
// refused by some providers' validators).
func TestToolSchemasListTheirRequiredArguments(t *testing.T) {
	props := map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}
	s := object(props, "a", "b")
	req, ok := s["required"].([]any)
	if !ok || !slices.Equal(req, []any{"a", "b"}) {
		t.Errorf("required %v, want [a b]", s["required"])
	}
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("schema %v: want a closed object", s)
	}
	if _, has := object(props)["required"]; has {
		t.Errorf("a schema without required arguments has a required list: %v", object(props))
	}
}

// TestTheSystemPromptNamesTheToolsItOffers: the tools line lists the
// offered tools, and is absent when none is offered; the brand voice
// follows when there is one.
func TestTheSystemPromptNamesTheToolsItOffers(t *testing.T) {
	p := systemPrompt(Summary{}, "", []string{"get_ai_traffic_stats", "schedule_content"})
	if !strings.Contains(p, "\nTools: get_ai_traffic_stats, schedule_content.\n") {
		t.Errorf("prompt without the tools line:\n%s", p)
	}
	if p := systemPrompt(Summary{}, "", nil); strings.Contains(p, "Tools:") {
		t.Errorf("a prompt with no tools names some:\n%s", p)
	}
	if p := systemPrompt(Summary{}, "Warm and brief.", nil); !strings.HasSuffix(p, "\nWrite in this brand voice:\nWarm and brief.\n") {
		t.Errorf("prompt without the voice at its end:\n%s", p)
	}
}
