package api

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/heraldhq/herald/host/internal/auth"
)

// TestRoutesDocumentEveryRESTRouteWithItsRPC: the route table the OpenAPI
// document is generated from names, for every /v1 route, the RPC it calls
// (read from the method value registered), sorted by path then method.
func TestRoutesDocumentEveryRESTRouteWithItsRPC(t *testing.T) {
	t.Parallel()
	routes := Routes()
	byKey := map[string]RouteDoc{}
	for i, r := range routes {
		if !strings.HasPrefix(r.Path, "/v1/") {
			t.Errorf("%s %s: not a /v1 route", r.Method, r.Path)
		}
		if r.Request != "" && !strings.HasPrefix(string(r.Procedure), "herald.api.v1.") {
			t.Errorf("%s %s: procedure %q", r.Method, r.Path, r.Procedure)
		}
		if i > 0 {
			p := routes[i-1]
			if p.Path > r.Path || p.Path == r.Path && p.Method >= r.Method {
				t.Errorf("%s %s after %s %s: not sorted", r.Method, r.Path, p.Method, p.Path)
			}
		}
		byKey[r.Method+" "+r.Path] = r
	}
	for key, want := range map[string]RouteDoc{
		"POST /v1/ai/generate/text":                        {Procedure: "herald.api.v1.GenerateService.GenerateText", Statuses: []int{200, 202}},
		"GET /v1/ai/brand-voice/":                          {Procedure: "herald.api.v1.BrandVoiceService.ListBrandVoices", Statuses: []int{200}},
		"DELETE /v1/ai/chat/brandVoices/{id}":              {Procedure: "herald.api.v1.BrandVoiceService.DeleteBrandVoice", Statuses: []int{200}},
		"GET /v1/visibility/trackers/{id}/trend.csv":       {Procedure: "herald.api.v1.TrackerService.ExportTrackerTrend", Statuses: []int{200}, ContentType: "text/csv"},
		"POST /v1/ai/generate/chat":                        {Procedure: "herald.api.v1.ChatService.Send", Statuses: []int{200}, Events: "herald.api.v1.ChatEvent"},
		"POST /v1/scheduler/create":                        {Procedure: "herald.api.v1.SchedulerService.CreateSchedule", Statuses: []int{200}, Policy: auth.APIKeyOrSession},
		"POST /v1/ai-traffic/collect":                      {Procedure: "herald.api.v1.AITrafficService.Collect", Statuses: []int{202}, Policy: auth.Public},
		"OPTIONS /v1/ai-traffic/collect":                   {Statuses: []int{204}, Policy: auth.Public},
		"GET /v1/openapi.json":                             {Statuses: []int{200}, Policy: auth.Public, ContentType: "application/json"},
		"GET /v1/ai/generate/seo-site-report/one-off/{id}": {Procedure: "herald.api.v1.VisibilityService.GetOneOffReport", Statuses: []int{200}},
	} {
		got, ok := byKey[key]
		if !ok {
			t.Errorf("%s: not in the table", key)
			continue
		}
		if got.Procedure != want.Procedure || !slices.Equal(got.Statuses, want.Statuses) || got.Policy != want.Policy ||
			got.ContentType != want.ContentType || got.Events != want.Events {
			t.Errorf("%s: %+v, want %+v", key, got, want)
		}
	}
	if _, ok := byKey["GET /v1/ai/brand-voice/{$}"]; ok {
		t.Error("{$} kept in a documented path")
	}
}

func TestAMethodThatNamesNoRPCIsAnError(t *testing.T) {
	t.Parallel()
	if p, err := procedureOf("GenerateText", "herald.api.v1.GenerateTextRequest", "herald.api.v1.GenerateTextResponse"); err != nil || p != "herald.api.v1.GenerateService.GenerateText" {
		t.Errorf("GenerateText: %q, %v", p, err)
	}
	for _, tc := range [][3]string{
		{"NoSuchMethod", "herald.api.v1.GenerateTextRequest", "herald.api.v1.GenerateTextResponse"},
		{"GenerateText", "herald.api.v1.ChatRequest", "herald.api.v1.GenerateTextResponse"},
		{"GenerateText", "herald.api.v1.GenerateTextRequest", "herald.api.v1.ChatResponse"},
	} {
		if p, err := procedureOf(tc[0], protoreflect.FullName(tc[1]), protoreflect.FullName(tc[2])); err == nil || !strings.Contains(err.Error(), "matches 0 RPCs") {
			t.Errorf("%v: %q, %v; want an error", tc, p, err)
		}
	}
}
