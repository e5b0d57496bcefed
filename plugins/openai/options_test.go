package openai

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// The documented options reach chat completions under OpenAI's names.
func TestOptionsPassThrough(t *testing.T) {
	t.Parallel()
	p, f := setup(t, &fakeOpenAI{})
	opts := map[string]any{
		"top_p": 0.5, "seed": 7.0, "presence_penalty": 0.1, "frequency_penalty": -0.3, "stop": []any{"END"},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "strict": true, "schema": map[string]any{"type": "object"}}},
	}
	if _, err := plugintest.InProcessProvider(t, p).GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-5-mini", Prompt: "hi", Options: opts}); err != nil {
		t.Fatal(err)
	}
	body := f.bodies[0]
	for k, want := range map[string]any{"top_p": 0.5, "seed": 7.0, "presence_penalty": 0.1, "frequency_penalty": -0.3, "stop": []any{"END"},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "strict": true, "schema": map[string]any{"type": "object"}}}} {
		if !reflect.DeepEqual(body[k], want) {
			t.Errorf("%s = %v, want %v", k, body[k], want)
		}
	}
}

// Unknown or mistyped options are refused before any request, naming them.
func TestUnknownOptionsAreRefused(t *testing.T) {
	t.Parallel()
	p, f := setup(t, &fakeOpenAI{})
	c := plugintest.InProcessProvider(t, p)
	for opts, want := range map[*map[string]any]string{
		{"topP": 0.5, "bogus": 1.0}: "unknown options: bogus, topP",
		{"top_p": 3.0}:              "options.top_p",
		{"seed": 1.5}:               "options.seed",
		{"response_format": "xml"}:  "options.response_format",
	} {
		_, err := c.GenerateText(t.Context(), sdk.TextRequest{Model: "gpt-5-mini", Prompt: "hi", Options: *opts})
		var se *sdk.Error
		if !errors.As(err, &se) || se.Code != sdk.CodeInvalidArgument || !strings.Contains(se.Message, want) {
			t.Errorf("options %v: %v, want invalid argument naming %q", *opts, err, want)
		}
	}
	if len(f.bodies) != 0 {
		t.Fatalf("%d requests were sent for refused options", len(f.bodies))
	}
}
