package api

import (
	"strings"
	"testing"

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
