package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/heraldhq/herald/host/internal/rule"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// schemaName is the component name of a message: its name inside
// herald.api.v1 (nested messages keep their dot: Parent.Child).
func schemaName(md protoreflect.MessageDescriptor) string {
	return strings.TrimPrefix(string(md.FullName()), string(md.ParentFile().Package())+".")
}

func wellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}

// responseRef is the schema of md as the REST adapter writes it: every
// field present (oneof members only when set), nothing else.
func (g *generator) responseRef(md protoreflect.MessageDescriptor) obj {
	if wellKnown(md) {
		return wellKnownSchema(md)
	}
	name := schemaName(md)
	if _, done := g.schemas[name]; done {
		return ref(name)
	}
	s := obj{"type": "object", "additionalProperties": false}
	g.schemas[name] = s
	if c := comment(md); c != "" {
		s["description"] = c
	}
	props := obj{}
	required := []string{}
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		oneof := fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic()
		var fs obj
		switch {
		case fd.IsList():
			fs = obj{"type": "array", "items": g.valueSchema(fd, g.responseRef)}
		case fd.IsMap():
			fs = obj{"type": "object", "additionalProperties": g.valueSchema(fd.MapValue(), g.responseRef)}
		case structValues[fd.FullName()] != nil:
			fs = obj{"type": "object", "additionalProperties": structValues[fd.FullName()]}
		case fd.HasPresence() && !oneof:
			fs = nullable(g.valueSchema(fd, g.responseRef))
		default:
			fs = g.valueSchema(fd, g.responseRef)
		}
		props[fd.JSONName()] = describe(fs, fd)
		if !oneof {
			required = append(required, fd.JSONName())
		}
	}
	s["properties"] = props
	s["required"] = required
	return ref(name)
}

// requestRef is the schema of a request body: protojson decoding, so every
// field is optional, null means unset and unknown fields are ignored.
// Fields bound from the path are left out of the body.
func (g *generator) requestRef(md protoreflect.MessageDescriptor, inPath map[string]bool) obj {
	if wellKnown(md) {
		return wellKnownSchema(md)
	}
	name := schemaName(md)
	if g.responseSide[md.FullName()] {
		name += "Input"
	}
	if _, done := g.schemas[name]; done {
		return ref(name)
	}
	s := obj{"type": "object"}
	g.schemas[name] = s
	if c := comment(md); c != "" {
		s["description"] = c
	}
	props := obj{}
	required := []string{}
	nested := func(m protoreflect.MessageDescriptor) obj { return g.requestRef(m, nil) }
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		if inPath[fd.JSONName()] {
			continue
		}
		var fs obj
		switch {
		case fd.IsList():
			fs = obj{"type": "array", "items": g.valueSchema(fd, nested)}
		case fd.IsMap():
			fs = obj{"type": "object", "additionalProperties": g.valueSchema(fd.MapValue(), nested)}
		default:
			fs = g.valueSchema(fd, nested)
		}
		r := rule.Of(fd)
		fs = withRule(fs, fd, r)
		if r.GetRequired() {
			required = append(required, fd.JSONName())
			props[fd.JSONName()] = describe(fs, fd)
			continue
		}
		props[fd.JSONName()] = describe(nullable(fs), fd)
	}
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
	return ref(name)
}

// withRule adds the field's declared rule (package rule, the one the
// server checks) to its schema s.
func withRule(s obj, fd protoreflect.FieldDescriptor, r *apiv1.Rule) obj {
	if r == nil {
		return s
	}
	c := obj{}
	for k, v := range s {
		c[k] = v
	}
	target := c
	if fd.IsList() {
		if r.Required {
			c["minItems"] = 1
		}
		if r.MaxItems != nil {
			c["maxItems"] = r.GetMaxItems()
		}
		withItems(c, r)
		return c
	}
	if fd.Message() != nil && fd.Message().FullName() == "google.protobuf.ListValue" {
		if r.Required {
			c["minItems"] = 1
		}
		if r.MaxItems != nil {
			c["maxItems"] = r.GetMaxItems()
		}
		if r.MaxItemLen != nil || r.ItemsNotBlank {
			c["items"] = obj{}
			withItems(c, r)
		}
		return c
	}
	if len(r.OneOf) > 0 {
		target["enum"] = slices.Clone(r.OneOf)
	}
	minLen := r.MinLen
	if r.Required && fd.Kind() == protoreflect.StringKind && minLen == nil {
		one := uint32(1)
		minLen = &one
	}
	if minLen != nil && len(r.OneOf) == 0 {
		target["minLength"] = *minLen
	}
	if r.MaxLen != nil && len(r.OneOf) == 0 {
		target["maxLength"] = r.GetMaxLen()
	}
	if (r.Required || r.NotBlank) && fd.Kind() == protoreflect.StringKind && len(r.OneOf) == 0 && len(r.Prefix) == 0 && r.Pattern == "" {
		target["pattern"] = `\S`
	}
	if r.Pattern != "" {
		target["pattern"] = r.Pattern
	}
	if len(r.Prefix) > 0 {
		var alts []string
		for _, p := range r.Prefix {
			alts = append(alts, regexp.QuoteMeta(p))
		}
		target["pattern"] = "^($|" + strings.Join(alts, "|") + ")"
	}
	if r.Https {
		// Not http:// (nor another scheme): a URL with https:// or a
		// bare host name. Written without look-ahead, which JSON Schema
		// validators in Go and JavaScript alike accept.
		target["pattern"] = notHTTP
	}
	if r.Min != nil {
		target["minimum"] = r.GetMin()
	}
	if r.Max != nil {
		target["maximum"] = r.GetMax()
	}
	if r.Example != "" {
		target["examples"] = []any{exampleValue(fd, r.Example)}
	}
	return c
}

// withItems adds the rule's element constraints to the items schema of
// the list schema c (maxLength of string elements, not blank).
func withItems(c obj, r *apiv1.Rule) {
	if r.MaxItemLen == nil && !r.ItemsNotBlank {
		return
	}
	items := obj{}
	if old, ok := c["items"].(obj); ok {
		for k, v := range old {
			items[k] = v
		}
	}
	if r.MaxItemLen != nil {
		items["maxLength"] = r.GetMaxItemLen()
	}
	if r.ItemsNotBlank {
		items["pattern"] = `\S`
	}
	c["items"] = items
}

// notHTTP matches strings that do not start with http:// in any case.
const notHTTP = `^($|[^Hh]|[Hh]($|[^Tt])|[Hh][Tt]($|[^Tt])|[Hh][Tt][Tt]($|[^Pp])|[Hh][Tt][Tt][Pp]($|[^:Ss])|[Hh][Tt][Tt][Pp]:($|[^/])|[Hh][Tt][Tt][Pp]:/($|[^/])|[Hh][Tt][Tt][Pp][Ss])`

// exampleValue is a rule's example as the field's JSON type.
func exampleValue(fd protoreflect.FieldDescriptor, v string) any {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.EnumKind, protoreflect.MessageKind:
		return v
	case protoreflect.BoolKind:
		return v == "true"
	}
	var n json.Number = json.Number(v)
	return n
}

// valueSchema is the schema of one value of fd (an element for lists).
func (g *generator) valueSchema(fd protoreflect.FieldDescriptor, msg func(protoreflect.MessageDescriptor) obj) obj {
	if u := unionOf(fd); u != nil {
		return obj{"anyOf": []obj{{"type": "string"}, msg(u)}}
	}
	if fd.Message() != nil {
		return msg(fd.Message())
	}
	return g.scalar(fd)
}

func (g *generator) scalar(fd protoreflect.FieldDescriptor) obj {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return obj{"type": "boolean"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return obj{"type": "integer", "format": "int32"}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return obj{"type": "integer", "format": "int64"}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return obj{"type": "integer", "format": "int32", "minimum": 0}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return obj{"type": "integer", "format": "int64", "minimum": 0}
	case protoreflect.FloatKind:
		return obj{"type": "number", "format": "float"}
	case protoreflect.DoubleKind:
		return obj{"type": "number", "format": "double"}
	case protoreflect.BytesKind:
		return obj{"type": "string", "contentEncoding": "base64"}
	case protoreflect.EnumKind:
		var names []string
		vals := fd.Enum().Values()
		for i := 0; i < vals.Len(); i++ {
			names = append(names, string(vals.Get(i).Name()))
		}
		return obj{"type": "string", "enum": names}
	}
	return obj{"type": "string"}
}

// unionOf is the message a google.protobuf.Value field carries besides a
// plain string: a field named competitors holds a string or a Competitor
// object (the visibility inputs), documented as that union rather than as
// any value.
func unionOf(fd protoreflect.FieldDescriptor) protoreflect.MessageDescriptor {
	if fd.Message() == nil || fd.Message().FullName() != "google.protobuf.Value" || fd.Name() != "competitors" {
		return nil
	}
	return fd.ParentFile().Messages().ByName("Competitor")
}

func wellKnownSchema(md protoreflect.MessageDescriptor) obj {
	switch md.Name() {
	case "Timestamp":
		return obj{"type": "string", "format": "date-time"}
	case "Struct":
		return obj{"type": "object"}
	case "ListValue":
		return obj{"type": "array"}
	case "Value":
		return obj{}
	case "StringValue":
		return obj{"type": "string"}
	case "Int64Value", "Int32Value":
		return obj{"type": "integer"}
	case "BoolValue":
		return obj{"type": "boolean"}
	case "DoubleValue":
		return obj{"type": "number"}
	}
	return obj{"type": "object"}
}

// structValues are the response fields typed google.protobuf.Struct whose
// values all have one type, which the proto cannot say: always an object
// (never null), each value as given. The scores' providers map every
// engine the report asked to a number, or to null when it gave no answer.
var structValues = map[protoreflect.FullName]obj{
	"herald.api.v1.AIVisibilityScore.providers":        {"type": []string{"number", "null"}},
	"herald.api.v1.EntityUnderstandingScore.providers": {"type": []string{"number", "null"}},
}

// nullable lets s be null as well.
func nullable(s obj) obj {
	if len(s) == 0 {
		return s // any value, null included
	}
	if t, ok := s["type"].(string); ok && s["$ref"] == nil {
		c := obj{}
		for k, v := range s {
			c[k] = v
		}
		c["type"] = []string{t, "null"}
		if e, ok := c["enum"].([]string); ok {
			vals := make([]any, 0, len(e)+1)
			for _, v := range e {
				vals = append(vals, v)
			}
			c["enum"] = append(vals, nil)
		}
		return c
	}
	return obj{"anyOf": []obj{s, {"type": "null"}}}
}

func describe(s obj, fd protoreflect.FieldDescriptor) obj {
	c := comment(fd)
	if c == "" {
		return s
	}
	if _, isRef := s["$ref"]; isRef {
		// OpenAPI 3.1 allows siblings of $ref; keep the ref itself clean.
		return obj{"allOf": []obj{s}, "description": c}
	}
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	out["description"] = c
	return out
}
