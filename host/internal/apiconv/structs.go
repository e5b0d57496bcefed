package apiconv

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"
)

// Struct converts a JSON object to a google.protobuf.Struct. Any
// JSON-shaped Go value is accepted: structpb.NewStruct takes only the
// generic forms (map[string]any, []any, float64, string, bool, nil), so a
// map that holds typed values ([]string, map[string]string, a struct with
// json tags, *float64) goes through encoding/json first. It is the rule
// the plugin SDK applies to every option map that crosses into a plugin;
// the host follows it wherever it builds a Struct (history points, error
// fields, posts, tool arguments), so no typed value is dropped or refused
// on one face and not the other. A value JSON cannot hold (a channel, a
// function, NaN) is an error.
func Struct(m map[string]any) (*structpb.Struct, error) {
	if m == nil {
		return nil, nil
	}
	if s, err := structpb.NewStruct(m); err == nil {
		return s, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	s, err := structpb.NewStruct(generic)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	return s, nil
}
