package openai

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/heraldhq/herald/sdk"
)

// SupportedOptions are the request options this plugin passes to chat
// completions (OpenAI's names); any other key is refused so that a typo
// does not silently change nothing.
var SupportedOptions = []string{"frequency_penalty", "presence_penalty", "response_format", "seed", "stop", "top_p", "web_search"}

// applyOptions sets the supported options on params, checking their types.
func applyOptions(params *oai.ChatCompletionNewParams, opts map[string]any) error {
	var unknown []string
	for k := range opts {
		if !slices.Contains(SupportedOptions, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return sdk.Errorf(sdk.CodeInvalidArgument, "openai: unknown options: %s (supported: %s)", strings.Join(unknown, ", "), strings.Join(SupportedOptions, ", "))
	}
	bad := func(k, want string) error {
		return sdk.Errorf(sdk.CodeInvalidArgument, "openai: options.%s must be %s", k, want)
	}
	num := func(k string, lo, hi float64) (float64, bool, error) {
		v, ok := opts[k]
		if !ok {
			return 0, false, nil
		}
		f, isNum := v.(float64)
		if !isNum || f < lo || f > hi {
			return 0, false, bad(k, fmt.Sprintf("a number from %g to %g", lo, hi))
		}
		return f, true, nil
	}
	if f, ok, err := num("top_p", 0, 1); err != nil {
		return err
	} else if ok {
		params.TopP = oai.Float(f)
	}
	for _, k := range []string{"presence_penalty", "frequency_penalty"} {
		f, ok, err := num(k, -2, 2)
		if err != nil {
			return err
		}
		if ok && k == "presence_penalty" {
			params.PresencePenalty = oai.Float(f)
		} else if ok {
			params.FrequencyPenalty = oai.Float(f)
		}
	}
	if f, ok, err := num("seed", math.MinInt32, math.MaxInt64); err != nil {
		return err
	} else if ok {
		if f != math.Trunc(f) {
			return bad("seed", "an integer")
		}
		params.Seed = oai.Int(int64(f))
	}
	if v, ok := opts["stop"]; ok {
		switch s := v.(type) {
		case string:
			params.Stop.OfString = oai.String(s)
		case []any:
			var list []string
			for _, e := range s {
				str, isStr := e.(string)
				if !isStr {
					return bad("stop", "a string or a list of up to 4 strings")
				}
				list = append(list, str)
			}
			if len(list) == 0 || len(list) > 4 {
				return bad("stop", "a string or a list of up to 4 strings")
			}
			params.Stop.OfStringArray = list
		default:
			return bad("stop", "a string or a list of up to 4 strings")
		}
	}
	if v, ok := opts["response_format"]; ok {
		rf, err := responseFormat(v)
		if err != nil {
			return err
		}
		params.ResponseFormat = rf
	}
	return nil
}

// responseFormat reads "text", "json_object", {"type": ...} or
// {"type":"json_schema","json_schema":{"name","schema","strict"?,"description"?}}.
func responseFormat(v any) (oai.ChatCompletionNewParamsResponseFormatUnion, error) {
	var out oai.ChatCompletionNewParamsResponseFormatUnion
	const want = `"text", "json_object" or {"type":"json_schema","json_schema":{"name":...,"schema":{...}}}`
	m, isMap := v.(map[string]any)
	typ, _ := v.(string)
	if isMap {
		typ, _ = m["type"].(string)
	}
	switch typ {
	case "text":
		out.OfText = &shared.ResponseFormatTextParam{}
	case "json_object":
		out.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	case "json_schema":
		js, _ := m["json_schema"].(map[string]any)
		name, _ := js["name"].(string)
		if name == "" || js["schema"] == nil {
			return out, sdk.Errorf(sdk.CodeInvalidArgument, "openai: options.response_format.json_schema needs name and schema")
		}
		p := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: js["schema"]}
		if strict, ok := js["strict"].(bool); ok {
			p.Strict = oai.Bool(strict)
		}
		if d, ok := js["description"].(string); ok {
			p.Description = oai.String(d)
		}
		out.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: p}
	default:
		return out, sdk.Errorf(sdk.CodeInvalidArgument, "openai: options.response_format must be %s", want)
	}
	return out, nil
}
