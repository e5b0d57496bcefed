package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// The fast path's argument check. The SDK validates a tool's arguments
// against the JSON schema it derives from the input type (jsonschema-go:
// every field without omitempty is required, no other properties, int32
// within its range) and then decodes them, case-sensitively, into the
// type. The fast path takes only arguments it can tell are valid with a
// check stricter than that schema, so that decoding them gives the same
// value on both paths; anything else (a wrong type, a missing or unknown
// property, null, a number written 1.0) goes to the SDK, which answers
// with its own error.

// argKind is the JSON the fast path accepts for a field.
type argKind int

const (
	argString  argKind = iota // a JSON string
	argBool                   // true or false
	argInt32                  // an integer literal in int32's range
	argStrings                // an array of strings
)

type argField struct {
	kind     argKind
	required bool
}

// argShape is an input type's properties by JSON name.
type argShape map[string]argField

// shapeOf is the shape of the input struct t; false when a field is of a
// kind the fast path does not check (the tool then stays on the SDK path).
func shapeOf(t reflect.Type) (argShape, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	shape := argShape{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			return nil, false
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		optional := false
		for _, o := range strings.Split(opts, ",") {
			optional = optional || o == "omitempty" || o == "omitzero"
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		var k argKind
		switch {
		case ft.Kind() == reflect.String:
			k = argString
		case ft.Kind() == reflect.Bool:
			k = argBool
		case ft.Kind() == reflect.Int32:
			k = argInt32
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String && f.Type.Kind() != reflect.Pointer:
			k = argStrings
		default:
			return nil, false
		}
		shape[name] = argField{kind: k, required: !optional}
	}
	return shape, true
}

// decodeArgs decodes args (a JSON object, or nil for none) into In when
// every property is one of the shape's, of its kind, and every required one
// is there; false otherwise.
func decodeArgs[In any](shape argShape, args []byte) (In, bool) {
	var in In
	var props map[string]json.RawMessage
	if args != nil {
		if err := json.Unmarshal(args, &props); err != nil || props == nil {
			return in, false
		}
	}
	for name, f := range shape {
		if _, ok := props[name]; f.required && !ok {
			return in, false
		}
	}
	for name, raw := range props {
		f, ok := shape[name]
		if !ok || !validArg(f.kind, raw) {
			return in, false
		}
	}
	if len(props) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return in, false
		}
	}
	return in, true
}

func validArg(k argKind, raw json.RawMessage) bool {
	switch k {
	case argString:
		return isString(raw)
	case argBool:
		return string(raw) == "true" || string(raw) == "false"
	case argInt32:
		return isInt32(raw)
	case argStrings:
		var items []json.RawMessage
		if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
			return false
		}
		for _, it := range items {
			if !isString(it) {
				return false
			}
		}
		return true
	}
	return false
}

func isString(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
}

// isInt32 accepts the JSON integer literals in int32's range (no fraction,
// no exponent, no leading zeros).
func isInt32(raw json.RawMessage) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 || len(digits) > 10 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.ParseInt(string(raw), 10, 32)
	return err == nil
}
