package integration_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// judgeFake is an OpenAI-compatible chat completions server that plays
// both the answer engine and the judge model, the way a capable model
// would: engine questions get scripted answers, and each judge's question
// (told apart by its system prompt) is answered from what the judge is
// shown, per sentence or per probe. A judge request must carry
// response_format {"type":"json_schema"} with the judge's schema, its
// required and enum lists as JSON arrays; anything else is answered 400
// as the real API answers an invalid schema, and recorded in problems.
type judgeFake struct {
	*httptest.Server
	key string
	// answers maps a prompt (or a probe question's start) to the engine's
	// answer.
	answers map[string]string
	// namesBrand maps a sentence to the mention judge's verdict.
	namesBrand map[string]bool

	mu       sync.Mutex
	asked    map[string]int // judge kind → requests
	problems []string
}

// The judges' schemas as the host must send them: required lists and
// enums by JSON path.
var judgeSchemas = map[string]map[string][]string{
	"probe_verdict": {
		"required":                           {"verdict", "explanation", "entities"},
		"properties.verdict.enum":            {"correct", "partly", "wrong", "unknown"},
		"properties.entities.items.required": {"name", "kind"},
	},
	"mention_verdict": {"required": {"namesBrand"}},
	"brand_sentiment": {
		"required":                         {"brands"},
		"properties.brands.items.required": {"brand", "label", "score"},
		"properties.brands.items.properties.label.enum": {"negative", "neutral", "positive"},
	},
	"named_brands": {
		"required":                         {"brands"},
		"properties.brands.items.required": {"name", "domain"},
	},
	"prefill": {
		"required":                              {"competitors", "prompts"},
		"properties.competitors.items.required": {"name", "domain"},
	},
}

func newJudgeFake(t *testing.T, key string, answers map[string]string, namesBrand map[string]bool) *judgeFake {
	f := &judgeFake{key: key, answers: answers, namesBrand: namesBrand, asked: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *judgeFake) problem(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.mu.Lock()
	f.problems = append(f.problems, msg)
	f.mu.Unlock()
	w.WriteHeader(400)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// Problems returns what the fake refused.
func (f *judgeFake) Problems() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.problems)
}

// Asked returns how many requests of a judge kind arrived.
func (f *judgeFake) Asked(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked[kind]
}

func (f *judgeFake) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+f.key {
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}`)
		return
	}
	if r.Method != "POST" || r.URL.Path != "/v1/chat/completions" {
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"Unknown route"}}`)
		return
	}
	var body struct {
		Model          string           `json:"model"`
		Messages       []map[string]any `json:"messages"`
		ResponseFormat map[string]any   `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" || len(body.Messages) == 0 {
		f.problem(w, "model and messages are required")
		return
	}
	system, user := "", ""
	for _, m := range body.Messages {
		switch m["role"] {
		case "system", "developer":
			system += fmt.Sprint(m["content"])
		case "user":
			user += fmt.Sprint(m["content"])
		}
	}
	var kind string
	switch {
	case strings.HasPrefix(system, "You grade what an AI answer engine said"):
		kind = "probe_verdict"
	case strings.HasPrefix(system, "You decide whether a word at the start of a sentence"):
		kind = "mention_verdict"
	case strings.HasPrefix(system, "You rate the sentiment"):
		kind = "brand_sentiment"
	case strings.HasPrefix(system, "You help a marketer measure"):
		kind = "prefill"
	case strings.HasPrefix(system, "You list every brand"):
		kind = "named_brands"
	}
	var reply string
	if kind == "" {
		if body.ResponseFormat != nil {
			f.problem(w, "an engine question carries response_format %v", body.ResponseFormat)
			return
		}
		reply = f.engineAnswer(user)
	} else {
		if msg := checkSchema(kind, body.ResponseFormat); msg != "" {
			f.problem(w, "%s: %s", kind, msg)
			return
		}
		f.mu.Lock()
		f.asked[kind]++
		f.mu.Unlock()
		var out any
		switch kind {
		case "probe_verdict":
			out = judgeProbe(user)
		case "mention_verdict":
			v, ok := f.judgeMention(user)
			if !ok {
				f.problem(w, "mention judge: no scripted verdict for %q", user)
				return
			}
			out = map[string]any{"namesBrand": v}
		case "brand_sentiment":
			out = judgeSentiment(user)
		case "named_brands":
			v, msg := judgeNamedBrands(system, user)
			if msg != "" {
				f.problem(w, "discovery judge: %s", msg)
				return
			}
			out = v
		case "prefill":
			out = map[string]any{
				"competitors": []any{map[string]any{"name": "Simple Analytics", "domain": "simpleanalytics.com"}},
				"prompts":     []any{"Which web analytics tool respects visitors' privacy?"},
			}
		}
		b, _ := json.Marshal(out)
		reply = string(b)
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-j", "object": "chat.completion", "created": 1700000000, "model": body.Model + "-2026-01-01",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
	})
}

// checkSchema checks response_format as OpenAI's structured outputs take
// it: type json_schema, a name, strict, and the judge's schema with its
// lists as JSON arrays.
func checkSchema(kind string, rf map[string]any) string {
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js == nil {
		return fmt.Sprintf("response_format must be {type: json_schema, json_schema: {...}}, got %v", rf)
	}
	if js["name"] != kind || js["strict"] != true {
		return fmt.Sprintf("json_schema.name must be %q and strict true, got %v / %v", kind, js["name"], js["strict"])
	}
	schema, _ := js["schema"].(map[string]any)
	if schema["type"] != "object" || schema["additionalProperties"] != false {
		return "json_schema.schema must be a closed object"
	}
	for path, want := range judgeSchemas[kind] {
		var v any = schema
		for _, k := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		list, _ := v.([]any)
		got := make([]string, 0, len(list))
		for _, e := range list {
			s, _ := e.(string)
			got = append(got, s)
		}
		if list == nil || !slices.Equal(got, want) {
			return fmt.Sprintf("schema.%s must be the array %q, got %v", path, want, v)
		}
	}
	return ""
}

func (f *judgeFake) engineAnswer(question string) string {
	for q, a := range f.answers {
		if strings.HasPrefix(question, q) {
			return a
		}
	}
	return "I don't know."
}

var sentenceLine = regexp.MustCompile(`(?m)^Sentence: (.*)$`)

// judgeMention answers from the sentence the judge is shown.
func (f *judgeFake) judgeMention(prompt string) (bool, bool) {
	m := sentenceLine.FindStringSubmatch(prompt)
	if m == nil {
		return false, false
	}
	v, ok := f.namesBrand[strings.TrimSpace(m[1])]
	return v, ok
}

// judgeProbe grades the answer against the site fact as a capable judge
// does: an answer that says it does not know is unknown; one that states
// the fact's key terms is correct; one that states some is partly.
func judgeProbe(prompt string) map[string]any {
	fact := between(prompt, "Site fact: ", "\n")
	_, answer, _ := strings.Cut(prompt, "Answer to grade:\n")
	la, lf := strings.ToLower(answer), strings.ToLower(fact)
	out := map[string]any{"verdict": "wrong", "explanation": "The answer describes something else.", "entities": []any{}}
	switch {
	case strings.Contains(la, "don't know") || strings.Contains(la, "no information"):
		out["verdict"], out["explanation"] = "unknown", "The engine says it does not know."
	case strings.Contains(lf, "privacy-friendly") && strings.Contains(la, "privacy-friendly") && strings.Contains(la, "analytics"):
		out["verdict"], out["explanation"] = "correct", "Privacy-friendly web analytics, as the site says."
		out["entities"] = []any{map[string]any{"name": "Plausible", "kind": "brand"}, map[string]any{"name": "web analytics", "kind": "category"}}
	case strings.Contains(lf, "privacy-friendly") && strings.Contains(la, "analytics"):
		out["verdict"], out["explanation"] = "partly", "Analytics, but not the privacy the site stresses."
	case strings.Contains(lf, "estonia") && strings.Contains(la, "estonia"):
		out["verdict"], out["explanation"] = "correct", "Based in Estonia."
		out["entities"] = []any{map[string]any{"name": "Estonia", "kind": "location"}}
	case strings.Contains(lf, "fathom") && strings.Contains(la, "fathom") && strings.Contains(la, "matomo"):
		out["verdict"], out["explanation"] = "correct", "Both competitors named."
		out["entities"] = []any{map[string]any{"name": "Fathom", "kind": "competitor"}, map[string]any{"name": "Matomo", "kind": "competitor"}}
	}
	return out
}

var brandBlock = regexp.MustCompile(`(?m)^Brand "([^"]+)" \(([^)]*)\):\n((?:- .*\n?)*)`)

// judgeSentiment rates each brand from the sentences shown for it: advice
// to avoid it or outages are negative, praise positive, a listing neutral.
func judgeSentiment(prompt string) map[string]any {
	var brands []any
	for _, m := range brandBlock.FindAllStringSubmatch(prompt, -1) {
		text := strings.ToLower(m[3])
		name := strings.ToLower(m[2])
		label, score := "neutral", 50
		switch {
		case strings.Contains(text, "avoid "+name):
			label, score = "negative", 15
		case strings.Contains(text, name+" is the safest choice"), strings.Contains(text, name+" answers marketing questions"):
			label, score = "positive", 85
		}
		brands = append(brands, map[string]any{"brand": m[1], "label": label, "score": score})
	}
	return map[string]any{"brands": brands}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

// enclosedAnswer is the answer as the discovery judge must get it: inside
// the untrusted-data envelope, whose nonce the system prompt's rule names.
var enclosedAnswer = regexp.MustCompile(`(?s)<untrusted-data id="([0-9a-f]{32})" source="[^"]+">\n(.*)\n</untrusted-data id="([0-9a-f]{32})">`)

// knownNames are the brands a capable model recognises in the answers.
var knownNames = []string{"Plausible", "Fathom", "Matomo", "Umami", "Google Analytics"}

// judgeNamedBrands lists the known brands the enclosed answer names, in
// order of appearance, as the discovery judge; it refuses an answer that
// is not enclosed as untrusted data.
func judgeNamedBrands(system, prompt string) (map[string]any, string) {
	m := enclosedAnswer.FindStringSubmatch(prompt)
	if m == nil || m[1] != m[3] || !strings.Contains(system, m[1]) {
		return nil, fmt.Sprintf("the answer is not enclosed as untrusted data under the system prompt's nonce: %q", prompt)
	}
	text := m[2]
	type at struct {
		name string
		i    int
	}
	var found []at
	for _, n := range knownNames {
		if i := strings.Index(text, n); i >= 0 && !strings.HasPrefix(text[i:], "Plausible as it sounds") {
			found = append(found, at{n, i})
		}
	}
	slices.SortFunc(found, func(a, b at) int { return a.i - b.i })
	brands := []any{}
	for _, f := range found {
		d := ""
		if f.name == "Umami" {
			d = "umami.is"
		}
		brands = append(brands, map[string]any{"name": f.name, "domain": d})
	}
	return map[string]any{"brands": brands}, ""
}
