package apiconv

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
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

// NonNil is s, or an empty list for nil (a list is [] in the API, never null).
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

var fromJSON = protojson.UnmarshalOptions{DiscardUnknown: true}

// ViaJSON converts a domain value to its proto message through the JSON
// names both share, so the domain types stay the single definition.
func ViaJSON(v any, m proto.Message) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	if err := fromJSON.Unmarshal(b, m); err != nil {
		return fmt.Errorf("convert %T: %w", v, err)
	}
	return nil
}

// ListOf converts a domain list to a google.protobuf.ListValue (ViaJSON).
func ListOf(v any) (*structpb.ListValue, error) {
	l := &structpb.ListValue{}
	return l, ViaJSON(v, l)
}
