package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// The edge's rules of free-form JSON and of field types, checked in this
// package: they were caught only by other packages' tests.

// nested returns a free-form object n levels deep: {"l":{"l":...{}}}.
func nested(n int) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for i := 1; i < n; i++ {
		s = &structpb.Struct{Fields: map[string]*structpb.Value{"l": structpb.NewStructValue(s)}}
	}
	return s
}

// nestedJSON is the same object as JSON text.
func nestedJSON(n int) string {
	return strings.Repeat(`{"l":`, n-1) + "{}" + strings.Repeat("}", n-1)
}

// restDecode decodes body as the REST face does for msg.
func restDecode(t *testing.T, body string, msg proto.Message) error {
	t.Helper()
	s := &server{maxBody: 1 << 20}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	return s.decode(httptest.NewRecorder(), r, msg)
}

func wantInvalid(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if err == nil || connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want a 400 saying %q", what, err, msg)
	}
}

func TestFreeFormJSONDeeperThan32LevelsIsRefused(t *testing.T) {
	t.Parallel()
	if maxJSONDepth != 32 {
		t.Fatalf("maxJSONDepth = %d, want 32", maxJSONDepth)
	}
	// Both faces: the decoded message (Connect) and the raw body (REST).
	ok := &apiv1.CreateScheduleRequest{ExportTo: "webhook", ContentToExport: nested(32)}
	if err := checkEdge(ok); err != nil {
		t.Errorf("32 levels refused: %v", err)
	}
	deep := &apiv1.CreateScheduleRequest{ExportTo: "webhook", ContentToExport: nested(33)}
	wantInvalid(t, "33 levels", checkEdge(deep), "field contentToExport is nested deeper than 32 levels")
	// A list counts as a level too, and options of the text route are checked the same way.
	list := structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStructValue(nested(32))}})
	opts := &apiv1.GenerateTextRequest{Model: "m", Text: "t", Options: &structpb.Struct{Fields: map[string]*structpb.Value{"x": list}}}
	wantInvalid(t, "options 34 levels through a list", checkEdge(opts), "field options is nested deeper than 32 levels")

	if err := restDecode(t, `{"exportTo":"webhook","contentToExport":`+nestedJSON(32)+`}`, &apiv1.CreateScheduleRequest{}); err != nil {
		t.Errorf("REST, 32 levels refused: %v", err)
	}
	wantInvalid(t, "REST, 33 levels", restDecode(t, `{"exportTo":"webhook","contentToExport":`+nestedJSON(33)+`}`, &apiv1.CreateScheduleRequest{}),
		"field contentToExport is nested deeper than 32 levels")
	// The raw body is measured before it is decoded: a depth past the
	// limit is the answer even when the decoder would fail on another field.
	wantInvalid(t, "REST, 33 levels and a wrong type", restDecode(t, `{"exportTo":5,"contentToExport":`+nestedJSON(33)+`}`, &apiv1.CreateScheduleRequest{}),
		"field contentToExport is nested deeper than 32 levels")
	wantInvalid(t, "REST, 33 levels of arrays", restDecode(t, `{"contentToExport":{"a":`+strings.Repeat("[", 32)+strings.Repeat("]", 32)+`}}`, &apiv1.CreateScheduleRequest{}),
		"field contentToExport is nested deeper than 32 levels")
}

func TestANULInsideAFreeFormObjectIsRefused(t *testing.T) {
	t.Parallel()
	obj := func(v *structpb.Value) *structpb.Struct {
		return &structpb.Struct{Fields: map[string]*structpb.Value{"post": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"tags": v}})}}
	}
	clean := structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("a"), structpb.NewNumberValue(1)}})
	if err := checkEdge(&apiv1.CreateScheduleRequest{ExportTo: "webhook", ContentToExport: obj(clean)}); err != nil {
		t.Fatalf("a clean object refused: %v", err)
	}
	inList := structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("a"), structpb.NewStringValue("b\x00c")}})
	wantInvalid(t, "NUL in a string of a list", checkEdge(&apiv1.CreateScheduleRequest{ContentToExport: obj(inList)}),
		"field contentToExport.post.tags must not contain NUL")
	inKey := &structpb.Struct{Fields: map[string]*structpb.Value{"ok": structpb.NewStringValue("x"), "bad\x00key": structpb.NewStringValue("x")}}
	wantInvalid(t, "NUL in a key", checkEdge(&apiv1.CreateScheduleRequest{ContentToExport: inKey}), "field contentToExport must not contain NUL")
	inOptions := &apiv1.GenerateTextRequest{Model: "m", Text: "t", Options: &structpb.Struct{Fields: map[string]*structpb.Value{"system": structpb.NewStringValue("\x00")}}}
	wantInvalid(t, "NUL in options", checkEdge(inOptions), "field options.system must not contain NUL")
	wantInvalid(t, "REST, NUL in a nested string", restDecode(t, `{"contentToExport":{"post":{"tags":["a","b\u0000"]}}}`, &apiv1.CreateScheduleRequest{}),
		"field contentToExport.post.tags must not contain NUL")
	// Beacons strip rather than refuse (their own rule), so only they pass.
	if err := checkEdge(&apiv1.CollectRequest{SiteKey: "k\x00"}); err != nil {
		t.Errorf("a beacon with NUL: %v", err)
	}
}

// TestWrongFieldTypesNameTheField: protojson calls a string where a list is
// expected a syntax error; every REST route names the field instead.
func TestWrongFieldTypesNameTheField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		msg  proto.Message
		want string
	}{
		{`{"competitors": "Globex"}`, &apiv1.CreateReportRequest{}, `field competitors must be an array, got "Globex"`},
		// Competitors' elements are strings or objects (google.protobuf.Value,
		// checked by the visibility area); prompts' must be strings.
		{`{"prompts": ["Best CRM?", {"text": "x"}]}`, &apiv1.CreateReportRequest{}, `field prompts[1] must be a string, got an object`},
		{`{"prompts": ["Best CRM?", 3]}`, &apiv1.CreateReportRequest{}, `field prompts[1] must be a string, got 3`},
		{`{"websiteurl": ["https://a.test"]}`, &apiv1.CreateReportRequest{}, `field websiteurl must be a string, got an array`},
		{`{"refresh": "yes"}`, &apiv1.CreateReportRequest{}, `field refresh must be a boolean, got "yes"`},
		{`{"model": "m", "text": "t", "options": "fast"}`, &apiv1.GenerateTextRequest{}, `field options must be an object, got "fast"`},
		{`{"model": "m", "text": {"a": 1}}`, &apiv1.GenerateTextRequest{}, `field text must be a string, got an object`},
		{`{"content": ["a"]}`, &apiv1.CreateBrandVoiceFromTextRequest{}, `field content must be a string, got an array`},
		// Not JSON at all stays a syntax error.
		{`{"competitors": [}`, &apiv1.CreateReportRequest{}, `malformed JSON`},
	} {
		wantInvalid(t, tc.body, restDecode(t, tc.body, tc.msg), tc.want)
	}
	// Right types pass, proto names and quoted numbers included.
	for _, tc := range []struct {
		body string
		msg  proto.Message
	}{
		{`{"competitors": ["Globex"], "prompts": null, "refresh": true}`, &apiv1.CreateReportRequest{}},
		{`{"model": "m", "text": "t", "use_worker": true, "options": {"temperature": 1, "stop": ["x"]}}`, &apiv1.GenerateTextRequest{}},
	} {
		if err := restDecode(t, tc.body, tc.msg); err != nil {
			t.Errorf("%s: %v", tc.body, err)
		}
	}
}
