package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The MCP endpoint's refusal reads as the API's: the reason alone, without
// the code name ("unauthenticated: ...") in front of it.
func TestUnauthenticatedMessagesMatchTheAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for key, want := range map[string]string{"": "missing api-key header", "hk_nope": "invalid API key"} {
		req, _ := http.NewRequest("POST", b.url+"/mcp", strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("api-key", key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]string
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusUnauthorized || body["message"] != want {
			t.Errorf("key %q: %d %v (%v), want 401 %q", key, res.StatusCode, body, err, want)
		}
		if status, rest := b.rest(t, "GET", "/v1/ai/brand-voice", key, ""); status != http.StatusUnauthorized || rest["message"] != body["message"] {
			t.Errorf("key %q: REST says %d %q, MCP %q", key, status, rest["message"], body["message"])
		}
	}
}
