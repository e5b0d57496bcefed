package api

import (
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apierr"
	"github.com/heraldhq/herald/host/internal/rule"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// Bounds of free-form JSON (google.protobuf.Struct fields such as
// contentToExport and options), checked at the edge on both faces: deeper
// or larger objects are a client's mistake (400), not something to carry
// to a plugin or the queue, whose decoders would fail later with a 5xx.
const (
	maxJSONDepth     = 32
	maxFreeFormBytes = 256 << 10
)

var (
	structName    = (&structpb.Struct{}).ProtoReflect().Descriptor().FullName()
	valueName     = (&structpb.Value{}).ProtoReflect().Descriptor().FullName()
	listValueName = (&structpb.ListValue{}).ProtoReflect().Descriptor().FullName()
)

// checkRequest applies the edge's checks of a decoded request on both
// faces: free-form bounds, NUL bytes, then the rules declared on the
// request's fields.
func checkRequest(msg proto.Message) error {
	if err := checkEdge(msg); err != nil {
		return err
	}
	return rule.Check(msg)
}

// checkEdge is the free-form fields' depth, size and NUL checks.
func checkEdge(msg proto.Message) error {
	if err := walkFreeForm(msg.ProtoReflect(), ""); err != nil {
		return err
	}
	return checkNUL(msg)
}

func walkFreeForm(m protoreflect.Message, prefix string) error {
	if !planOf(m.Descriptor()).nested {
		return nil // only scalars: nothing free-form (API messages have no extensions)
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		name := prefix + fd.JSONName()
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = checkField(l.Get(i).Message(), name)
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					err = checkField(mv.Message(), name)
					return err == nil
				})
			}
		default:
			err = checkField(v.Message(), name)
		}
		return err == nil
	})
	return err
}

func checkField(m protoreflect.Message, name string) error {
	switch m.Descriptor().FullName() {
	case structName, valueName, listValueName:
		if d := freeFormDepth(m); d > maxJSONDepth {
			return apierr.Invalid("field %s is nested deeper than %d levels", name, maxJSONDepth)
		}
		if n := proto.Size(m.Interface()); n > maxFreeFormBytes {
			return apierr.Invalid("field %s is larger than %d bytes", name, maxFreeFormBytes)
		}
		return nil
	}
	return walkFreeForm(m, name+".")
}

// freeFormDepth counts the objects and arrays on the deepest path of a
// Struct, Value or ListValue; it stops counting past the limit.
func freeFormDepth(m protoreflect.Message) int {
	var deepest func(v *structpb.Value, depth int) int
	deepest = func(v *structpb.Value, depth int) int {
		if depth > maxJSONDepth {
			return depth
		}
		max := depth
		switch k := v.GetKind().(type) {
		case *structpb.Value_StructValue:
			for _, f := range k.StructValue.GetFields() {
				if d := deepest(f, depth+1); d > max {
					max = d
				}
			}
			if depth+1 > max {
				max = depth + 1
			}
		case *structpb.Value_ListValue:
			for _, e := range k.ListValue.GetValues() {
				if d := deepest(e, depth+1); d > max {
					max = d
				}
			}
			if depth+1 > max {
				max = depth + 1
			}
		}
		return max
	}
	switch x := m.Interface().(type) {
	case *structpb.Struct:
		return deepest(structpb.NewStructValue(x), 0)
	case *structpb.ListValue:
		return deepest(structpb.NewListValue(x), 0)
	case *structpb.Value:
		return deepest(x, 0)
	}
	return 0
}

// jsonDepthExceeds reports whether raw JSON nests objects and arrays deeper
// than max, without decoding it, so the REST face refuses such bodies before
// protojson recurses into them. field is the top-level key under which the
// limit was passed: the last string met at depth 1 before descending.
func jsonDepthExceeds(raw []byte, max int) (field string, exceeded bool) {
	depth, inString, escaped, start := 0, false, false, 0
	for i, c := range raw {
		switch {
		case inString:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
				if depth == 1 {
					field = string(raw[start:i])
				}
			}
		case c == '"':
			inString, start = true, i+1
		case c == '{' || c == '[':
			depth++
			if depth > max {
				return field, true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return "", false
}

// strippedNUL are the requests whose area strips NUL bytes instead of
// refusing them: beacons come from browsers on pages we do not control,
// and one odd title must not cost the visit.
var strippedNUL = map[protoreflect.FullName]bool{
	(&apiv1.CollectRequest{}).ProtoReflect().Descriptor().FullName(): true,
}

// checkNUL refuses a NUL byte in any string of msg, free-form objects
// included, naming the field: PostgreSQL and CockroachDB cannot store it in
// TEXT, and what one store refuses no store accepts.
func checkNUL(msg proto.Message) error {
	m := msg.ProtoReflect()
	if strippedNUL[m.Descriptor().FullName()] {
		return nil
	}
	if field := nulField(m, ""); field != "" {
		return apierr.Invalid("field %s must not contain NUL (\\u0000) characters", field)
	}
	return nil
}

// nulField returns the JSON path of the first string holding a NUL byte.
func nulField(m protoreflect.Message, prefix string) (field string) {
	switch x := m.Interface().(type) {
	case *structpb.Struct:
		for k, v := range x.GetFields() {
			if strings.IndexByte(k, 0) >= 0 {
				return strings.TrimSuffix(prefix, ".")
			}
			if f := nulField(v.ProtoReflect(), prefix+k+"."); f != "" {
				return f
			}
		}
		return ""
	case *structpb.Value:
		switch k := x.GetKind().(type) {
		case *structpb.Value_StringValue:
			if strings.IndexByte(k.StringValue, 0) >= 0 {
				return strings.TrimSuffix(prefix, ".")
			}
		case *structpb.Value_StructValue:
			return nulField(k.StructValue.ProtoReflect(), prefix)
		case *structpb.Value_ListValue:
			return nulField(k.ListValue.ProtoReflect(), prefix)
		}
		return ""
	case *structpb.ListValue:
		for _, v := range x.GetValues() {
			if f := nulField(v.ProtoReflect(), prefix); f != "" {
				return f
			}
		}
		return ""
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := prefix + fd.JSONName()
		hasNUL := func(v protoreflect.Value) bool {
			switch fd.Kind() {
			case protoreflect.StringKind:
				return strings.IndexByte(v.String(), 0) >= 0
			case protoreflect.MessageKind, protoreflect.GroupKind:
				if f := nulField(v.Message(), name+"."); f != "" {
					field = f
				}
			}
			return false
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && field == ""; i++ {
				if hasNUL(l.Get(i)) {
					field = name
				}
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if strings.IndexByte(k.String(), 0) >= 0 {
					field = name
				} else if fd.MapValue().Kind() == protoreflect.StringKind && strings.IndexByte(mv.String(), 0) >= 0 {
					field = name
				} else if fd.MapValue().Kind() == protoreflect.MessageKind {
					if f := nulField(mv.Message(), name+"."); f != "" {
						field = f
					}
				}
				return field == ""
			})
		default:
			if hasNUL(v) {
				field = name
			}
		}
		return field == ""
	})
	return field
}
