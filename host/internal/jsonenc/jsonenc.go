// Package jsonenc renders proto messages as the API's JSON (the API's documented
// shapes). The REST face writes every response with it and the MCP face
// every tool result, so a tool's result reads as the body of the route
// behind it.
package jsonenc

import (
	"encoding/base64"
	"math"
	"sort"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Marshal renders a response message the way the API documents JSON (docs/API.md), which
// protojson cannot: 64-bit integers as numbers (epoch milliseconds, counts),
// every field present, unset optional and message fields as null. Field
// names are the proto JSON names (camelCase, or json_name such as "_id").
// Well-known types render as protojson renders them.
func Marshal(m proto.Message) []byte {
	return Append(make([]byte, 0, 512), m)
}

// Append appends Marshal's rendering of m to b: a caller that writes the
// JSON out at once can render into a buffer it reuses.
func Append(b []byte, m proto.Message) []byte {
	return appendMessage(b, m.ProtoReflect())
}

// fieldPlan is what encoding one field needs, worked out once per message
// type: the JSON key already quoted, and how to treat an unset value.
type fieldPlan struct {
	fd       protoreflect.FieldDescriptor
	key      []byte // "jsonName":
	oneof    bool   // member of a real oneof: omitted when unset
	presence bool   // unset renders as null
	list     bool
	isMap    bool
}

var plans sync.Map // protoreflect.FullName → []fieldPlan

func planOf(md protoreflect.MessageDescriptor) []fieldPlan {
	if p, ok := plans.Load(md.FullName()); ok {
		return p.([]fieldPlan)
	}
	fields := md.Fields()
	p := make([]fieldPlan, fields.Len())
	for i := range p {
		fd := fields.Get(i)
		od := fd.ContainingOneof()
		p[i] = fieldPlan{
			fd:       fd,
			key:      append(AppendString(nil, fd.JSONName()), ':'),
			oneof:    od != nil && !od.IsSynthetic(),
			presence: fd.HasPresence(),
			list:     fd.IsList(),
			isMap:    fd.IsMap(),
		}
	}
	plans.Store(md.FullName(), p)
	return p
}

func appendMessage(b []byte, m protoreflect.Message) []byte {
	if ts, ok := m.Interface().(*timestamppb.Timestamp); ok {
		b = append(b, '"')
		b = ts.AsTime().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		return append(b, '"')
	}
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Struct":
		return appendMap(b, m.Get(md.Fields().ByName("fields")).Map(), md.Fields().ByName("fields"))
	case "google.protobuf.ListValue":
		return appendList(b, m.Get(md.Fields().ByName("values")).List(), md.Fields().ByName("values"))
	case "google.protobuf.Value":
		od := md.Oneofs().ByName("kind")
		fd := m.WhichOneof(od)
		if fd == nil {
			return append(b, "null"...)
		}
		if fd.Name() == "null_value" {
			return append(b, "null"...)
		}
		return appendSingular(b, m.Get(fd), fd)
	case "google.protobuf.StringValue", "google.protobuf.Int64Value", "google.protobuf.Int32Value",
		"google.protobuf.BoolValue", "google.protobuf.DoubleValue":
		fd := md.Fields().ByName("value")
		return appendSingular(b, m.Get(fd), fd)
	}
	b = append(b, '{')
	first := true
	for _, f := range planOf(md) {
		if f.oneof && !m.Has(f.fd) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		switch {
		case f.list:
			b = appendList(b, m.Get(f.fd).List(), f.fd)
		case f.isMap:
			b = appendMap(b, m.Get(f.fd).Map(), f.fd)
		case f.presence && !m.Has(f.fd):
			b = append(b, "null"...)
		default:
			b = appendSingular(b, m.Get(f.fd), f.fd)
		}
	}
	return append(b, '}')
}

func appendList(b []byte, l protoreflect.List, fd protoreflect.FieldDescriptor) []byte {
	b = append(b, '[')
	for i := 0; i < l.Len(); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSingular(b, l.Get(i), fd)
	}
	return append(b, ']')
}

func appendMap(b []byte, mp protoreflect.Map, fd protoreflect.FieldDescriptor) []byte {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k.String())
		b = append(b, ':')
		b = appendSingular(b, mp.Get(k), fd.MapValue())
	}
	return append(b, '}')
}

func appendSingular(b []byte, v protoreflect.Value, fd protoreflect.FieldDescriptor) []byte {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return strconv.AppendInt(b, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.AppendUint(b, v.Uint(), 10)
	case protoreflect.FloatKind:
		return appendFloat(b, v.Float(), 32)
	case protoreflect.DoubleKind:
		return appendFloat(b, v.Float(), 64)
	case protoreflect.StringKind:
		return AppendString(b, v.String())
	case protoreflect.BytesKind:
		return AppendString(b, base64.StdEncoding.EncodeToString(v.Bytes()))
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return append(b, "null"...)
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return AppendString(b, string(ev.Name()))
		}
		return strconv.AppendInt(b, int64(v.Enum()), 10)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return appendMessage(b, v.Message())
	}
	return append(b, "null"...)
}

// appendFloat formats like encoding/json: integers without a fraction,
// exponents only for very large or small magnitudes, NaN and Inf as null.
func appendFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, bits)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping what JSON requires and
// replacing invalid UTF-8.
// AppendString appends s to b as a JSON string, escaped the way every
// string of Marshal is.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
