package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// The edge's checks reach every kind of field a request has: lists of
// free-form values, several free-form fields, maps, and the exact bounds
// (mutants of freeform.go, fieldtype.go and rest.go that lived).

// wrapStruct puts inner under n-1 more objects: {"l":{"l":...inner}} is n
// levels when inner is one.
func wrapStruct(inner *structpb.Struct, n int) *structpb.Struct {
	for i := 1; i < n; i++ {
		inner = &structpb.Struct{Fields: map[string]*structpb.Value{"l": structpb.NewStructValue(inner)}}
	}
	return inner
}

// structOfSize is a free-form object whose protobuf encoding is n bytes.
func structOfSize(t *testing.T, n int) *structpb.Struct {
	t.Helper()
	for l := n - 32; l <= n; l++ {
		s := &structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewStringValue(strings.Repeat("x", l))}}
		if proto.Size(s) == n {
			return s
		}
	}
	t.Fatalf("no object of %d bytes", n)
	return nil
}

// messageOf is the message of an API error, "" for nil.
func messageOf(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
		t.Fatalf("%v: want an invalid-argument error", err)
	}
	return ce.Message()
}

func TestFreeFormBoundsCoverListsSeveralFieldsMapsAndTheExactLimits(t *testing.T) {
	t.Parallel()
	if maxFreeFormBytes != 256<<10 {
		t.Fatalf("maxFreeFormBytes = %d, want 262144", maxFreeFormBytes)
	}
	emptyList := &structpb.Struct{Fields: map[string]*structpb.Value{"e": structpb.NewListValue(&structpb.ListValue{})}}
	deepList := &structpb.ListValue{Values: []*structpb.Value{structpb.NewStructValue(nested(32))}} // 33 levels
	okList := &structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("Globex")}}
	for _, tc := range []struct {
		name string
		msg  proto.Message
		want string
	}{
		// Each element of a repeated free-form field, not only the first.
		{"second competitor 33 levels", &apiv1.CreateReportRequest{Competitors: []*structpb.Value{
			structpb.NewStringValue("Globex"), structpb.NewStructValue(nested(33)),
		}}, "field competitors is nested deeper than 32 levels"},
		{"competitors 32 levels", &apiv1.CreateReportRequest{Competitors: []*structpb.Value{
			structpb.NewStringValue("Globex"), structpb.NewStructValue(nested(32)),
		}}, ""},
		// A later free-form field after a valid one.
		{"prompts after valid competitors", &apiv1.CreateTrackerRequest{Competitors: okList, Prompts: deepList},
			"field prompts is nested deeper than 32 levels"},
		// An empty array is a level too.
		{"empty array at level 33", &apiv1.CreateScheduleRequest{ContentToExport: wrapStruct(emptyList, 32)},
			"field contentToExport is nested deeper than 32 levels"},
		{"empty array at level 32", &apiv1.CreateScheduleRequest{ContentToExport: wrapStruct(emptyList, 31)}, ""},
		// Maps of strings are no free-form values.
		{"credentials", &apiv1.ConnectDestinationRequest{Name: "wordpress", Credentials: map[string]string{"token": "t", "site": "s"}}, ""},
		// Size: the limit itself passes, one byte more is refused.
		{"262144 bytes", &apiv1.CreateScheduleRequest{ContentToExport: structOfSize(t, maxFreeFormBytes)}, ""},
		{"262145 bytes", &apiv1.CreateScheduleRequest{ContentToExport: structOfSize(t, maxFreeFormBytes+1)},
			"field contentToExport is larger than 262144 bytes"},
	} {
		if got := messageOf(t, checkEdge(tc.msg)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// The raw REST body: closing brackets end a level, so many siblings
	// are as shallow as one.
	siblings := make([]string, 40)
	for i := range siblings {
		siblings[i] = fmt.Sprintf(`"k%d":{"a":[]}`, i)
	}
	body := `{"exportTo":"webhook","contentToExport":{` + strings.Join(siblings, ",") + `}}`
	if err := restDecode(t, body, &apiv1.CreateScheduleRequest{}); err != nil {
		t.Errorf("40 sibling objects: %v", err)
	}
	if _, deep := jsonDepthExceeds([]byte(`[[],[],[],[]]`), 2); deep {
		t.Error("four empty arrays in one array counted deeper than 2")
	}
}

func TestNULIsRefusedInEveryKindOfString(t *testing.T) {
	t.Parallel()
	const nul = " must not contain NUL (\\u0000) characters"
	for _, tc := range []struct {
		name string
		msg  proto.Message
		want string
	}{
		{"string starting with NUL", &apiv1.GenerateTextRequest{Model: "m", Text: "\x00hi"}, "field text" + nul},
		{"free-form key starting with NUL", &apiv1.CreateScheduleRequest{ContentToExport: &structpb.Struct{
			Fields: map[string]*structpb.Value{"\x00k": structpb.NewStringValue("v")},
		}}, "field contentToExport" + nul},
		{"second prompt", &apiv1.CreateReportRequest{Prompts: []string{"best crm?", "b\x00"}}, "field prompts" + nul},
		{"competitor string", &apiv1.CreateReportRequest{Competitors: []*structpb.Value{structpb.NewStringValue("x\x00")}}, "field competitors" + nul},
		{"map key starting with NUL", &apiv1.ConnectDestinationRequest{Credentials: map[string]string{"\x00k": "v"}}, "field credentials" + nul},
		{"map value starting with NUL", &apiv1.ConnectDestinationRequest{Credentials: map[string]string{"k": "\x00v"}}, "field credentials" + nul},
		{"clean map", &apiv1.ConnectDestinationRequest{Name: "n", Credentials: map[string]string{"k": "v", "token": "t"}}, ""},
		{"clean prompts", &apiv1.CreateReportRequest{Prompts: []string{"a", "b"}}, ""},
		// A map of messages (no request has one yet; the walk is the same).
		{"map of messages", &apiv1.BrandScore{Name: "acme", Engines: map[string]*apiv1.BrandEngineFigures{"gpt": {Mentions: 2}}}, ""},
	} {
		if got := messageOf(t, checkEdge(tc.msg)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// One bad value among many clean ones is found whatever the map's
	// order (Go maps range in random order: several tries).
	creds := map[string]string{"bad": "x\x00"}
	for i := range 20 {
		creds[fmt.Sprintf("k%d", i)] = "v"
	}
	for range 10 {
		if got := messageOf(t, checkEdge(&apiv1.ConnectDestinationRequest{Credentials: creds})); got != "field credentials"+nul {
			t.Fatalf("one NUL among 21 credentials: %q", got)
		}
	}
}

func TestFieldTypeErrorsNameTheRightFieldExactly(t *testing.T) {
	t.Parallel()
	forty := strings.Repeat("1", 40)
	for _, tc := range []struct {
		body string
		msg  proto.Message
		want string
	}{
		// A boolean given as one is fine; the wrong field after it is named.
		{`{"refresh": true, "selfAliases": "acme"}`, &apiv1.CreateReportRequest{}, `field selfAliases must be an array, got "acme"`},
		// google.protobuf.ListValue fields take arrays.
		{`{"websiteurl": "https://a.test", "competitors": "Globex"}`, &apiv1.CreateTrackerRequest{}, `field competitors must be an array, got "Globex"`},
		{`{"prompts": {"text": "x"}}`, &apiv1.CreateTrackerRequest{}, `field prompts must be an array, got an object`},
		// Values up to 40 bytes are quoted whole, longer ones cut.
		{`{"model": ` + forty + `}`, &apiv1.GenerateTextRequest{}, `field model must be a string, got ` + forty},
		{`{"model": ` + forty + `1}`, &apiv1.GenerateTextRequest{}, `field model must be a string, got ` + forty + `…`},
	} {
		if got := messageOf(t, restDecode(t, tc.body, tc.msg)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.body, got, tc.want)
		}
	}
}

// decodeAs decodes body under method as the REST face does, with query and
// path values.
func decodeAs(method, target, body string, path map[string]string, msg proto.Message) error {
	s := &server{maxBody: 1 << 20}
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	for k, v := range path {
		r.SetPathValue(k, v)
	}
	return s.decode(httptest.NewRecorder(), r, msg)
}

func TestRESTReadsTheBodyOfPostPutAndPatchOnly(t *testing.T) {
	t.Parallel()
	for method, reads := range map[string]bool{
		http.MethodPost: true, http.MethodPut: true, http.MethodPatch: true,
		http.MethodGet: false, http.MethodDelete: false,
	} {
		req := &apiv1.GenerateTextRequest{}
		if err := decodeAs(method, "/", `{"text":"hi"}`, nil, req); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if got := req.GetText() == "hi"; got != reads {
			t.Errorf("%s: body read %v, want %v", method, got, reads)
		}
	}
	// A body of only white space is no body.
	if err := decodeAs(http.MethodPost, "/", " \n\t", nil, &apiv1.GenerateTextRequest{}); err != nil {
		t.Errorf("blank body: %v", err)
	}
}

func TestQueryParametersBindScalarFieldsAndPathValuesWin(t *testing.T) {
	t.Parallel()
	trend := func(target string, path map[string]string) (*apiv1.GetTrackerTrendRequest, string) {
		req := &apiv1.GetTrackerTrendRequest{}
		err := decodeAs(http.MethodGet, target, "", path, req)
		return req, messageOf(t, err)
	}
	for _, tc := range []struct {
		target, pathID string
		id             string
		days, answers  int32
		want           string
	}{
		{"/x?days=30&answers=5", "t1", "t1", 30, 5, ""},
		{"/x?days=-2147483648", "", "", -2147483648, 0, ""},
		{"/x?days=2147483647&days=3", "", "", 2147483647, 0, ""}, // the first value counts
		{"/x?id=q", "", "q", 0, 0, ""},
		{"/x?id=q", "p", "p", 0, 0, ""}, // the path wins over the query
		{"/x?days=", "", "", 0, 0, `query parameter days must be an integer, got ""`},
		{"/x?days=abc", "", "", 0, 0, `query parameter days must be an integer, got "abc"`},
		{"/x?answers=2147483648", "", "", 0, 0, "query parameter answers is out of range"},
		{"/x?days=-2147483649", "", "", 0, 0, "query parameter days is out of range"},
	} {
		path := map[string]string{}
		if tc.pathID != "" {
			path["id"] = tc.pathID
		}
		req, msg := trend(tc.target, path)
		if msg != tc.want {
			t.Errorf("%s: error %q, want %q", tc.target, msg, tc.want)
			continue
		}
		if tc.want == "" && (req.GetId() != tc.id || req.GetDays() != tc.days || req.GetAnswers() != tc.answers) {
			t.Errorf("%s: id %q days %d answers %d, want %q %d %d", tc.target, req.GetId(), req.GetDays(), req.GetAnswers(), tc.id, tc.days, tc.answers)
		}
	}
	// Booleans, and int64 fields past the int32 range.
	del := &apiv1.DeleteWebhookRequest{}
	if err := decodeAs(http.MethodDelete, "/x?force=true", "", map[string]string{"id": "w1"}, del); err != nil || !del.GetForce() || del.GetId() != "w1" {
		t.Errorf("?force=true: %v, %v", del, err)
	}
	if msg := messageOf(t, decodeAs(http.MethodDelete, "/x?force=maybe", "", nil, &apiv1.DeleteWebhookRequest{})); msg != `query parameter force must be true or false, got "maybe"` {
		t.Errorf("?force=maybe: %q", msg)
	}
	credits := &apiv1.ContextCredits{}
	if err := decodeAs(http.MethodGet, "/x?limit=5000000000&used=-1", "", nil, credits); err != nil || credits.GetLimit() != 5000000000 || credits.GetUsed() != -1 {
		t.Errorf("int64 query: %v, %v", credits, err)
	}
	// Lists are not bound from the query; the query wins over the body.
	report := &apiv1.CreateReportRequest{}
	if err := decodeAs(http.MethodPost, "/x?prompts=a&websiteurl=https://q.test", `{"websiteurl":"https://b.test"}`, nil, report); err != nil ||
		len(report.GetPrompts()) != 0 || report.GetWebsiteurl() != "https://q.test" {
		t.Errorf("list and precedence: %v, %v", report, err)
	}
}
