package sdk

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
)

// The options and schemas the host sends hold typed Go values: a JSON-schema
// response_format carries []string under "required" and "enum". Every
// JSON-shaped value must cross the plugin boundary as the JSON it stands for.
func TestJSONShapedOptionsCrossTheBoundary(t *testing.T) {
	type probe struct {
		Name  string   `json:"name"`
		Kinds []string `json:"kinds,omitempty"`
	}
	opts := map[string]any{
		"response_format": map[string]any{
			"type": "json_schema",
			"json_schema": map[string]any{
				"name":   "sentiment",
				"strict": true,
				"schema": map[string]any{
					"type":     "object",
					"required": []string{"label", "score"},
					"properties": map[string]any{
						"label": map[string]any{"type": "string", "enum": []string{"negative", "neutral", "positive"}},
						"score": map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
					},
				},
			},
		},
		"stop":    []string{"\n\n"},
		"headers": map[string]string{"x": "y"},
		"ints":    []int{1, 2},
		"probe":   probe{Name: "p", Kinds: []string{"a"}},
		"seed":    int64(7),
	}
	s, err := structToProto(opts)
	if err != nil {
		t.Fatalf("structToProto: %v", err)
	}
	got, _ := protojson.Marshal(s)
	for _, want := range []string{`"required":["label","score"]`, `"enum":["negative","neutral","positive"]`, `"stop":["\n\n"]`, `"headers":{"x":"y"}`, `"ints":[1,2]`, `"probe":{"kinds":["a"],"name":"p"}`, `"seed":7`} {
		if !strings.Contains(strings.ReplaceAll(string(got), " ", ""), want) {
			t.Errorf("converted options lack %s: %s", want, got)
		}
	}
	back := structFromProto(s)
	schema := back["response_format"].(map[string]any)["json_schema"].(map[string]any)["schema"].(map[string]any)
	if req, ok := schema["required"].([]any); !ok || len(req) != 2 || req[0] != "label" {
		t.Errorf("required came back as %#v", schema["required"])
	}
}

func TestValuesJSONCannotHoldAreRefused(t *testing.T) {
	for name, v := range map[string]any{"channel": make(chan int), "function": func() {}} {
		if _, err := structToProto(map[string]any{"x": v}); err == nil || ErrorCode(err) != CodeInvalidArgument {
			t.Errorf("%s: err %v, want invalid argument", name, err)
		}
	}
}
