package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// fieldTypeError names the first field of a JSON object body whose JSON
// type the request message cannot take (a string where a list is expected,
// an object where a string is), as "field competitors must be an array,
// got \"Globex\"". protojson reports such bodies as an "unexpected token"
// syntax error that names no field, so the REST face asks this first when
// decoding fails. It returns "" when body is not valid JSON or when every
// field it knows has an acceptable type (the decoder's own message then
// stands). Fields the message does not have are ignored, as the decoder
// discards them.
func fieldTypeError(body []byte, md protoreflect.MessageDescriptor) string {
	if !json.Valid(body) {
		return ""
	}
	return objectTypeError(body, md, "")
}

func objectTypeError(raw []byte, md protoreflect.MessageDescriptor, prefix string) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return ""
	}
	// Map order is random: report the field that comes first in the message.
	all := md.Fields()
	for i := 0; i < all.Len(); i++ {
		fd := all.Get(i)
		v, ok := fields[fd.JSONName()]
		if !ok {
			if v, ok = fields[string(fd.Name())]; !ok {
				continue
			}
		}
		if msg := fieldValueError(fd, v, prefix+fd.JSONName()); msg != "" {
			return msg
		}
	}
	return ""
}

// fieldValueError checks one field's value: lists and maps as a whole,
// then each element.
func fieldValueError(fd protoreflect.FieldDescriptor, raw json.RawMessage, name string) string {
	raw = bytes.TrimSpace(raw)
	if jsonKind(raw) == "null" {
		return ""
	}
	switch {
	case fd.IsList():
		var elems []json.RawMessage
		if jsonKind(raw) != "array" || json.Unmarshal(raw, &elems) != nil {
			return mismatch(name, "an array", raw)
		}
		for i, e := range elems {
			if msg := valueError(fd, bytes.TrimSpace(e), name+"["+strconv.Itoa(i)+"]"); msg != "" {
				return msg
			}
		}
		return ""
	case fd.IsMap():
		var entries map[string]json.RawMessage
		if jsonKind(raw) != "object" || json.Unmarshal(raw, &entries) != nil {
			return mismatch(name, "an object", raw)
		}
		for k, e := range entries {
			if msg := valueError(fd.MapValue(), bytes.TrimSpace(e), name+"."+k); msg != "" {
				return msg
			}
		}
		return ""
	}
	return valueError(fd, raw, name)
}

// valueError checks a single value against the field's kind, the way
// protojson reads it: numbers may be quoted, enums may be names or numbers,
// well-known types have their own JSON forms.
func valueError(fd protoreflect.FieldDescriptor, raw json.RawMessage, name string) string {
	kind := jsonKind(raw)
	if kind == "null" {
		return ""
	}
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind:
		if kind != "string" {
			return mismatch(name, "a string", raw)
		}
	case protoreflect.BoolKind:
		if kind != "boolean" {
			return mismatch(name, "a boolean", raw)
		}
	case protoreflect.EnumKind:
		if kind != "string" && kind != "number" {
			return mismatch(name, "a string", raw)
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return messageValueError(fd.Message(), raw, kind, name)
	default: // integers and floating point
		if kind != "number" && kind != "string" {
			return mismatch(name, "a number", raw)
		}
	}
	return ""
}

func messageValueError(md protoreflect.MessageDescriptor, raw json.RawMessage, kind, name string) string {
	switch md.FullName() {
	case valueName:
		return ""
	case structName, "google.protobuf.Any", "google.protobuf.Empty":
		if kind != "object" {
			return mismatch(name, "an object", raw)
		}
		return ""
	case listValueName:
		if kind != "array" {
			return mismatch(name, "an array", raw)
		}
		return ""
	case "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask":
		if kind != "string" {
			return mismatch(name, "a string", raw)
		}
		return ""
	}
	if md.ParentFile() != nil && md.ParentFile().Package() == "google.protobuf" {
		return "" // wrappers: the scalar they wrap; protojson checks it
	}
	if kind != "object" {
		return mismatch(name, "an object", raw)
	}
	return objectTypeError(raw, md, name+".")
}

// jsonKind names the JSON type of a valid JSON value by its first byte.
func jsonKind(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// mismatch is the 400 message: the field, the type it takes and what came,
// quoted for scalars (cut at 40 bytes) and named for objects and arrays.
func mismatch(name, want string, raw []byte) string {
	got := string(raw)
	switch jsonKind(raw) {
	case "object":
		got = "an object"
	case "array":
		got = "an array"
	default:
		if len(got) > 40 {
			got = got[:40] + "…"
		}
	}
	return fmt.Sprintf("field %s must be %s, got %s", name, want, got)
}
