package openapi_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/openapi"
)

// What the documents promise about responses, read from the committed
// OpenAPI document and docs/API.md: each promise is also what
// the server does (the tests named beside each case).

type schemaDoc struct {
	Components struct {
		Schemas map[string]struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		} `json:"schemas"`
	} `json:"components"`
	Paths map[string]map[string]struct {
		Tags        []string `json:"tags"`
		Description string   `json:"description"`
	} `json:"paths"`
}

func loadDoc(t *testing.T) schemaDoc {
	t.Helper()
	var doc schemaDoc
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestImagePurposeIsAStringNeverNull: the server answers "custom" without
// a preset (generate's TestAnImageWithoutAPresetAnswersPurposeCustom).
func TestImagePurposeIsAStringNeverNull(t *testing.T) {
	t.Parallel()
	img := loadDoc(t).Components.Schemas["GeneratedImage"]
	p := img.Properties["purpose"]
	if p["type"] != "string" || !strings.Contains(p["description"].(string), `"custom" when`) {
		t.Fatalf("GeneratedImage.purpose: %v, want a non-null string documented as custom without a preset", p)
	}
}

// TestScoreProvidersMapEveryEngineToANumberOrNull: one rule, in the schema
// as in the report (visibility's TestAReportEndToEndScoresEveryNumberFromTheAnswers
// shows "broken": null for the engine that gave no answer).
func TestScoreProvidersMapEveryEngineToANumberOrNull(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	want := map[string]any{"type": []any{"number", "null"}}
	for _, name := range []string{"AIVisibilityScore", "EntityUnderstandingScore"} {
		p := doc.Components.Schemas[name].Properties["providers"]
		if p["type"] != "object" || !reflect.DeepEqual(p["additionalProperties"], want) || !strings.Contains(p["description"].(string), "null when") {
			t.Errorf("%s.providers: %v, want an object of engine to number or null", name, p)
		}
	}
}

// TestOnlyStaticRoutesLackAnRPC: docs/API.md says every route is also an
// RPC except the Static section's, and the document agrees with the route
// table on which those are.
func TestOnlyStaticRoutesLackAnRPC(t *testing.T) {
	t.Parallel()
	doc := loadDoc(t)
	for _, r := range api.Routes() {
		path := strings.TrimSuffix(r.Path, "{$}")
		op, ok := doc.Paths[path][strings.ToLower(r.Method)]
		if !ok {
			t.Errorf("%s %s is not in the document", r.Method, path)
			continue
		}
		static := len(op.Tags) == 1 && op.Tags[0] == "Static"
		if static != (r.Procedure == "") {
			t.Errorf("%s %s: tagged Static %v, but its procedure is %q", r.Method, path, static, r.Procedure)
		}
		if !static && !strings.Contains(op.Description, "Connect/gRPC: `"+strings.TrimSuffix(string(r.Procedure), "."+string(r.Procedure.Name()))+"/"+string(r.Procedure.Name())+"`") {
			t.Errorf("%s %s: the description does not name its RPC %s", r.Method, path, r.Procedure)
		}
	}
	md, err := os.ReadFile("../../../docs/API.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(md)), " ")
	if !strings.Contains(text, "Every route below is also a Connect, gRPC and gRPC-Web RPC of the named service (package `herald.api.v1`), except those of the Static section, which are plain HTTP routes with no RPC.") {
		t.Errorf("docs/API.md does not except the Static routes from its RPC promise")
	}
}

// TestTrendCSVIsDocumentedAsCSV: GET …/trend.csv answers text/csv (the
// trend test reads it as CSV), so the document must not promise JSON.
func TestTrendCSVIsDocumentedAsCSV(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	content := doc.Paths["/v1/visibility/trackers/{id}/trend.csv"]["get"].Responses["200"].Content
	if _, ok := content["text/csv"]; !ok || len(content) != 1 {
		t.Fatalf("trend.csv 200 content %v, want only text/csv", content)
	}
}
