package rule_test

import (
	"errors"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/heraldhq/herald/host/internal/rule"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

func TestCheckNamesTheFieldOfTheFirstBrokenRule(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 32001)
	seven := int32(7)
	over := int32(101)
	for _, tc := range []struct {
		name string
		msg  proto.Message
		want string // "" for accepted
	}{
		{"a complete image request", &apiv1.GenerateImageRequest{Text: "a lighthouse", Size: "auto"}, ""},
		{"a required string missing", &apiv1.GenerateImageRequest{}, "text is required"},
		{"a required string of spaces", &apiv1.GenerateImageRequest{Text: "  \n"}, "text is required"},
		{"a value outside the allowed ones", &apiv1.GenerateImageRequest{Text: "x", Size: "640x480"}, `size must be one of 1024x1024, 1536x1024, 1024x1536, auto; got "640x480"`},
		{"an empty optional enum is unset", &apiv1.GenerateImageRequest{Text: "x", Quality: ""}, ""},
		{"a string over its length in characters", &apiv1.GenerateImageRequest{Text: long}, "text is 32001 characters; the limit is 32000"},
		{"a number under its minimum", &apiv1.ListSchedulesRequest{Skip: -1}, "skip must be 0 or more, got -1"},
		{"a zero of a plain number is unset", &apiv1.GetReportHistoryRequest{Days: 0}, ""},
		{"a number over its maximum", &apiv1.GetReportHistoryRequest{Days: 366}, "days must be between 1 and 365, got 366"},
		{"an optional number is checked when set", &apiv1.CollectRequest{SiteKey: "ks_a", ScrollDepth: &over}, "scrollDepth must be between 0 and 100, got 101"},
		{"an optional number inside its range", &apiv1.CollectRequest{SiteKey: "ks_a", ScrollDepth: &seven}, ""},
		{"a prefix", &apiv1.CollectRequest{SiteKey: "site"}, `siteKey must start with ks_; got "site"`},
		{"too many list entries", &apiv1.CalculateSEOScoreRequest{Content: "x", Keywords: make([]string, 21)}, "keywords has 21 entries; the limit is 20"},
		{"a list entry too long", &apiv1.CalculateSEOScoreRequest{Content: "x", Keywords: []string{"a", strings.Repeat("k", 201)}}, "keywords[1] is 201 characters; the limit is 200"},
		{"http refused", &apiv1.PrefillReportRequest{Websiteurl: "http://example.com/a"}, "websiteurl: http://example.com refused: only https:// URLs are fetched"},
		{"a bare host is https", &apiv1.PrefillReportRequest{Websiteurl: "example.com"}, ""},
		{"an optional string set empty", &apiv1.UpdateBrandVoiceRequest{Name: proto.String("")}, "name must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := rule.Check(tc.msg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != tc.want {
				t.Fatalf("got %v, want invalid_argument %q", err, tc.want)
			}
		})
	}
}
