package integration_test

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/heraldhq/herald/integration/harness"
)

// The request rules of the OpenAPI document and the server's checks agree
// in both directions, over every operation of the served document:
//
//   - every declared constraint (required, enum, minLength/maxLength,
//     minimum/maximum, maxItems, an item's maxLength, pattern) gets a value
//     just inside it, which the server does not refuse for that field, and
//     one just outside it, which is a 400 whose message begins with the
//     field's name;
//   - every field also gets hostile values (empty, blank, unknown words,
//     http://, very long, negative, huge, long lists): when the server
//     answers 400 naming the field, the document must reject the same
//     request, or the server enforces a rule the document does not state.
//
// A request is built from the examples the document gives its fields, so
// each probe breaks one field at a time.

// contractSchema is the part of a JSON schema the rules use.
type contractSchema struct {
	Ref        string                     `json:"$ref"`
	Type       any                        `json:"type"`
	Enum       []any                      `json:"enum"`
	MinLength  *int                       `json:"minLength"`
	MaxLength  *int                       `json:"maxLength"`
	Minimum    *float64                   `json:"minimum"`
	Maximum    *float64                   `json:"maximum"`
	MaxItems   *int                       `json:"maxItems"`
	MinItems   *int                       `json:"minItems"`
	Pattern    string                     `json:"pattern"`
	Examples   []any                      `json:"examples"`
	Items      *contractSchema            `json:"items"`
	Properties map[string]*contractSchema `json:"properties"`
	Required   []string                   `json:"required"`
	AllOf      []*contractSchema          `json:"allOf"`
	AnyOf      []*contractSchema          `json:"anyOf"`
}

func (s *contractSchema) typ() string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if v != "null" {
				return v.(string)
			}
		}
	}
	return ""
}

type contractOp struct {
	method, path string
	id           string
	query        map[string]*contractSchema // query parameters
	body         *contractSchema            // request body, or nil
}

// configured are rules that depend on the operator's configuration or on
// the outside world, which no static document can state: they are checked
// by the areas and named in the fields' descriptions.
var configured = map[string]string{
	"exportTo":     "the configured destinations",
	"model":        "the configured model routes",
	"imageModel":   "the configured image routes",
	"engines":      "the configured model routes",
	"language":     "the languages the SEO analyzer has",
	"name":         "the operator's max_name_length (webhooks) and the workspace's own names",
	"websiteurl":   "an address that must be fetched",
	"file":         "an address that must be fetched",
	"url":          "an address that must be fetched",
	"domain":       "a host name the site parser accepts",
	"jobType":      "the job names Herald reserves",
	"whenToExport": "an ISO-8601 time (the field's format)",
	"status":       "a schedule's state rules",
	"prompts":      "the plan's prompts per report, and at least one unless a refresh reuses the last ones",
	// By operation: rules of one route only.
	"getStats.siteKey":          "required only when the workspace has more than one site",
	"finishGoogleConnect.code":  "code or error: Google's redirect carries one of them",
	"connectGoogle.redirectUri": "redirectUri or serviceAccountKey, one of the two",
}

func TestTheDocumentsRulesAndTheServerAgree(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".txt") {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "We write short, warm sentences. We say you, not users.")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Acme | Widgets</title></head><body><h1>Widgets</h1><p>We write short sentences.</p></body></html>`)
	}))
	t.Cleanup(site.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: site.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	p := harness.Start(t, harness.Options{Env: withEnv(map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1", "SSL_CERT_FILE": ca,
	}), AllowLog: []harness.Allow{
		{Match: "prefill suggestions from the model failed", Why: "the fake OpenAI answers prose, not the suggestions' JSON; prefill falls back to templates"},
		{Match: "model deployment cooling down", Why: "the probes reach engines whose providers have no key here"},
		{Match: "[WARN]", Why: "the probes send every hostile value to every route; a warning is an accepted outcome, the test judges the statuses"},
	}})
	res, err := http.Get(p.URL + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	doc, err := libopenapi.NewDocument(served)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	ops, schemas := contractOps(t, served)

	call := func(op contractOp, query url.Values, body map[string]any) (int, string, *http.Request) {
		t.Helper()
		path := strings.NewReplacer("{id}", "contract-x", "{jobId}", "contract-x", "{sessionId}", "contract-x", "{name}", "webhook", "{key}", "contract-x").Replace(op.path)
		target := p.URL + path
		if len(query) > 0 {
			target += "?" + query.Encode()
		}
		var raw []byte
		if body != nil {
			raw, _ = json.Marshal(body)
		}
		mk := func() *http.Request {
			req, _ := http.NewRequest(op.method, target, strings.NewReader(string(raw)))
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("api-key", p.Key)
			return req
		}
		res, err := http.DefaultClient.Do(mk())
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var e struct {
			Message string `json:"message"`
		}
		json.Unmarshal(out, &e)
		return res.StatusCode, e.Message, mk()
	}
	// A site whose key the beacon examples use.
	status, msg, _ := call(contractOp{method: "POST", path: "/v1/ai-traffic/sites"}, nil, map[string]any{"domain": "contract.test"})
	if status != 201 {
		t.Fatalf("create site: %d %s", status, msg)
	}
	var sites struct {
		Sites []struct {
			SiteKey string `json:"siteKey"`
		} `json:"sites"`
	}
	r2, _ := http.NewRequest("GET", p.URL+"/v1/ai-traffic/sites", nil)
	r2.Header.Set("api-key", p.Key)
	if res, err := http.DefaultClient.Do(r2); err == nil {
		json.NewDecoder(res.Body).Decode(&sites)
		res.Body.Close()
	}
	overrides := map[string]any{"websiteurl": site.URL, "file": site.URL + "/voice.txt"}
	if len(sites.Sites) > 0 {
		overrides["siteKey"] = sites.Sites[0].SiteKey
	}

	names := func(msg, field string) bool {
		if !strings.HasPrefix(msg, field) {
			return false
		}
		rest := msg[len(field):]
		return rest == "" || strings.ContainsAny(rest[:1], " :[.")
	}
	declared, inside, outside, probes := 0, 0, 0, 0
	for _, op := range ops {
		baseQuery, baseBody := contractBase(op, schemas, overrides)
		// Each field of the body or the query, with its schema.
		type field struct {
			name    string
			s       *contractSchema
			inQuery bool
		}
		var fields []field
		for name, s := range op.query {
			fields = append(fields, field{name, s, true})
		}
		if op.body != nil {
			for name, s := range op.body.Properties {
				fields = append(fields, field{name, resolve(s, schemas), false})
			}
		}
		sort.Slice(fields, func(i, j int) bool { return fields[i].name < fields[j].name })
		required := map[string]bool{}
		if op.body != nil {
			for _, r := range op.body.Required {
				required[r] = true
			}
		}
		send := func(f field, value any, omit bool) (int, string, *http.Request) {
			q := url.Values{}
			for k, v := range baseQuery {
				q[k] = v
			}
			var body map[string]any
			if op.body != nil {
				body = map[string]any{}
				for k, v := range baseBody {
					body[k] = v
				}
			}
			switch {
			case f.inQuery && omit:
				q.Del(f.name)
			case f.inQuery:
				q.Set(f.name, fmt.Sprint(value))
			case omit:
				delete(body, f.name)
			default:
				body[f.name] = value
			}
			return call(op, q, body)
		}
		where := func(f field) string { return fmt.Sprintf("%s %s (%s) %s", op.method, op.path, op.id, f.name) }
		for _, f := range fields {
			example, hasExample := overrides[f.name]
			if !hasExample {
				example = exampleOf(f.s)
			}
			for _, c := range contractCases(f.s, required[f.name], example) {
				declared++
				status, msg, _ := send(f, c.inside, c.omitInside)
				if status == 400 && names(msg, f.name) {
					t.Errorf("%s: %s: the value just inside (%s) is refused: %s", where(f), c.rule, show(c.inside), msg)
				} else {
					inside++
				}
				status, msg, _ = send(f, c.outside, c.omitOutside)
				if status != 400 || !names(msg, f.name) {
					t.Errorf("%s: %s: the value just outside (%s) gives %d %q, want 400 naming %s", where(f), c.rule, show(c.outside), status, msg, f.name)
				} else {
					outside++
				}
			}
			if _, skip := configured[f.name]; skip {
				continue
			}
			if _, skip := configured[op.id+"."+f.name]; skip {
				continue
			}
			for _, bad := range hostile(f.s) {
				probes++
				status, msg, req := send(f, bad, false)
				if status != 400 || !names(msg, f.name) {
					continue
				}
				if ok, _ := v.ValidateHttpRequest(req); ok {
					t.Errorf("%s: the server refuses %s (400 %q) and the document allows it: declare the rule on the proto field", where(f), show(bad), msg)
				}
			}
		}
	}
	t.Logf("%d operations, %d declared constraints (%d inside accepted, %d outside refused), %d hostile probes", len(ops), declared, inside, outside, probes)
	if declared < 80 {
		t.Fatalf("only %d declared constraints found; the document lost its rules", declared)
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return fmt.Sprintf("%s… (%d bytes)", b[:40], len(b))
	}
	return string(b)
}

// contractOps reads the operations of the document that take input.
func contractOps(t *testing.T, raw []byte) ([]contractOp, map[string]*contractSchema) {
	t.Helper()
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string   `json:"operationId"`
			AliasOf     string   `json:"x-alias-of"`
			Tags        []string `json:"tags"`
			Parameters  []struct {
				Name   string          `json:"name"`
				In     string          `json:"in"`
				Schema *contractSchema `json:"schema"`
			} `json:"parameters"`
			RequestBody struct {
				Content map[string]struct {
					Schema *contractSchema `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]*contractSchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var ops []contractOp
	for path, item := range d.Paths {
		for method, o := range item {
			if o.AliasOf != "" || (len(o.Tags) > 0 && o.Tags[0] == "Static") {
				continue
			}
			op := contractOp{method: strings.ToUpper(method), path: path, id: o.OperationID, query: map[string]*contractSchema{}}
			for _, prm := range o.Parameters {
				if prm.In == "query" {
					op.query[prm.Name] = prm.Schema
				}
			}
			if c, ok := o.RequestBody.Content["application/json"]; ok {
				op.body = resolve(c.Schema, d.Components.Schemas)
			}
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops, d.Components.Schemas
}

func resolve(s *contractSchema, schemas map[string]*contractSchema) *contractSchema {
	for s != nil {
		switch {
		case s.Ref != "":
			s = schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
		case len(s.AllOf) == 1:
			s = s.AllOf[0]
		default:
			return s
		}
	}
	return s
}

// contractBase is a request that passes every declared rule: each field's
// example (or an override the test set up), required fields included.
func contractBase(op contractOp, schemas map[string]*contractSchema, overrides map[string]any) (url.Values, map[string]any) {
	q := url.Values{}
	for name, s := range op.query {
		if v := exampleOf(s); v != nil {
			q.Set(name, fmt.Sprint(v))
		}
	}
	var body map[string]any
	if op.body != nil {
		body = map[string]any{}
		for name, s := range op.body.Properties {
			s = resolve(s, schemas)
			if v, ok := overrides[name]; ok {
				body[name] = v
			} else if v := exampleOf(s); v != nil {
				body[name] = v
			}
		}
	}
	return q, body
}

type contractCase struct {
	rule                    string
	inside, outside         any
	omitInside, omitOutside bool
}

// exampleOf is a value the schema accepts: its example, else its first
// allowed value, else nil.
func exampleOf(s *contractSchema) any {
	if len(s.Examples) > 0 {
		return s.Examples[0]
	}
	for _, e := range s.Enum {
		if e != nil {
			return e
		}
	}
	return nil
}

// contractCases are the boundary values of each constraint of s; example
// is a valid value of the field (nil when it has none).
func contractCases(s *contractSchema, required bool, example any) []contractCase {
	var out []contractCase
	if example == nil {
		example = "x"
	}
	if required {
		out = append(out, contractCase{rule: "required", inside: example, omitOutside: true})
	}
	var enum []any
	for _, e := range s.Enum {
		if e != nil {
			enum = append(enum, e)
		}
	}
	if len(enum) > 0 {
		out = append(out, contractCase{rule: "enum", inside: enum[len(enum)-1], outside: "zz-not-allowed"})
	}
	if s.typ() == "string" && len(enum) == 0 {
		// Lengths are measured on a valid value padded with letters, so
		// that a pattern or prefix the field also has still holds.
		base, _ := example.(string)
		if s.Pattern == `\S` || s.Pattern == "" {
			base = ""
		}
		pad := func(n int) string {
			if n < len(base) {
				return base[:n]
			}
			fill := "w"
			if base != "" {
				fill = base[len(base)-1:] // keeps a pattern such as digits
			}
			return base + strings.Repeat(fill, n-len(base))
		}
		if s.MaxLength != nil && *s.MaxLength >= len(base) {
			out = append(out, contractCase{rule: "maxLength", inside: pad(*s.MaxLength), outside: pad(*s.MaxLength + 1)})
		}
		if s.MinLength != nil && *s.MinLength > 1 && !required {
			out = append(out, contractCase{rule: "minLength", inside: pad(*s.MinLength), outside: pad(*s.MinLength - 1)})
		}
	}
	if s.Pattern == `\S` {
		out = append(out, contractCase{rule: "pattern (not blank)", inside: example, outside: "   "})
	}
	if s.typ() == "integer" || s.typ() == "number" {
		if s.Minimum != nil {
			lo := *s.Minimum
			below := lo - 1
			if below == 0 {
				below = lo - 2 // 0 is "unset" for a plain number
			}
			out = append(out, contractCase{rule: "minimum", inside: lo, outside: below})
		}
		if s.Maximum != nil {
			out = append(out, contractCase{rule: "maximum", inside: *s.Maximum, outside: *s.Maximum + 1})
		}
	}
	if s.typ() == "array" {
		var item any = "w"
		if s.Items != nil && (s.Items.Ref != "" || s.Items.typ() == "object") {
			item = map[string]any{}
		}
		if s.MaxItems != nil {
			out = append(out, contractCase{rule: "maxItems", inside: repeat(item, *s.MaxItems), outside: repeat(item, *s.MaxItems+1)})
		}
		if s.Items != nil && s.Items.MaxLength != nil {
			n := *s.Items.MaxLength
			out = append(out, contractCase{rule: "items.maxLength", inside: []any{strings.Repeat("w", n)}, outside: []any{strings.Repeat("w", n+1)}})
		}
		if s.Items != nil && s.Items.Pattern == `\S` {
			out = append(out, contractCase{rule: "items not blank", inside: []any{"w"}, outside: []any{" "}})
		}
	}
	return out
}

func repeat(v any, n int) []any {
	out := make([]any, n)
	for i := range out {
		if str, ok := v.(string); ok {
			out[i] = fmt.Sprintf("%s%d", str, i)
		} else {
			out[i] = v
		}
	}
	return out
}

// hostile are values of s's type that a careless client sends.
func hostile(s *contractSchema) []any {
	switch s.typ() {
	case "string":
		return []any{"", "   ", "zz-not-a-value", "http://example.com/", strings.Repeat("w", 250_001)}
	case "integer", "number":
		return []any{-1, 1_000_000_000}
	case "array":
		return []any{repeat("w", 101), []any{""}, []any{strings.Repeat("w", 5_000)}}
	}
	return nil
}
