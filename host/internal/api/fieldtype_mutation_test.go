package api

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// TestFieldTypesOfEveryKind walks the kinds that request bodies rarely use
// (maps, integers, timestamps, nested messages, lists of messages, long
// values), on response messages, for mutants no route test reached.
func TestFieldTypesOfEveryKind(t *testing.T) {
	t.Parallel()
	errFields := (&apiv1.ErrorFields{}).ProtoReflect().Descriptor()
	item := (&apiv1.BrandVoiceListItem{}).ProtoReflect().Descriptor()
	list := (&apiv1.ListBrandVoicesResponse{}).ProtoReflect().Descriptor()
	long := strings.Repeat("x", 60)
	for _, tc := range []struct {
		body, want string
		fields     bool // ErrorFields, else BrandVoiceListItem or the list
		listOf     bool
	}{
		{`{"fields": {"jobId": "j1"}}`, "", true, false},
		{`{"fields": ["jobId"]}`, `field fields must be an object, got an array`, true, false},
		{`{"fields": {"jobId": 7}}`, `field fields.jobId must be a string, got 7`, true, false},
		{`{"values": {"a": 1}, "fields": null}`, "", true, false},
		{`{"values": [1]}`, `field values must be an object, got an array`, true, false},
		{`{"contentLength": 12, "createdAt": "2026-01-01T00:00:00Z"}`, "", false, false},
		{`{"contentLength": "12"}`, "", false, false},
		{`{"contentLength": true}`, `field contentLength must be a number, got true`, false, false},
		{`{"contentLength": {"n": 1}}`, `field contentLength must be a number, got an object`, false, false},
		{`{"createdAt": 1700000000}`, `field createdAt must be a string, got 1700000000`, false, false},
		{`{"name": "` + long + `"}`, "", false, false},
		{`{"id": 1, "name": ` + "1" + strings.Repeat("0", 50) + `}`, `field id must be a string, got 1`, false, false},
		{`{"name": ` + "1" + strings.Repeat("0", 50) + `}`, `field name must be a string, got 1` + strings.Repeat("0", 39) + "…", false, false},
		{`{"data": [{"id": "a"}, {"id": 2}]}`, `field data[1].id must be a string, got 2`, false, true},
		{`{"data": ["a"]}`, `field data[0] must be an object, got "a"`, false, true},
		{`{"data": {"id": "a"}}`, `field data must be an array, got an object`, false, true},
		{`not json`, "", false, false},
	} {
		md := item
		if tc.fields {
			md = errFields
		} else if tc.listOf {
			md = list
		}
		if got := fieldTypeError([]byte(tc.body), md); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.body, got, tc.want)
		}
	}
}

// wrapperAndMapHolder is a message no Herald API has yet but the edge's
// walks are written for: a google.protobuf wrapper field, a map of
// free-form objects and an enum.
//
//	enum Tone { TONE_UNSPECIFIED = 0; TONE_WARM = 1; }
//	message Holder {
//	  google.protobuf.StringValue title = 1;
//	  map<string, google.protobuf.Struct> parts = 2;
//	  Tone tone = 3;
//	}
func wrapperAndMapHolder(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	_ = wrapperspb.String // registers google/protobuf/wrappers.proto
	opt, rep := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	msgT, strT := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	field := func(name string, n int32, label *descriptorpb.FieldDescriptorProto_Label, typ *descriptorpb.FieldDescriptorProto_Type, typeName string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), JsonName: proto.String(name), Number: proto.Int32(n), Label: label, Type: typ}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		return f
	}
	fd, err := protodesc.NewFile(&descriptorpb.FileDescriptorProto{
		Name:       proto.String("herald_mutation_test.proto"),
		Package:    proto.String("herald.mutationtest"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/struct.proto", "google/protobuf/wrappers.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("Tone"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("TONE_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: proto.String("TONE_WARM"), Number: proto.Int32(1)},
			},
		}},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Holder"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("title", 1, opt, msgT, ".google.protobuf.StringValue"),
				field("parts", 2, rep, msgT, ".herald.mutationtest.Holder.PartsEntry"),
				field("tone", 3, opt, descriptorpb.FieldDescriptorProto_TYPE_ENUM.Enum(), ".herald.mutationtest.Tone"),
			},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name: proto.String("PartsEntry"),
				Field: []*descriptorpb.FieldDescriptorProto{
					field("key", 1, opt, strT, ""),
					field("value", 2, opt, msgT, ".google.protobuf.Struct"),
				},
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			}},
		}},
	}, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Holder")
}

// A wrapper field takes the scalar it wraps (protojson checks which), an
// enum a name or a number, and a NUL or a too deep object inside a map of
// messages is found and named whatever the map's order.
func TestWrapperFieldsAndMapsOfMessages(t *testing.T) {
	t.Parallel()
	md := wrapperAndMapHolder(t)
	for _, tc := range []struct{ body, want string }{
		{`{"title": "x"}`, ""},
		{`{"title": null}`, ""},
		{`{"parts": {"a": {"k": "v"}}}`, ""},
		{`{"parts": {"a": "v"}}`, `field parts.a must be an object, got "v"`},
		{`{"tone": "TONE_WARM"}`, ""},
		{`{"tone": 1}`, ""},
		{`{"tone": true}`, `field tone must be a string, got true`},
	} {
		if got := fieldTypeError([]byte(tc.body), md); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.body, got, tc.want)
		}
	}
	withPart := func(s string) proto.Message {
		m := dynamicpb.NewMessage(md)
		parts := m.Mutable(md.Fields().ByName("parts")).Map()
		parts.Set(protoreflect.ValueOfString("a").MapKey(), protoreflect.ValueOfMessage((&structpb.Struct{
			Fields: map[string]*structpb.Value{"k": structpb.NewStringValue(s)},
		}).ProtoReflect()))
		return m
	}
	if got := messageOf(t, checkNUL(withPart("x\x00"))); got != "field parts.k must not contain NUL (\\u0000) characters" {
		t.Errorf("NUL in a map of messages: %q", got)
	}
	if got := messageOf(t, checkNUL(withPart("x"))); got != "" {
		t.Errorf("clean map of messages: %q", got)
	}
	// One part too deep next to a clean one.
	deep := structpb.NewStringValue("x")
	for range maxJSONDepth + 1 {
		deep = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"n": deep}})
	}
	m := withPart("x").(*dynamicpb.Message)
	m.Mutable(md.Fields().ByName("parts")).Map().Set(protoreflect.ValueOfString("b").MapKey(), protoreflect.ValueOfMessage(deep.GetStructValue().ProtoReflect()))
	if got := messageOf(t, checkEdge(m)); got != "field parts is nested deeper than 32 levels" {
		t.Errorf("a too deep part beside a clean one: %q", got)
	}
}
