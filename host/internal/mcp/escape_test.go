package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// escapeCompact must be json.Marshal(json.RawMessage(raw)) for compact
// JSON, and refuse JSON with whitespace between tokens.
func TestEscapeCompactIsEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{}`, `[]`, `"x"`, `12`, `null`,
		`{"a":"<b>&amp;</b>","b":["x\"<",">\\","\u2028","` + "\u2028\u2029" + `"],"c":{"d":null,"e":-1.5e3}}`,
		`{"text":"line\nbreak \\\" quote \\\\ back","emoji":"😀 é","ctl":"\u0001"}`,
		`{"k":"a\\"}`, `{"\u2028<":"v"}`,
	} {
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got, ok := escapeCompact([]byte(raw))
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s %v\nwant %s", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`{ "a":1}`, "{\"a\":\n1}", `["x", "y"]`, `{"a":"b"` + "\t}"} {
		if got, ok := escapeCompact([]byte(raw)); ok {
			t.Errorf("%q: took JSON with whitespace: %s", raw, got)
		}
	}
}
