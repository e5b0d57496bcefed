package api

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/host/internal/apierr"
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

// checkFreeForm walks msg and refuses any free-form field nested deeper
// than maxJSONDepth or larger than maxFreeFormBytes, naming the field.
func checkFreeForm(msg proto.Message) error {
	return walkFreeForm(msg.ProtoReflect(), "")
}

func walkFreeForm(m protoreflect.Message, prefix string) error {
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
