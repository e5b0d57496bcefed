package soak

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// engine is an OpenAI-compatible chat fake answering after a seeded delay
// between minDelay and maxDelay. It counts the buyer-prompt calls by model
// and question, so the run can check that every answer was asked for
// exactly as often as the samples say (no call lost, none repeated).
type engine struct {
	*httptest.Server
	mu       sync.Mutex
	rng      *rand.Rand
	asked    map[string]int // model + "\x00" + question -> calls
	calls    int
	inFlight int
	most     int
	bytes    int64
}

const (
	minDelay = 300 * time.Millisecond
	maxDelay = 1500 * time.Millisecond
	// promptMark starts every buyer prompt of the fleet: calls whose
	// question starts with it are answers; the others are probes and the
	// judge model's calls (which quote the prompt inside their question).
	promptMark = "soakq"
)

// answers are the bodies the fake picks from (seeded): prose naming the
// tracked brands in different orders, a list, a bare domain and a sources
// block with links, about 1–2 KB as engines answer buyer prompts. One of
// the three starts a sentence with "Umbrella", an ordinary word, which the
// mention rules leave to the judge model.
var answers = []string{
	"For industrial widgets most buyers shortlist three suppliers. **Fabrikam** is the usual first pick: it ships fast, publishes its tolerances and answers quotes within a day. Globex Corp is cheaper at volume but its lead times slip in the autumn. Initech (initech.com) sells mostly through distributors, which makes small orders awkward.\n\n1. Fabrikam: best overall, strong documentation, fair prices.\n2. Globex Corp: best for volume buyers who can plan ahead.\n3. Initech: good catalogue, slower support.\n\nIf you need certified parts, ask each for their ISO paperwork before you order; Fabrikam and Globex both publish theirs. Umbrella also makes widgets, but reviewers mention quality problems with its 2025 batch.\n\nSources:\n- https://www.example-reviews.com/widgets/best-suppliers\n- https://initech.com/catalogue\n",
	"There is no single best widget supplier; it depends on volume and how much support you need. Globex Corp leads on price for large runs and has warehouses on three continents. Fabrikam is the one most engineers recommend for prototypes, since it takes small orders and its parts match the datasheets. Initech is worth a look if you already buy its fasteners, and usefathom.com – similar – lists a comparison of all three.\n\nIn short: prototypes, Fabrikam; volume, Globex; bundled orders, Initech. Avoid Umbrella for anything safety-related until its recall is settled. Prices change often, so ask for a current quote.\n\n[1] https://globex.example.com/pricing\n[2] https://www.fabrikam.example/widgets\n",
	"Widget buyers usually compare Initech, Fabrikam and Globex Corp. Initech has the widest range and the best online configurator. Fabrikam's support is the most praised in forums, and it is often described as the safest choice for a first order. Globex is a solid alternative when price matters more than lead time.\n\n- **Initech**: range and configurator.\n- **Fabrikam**: support and reliability.\n- **Globex Corp**: price at scale.\n\nNone of them is a bad choice; read the return policy, check the lead time for your quantity, and order a sample batch first. Some buyers also mention Umbrella, though it is better known for other products.\n\nReferences\nhttps://www.widget-guide.example/compare\nhttps://www.fabrikam.example/support\n",
}

func newEngine(t *testing.T, seed uint64) *engine {
	e := &engine{rng: rand.New(rand.NewPCG(seed, 46)), asked: map[string]int{}}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.Close)
	return e
}

func (e *engine) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-soak" {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		return
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		ResponseFormat *struct {
			Schema struct {
				Name string `json:"name"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model == "" || len(body.Messages) == 0 {
		http.Error(w, `{"error":{"message":"model and messages are required"}}`, http.StatusBadRequest)
		return
	}
	last := fmt.Sprint(body.Messages[len(body.Messages)-1].Content)
	e.mu.Lock()
	e.calls++
	e.inFlight++
	e.most = max(e.most, e.inFlight)
	if strings.HasPrefix(last, promptMark) {
		e.asked[body.Model+"\x00"+last]++
	}
	delay := minDelay + time.Duration(e.rng.Int64N(int64(maxDelay-minDelay)))
	text := answers[e.rng.IntN(len(answers))]
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.inFlight--
		e.mu.Unlock()
	}()
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	if body.ResponseFormat != nil {
		// The judge model asking for structured output: an answer of the
		// schema it names.
		switch body.ResponseFormat.Schema.Name {
		case "mention_verdict":
			text = `{"namesBrand":true}`
		default:
			text = `{"verdict":"correct","explanation":"the answer matches the site","entities":[{"name":"Fabrikam","kind":"brand"}]}`
		}
	}
	out, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-soak", "object": "chat.completion", "created": 1700000000, "model": body.Model + "-2026-01-01",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 40, "completion_tokens": 300, "total_tokens": 340},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
	e.mu.Lock()
	e.bytes += int64(len(text))
	e.mu.Unlock()
}

// stats returns the calls so far, the most in flight at once and the
// buyer-prompt calls per model and question.
func (e *engine) stats() (calls, most int, asked map[string]int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	asked = make(map[string]int, len(e.asked))
	for k, v := range e.asked {
		asked[k] = v
	}
	return e.calls, e.most, asked
}

// newSite is the tracked brand's website over https on loopback (each run
// crawls it once); its CA is written to a file for SSL_CERT_FILE.
func newSite(t *testing.T) (url, caFile string) {
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>Fabrikam | Industrial widgets</title><meta name="description" content="Fabrikam makes industrial widgets to published tolerances.">
<script type="application/ld+json">{"@type":"Organization","name":"Fabrikam","url":"https://www.fabrikam.example"}</script></head>
<body><h1>Widgets</h1><p>Fabrikam ships industrial widgets within two days, with datasheets for every part.</p></body></html>`)
	}))
	t.Cleanup(site.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: site.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return site.URL, caFile
}
