package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/testlog"

	"github.com/hashicorp/go-hclog"

	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/voice"
)

// A request answered 5xx is logged at error level, its duration in ms.
func TestServerErrorsLogAtErrorLevel(t *testing.T) {
	t.Parallel()
	s := storetest.SQLite(t)
	key, err := auth.CreateKey(t.Context(), s, "acme", "business", "a@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	srv := apitest.Start(t, api.Deps{
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Info, JSONFormat: true}),
		Store:  s, Voices: voiceAPI(t, voice.Deps{Store: s}),
	})
	get := func() int { return srv.Do(t, "GET", "/v1/ai/brand-voice/", key, "").Status }
	if st := get(); st != 200 {
		t.Fatalf("status %d", st)
	}
	if strings.Contains(logs.String(), `"@message":"request"`) {
		t.Fatalf("a 200 was logged at info level:\n%s", logs.String())
	}
	s.Close()
	if st := get(); st != 500 {
		t.Fatalf("closed store: status %d, want 500", st)
	}
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["@message"] != "request" {
			continue
		}
		found = true
		if m["@level"] != "error" || m["status"] != float64(500) {
			t.Fatalf("request line %s: want level error, status 500", line)
		}
		if _, ok := m["duration_ms"].(float64); !ok {
			t.Fatalf("request line %s: no duration_ms", line)
		}
	}
	if !found {
		t.Fatalf("no request line for the 500:\n%s", logs.String())
	}
}
