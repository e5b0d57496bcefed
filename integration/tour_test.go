package integration_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
)

// Every command of the README's five-minute tour, run in order against a
// fresh Herald, gets the status the README shows after it ("# → 201").
// `go run ./host ...` runs the built binary with the same arguments; curl
// commands are read as a shell would (quotes, $VARIABLES, line
// continuations) and sent with their method, headers and body. A comment
// "copy .a.b into NAME" sets $NAME from the answer, as a reader would.
func TestTheREADMETourRunsAsWritten(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(harness.Root(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(readme), "## A five-minute tour")
	if !ok {
		t.Fatal("README has no five-minute tour")
	}
	tour, _, _ = strings.Cut(tour, "\n## ")
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(tour, -1)
	if len(blocks) < 8 {
		t.Fatalf("the tour has %d command blocks", len(blocks))
	}
	p := harness.Start(t, harness.Options{Env: withEnv(nil), AllowLog: []harness.Allow{
		{Match: "model deployment cooling down", Why: "a fresh Herald has no provider keys; the tour's tracker names engines it cannot reach yet, as the README says"},
	}})
	vars := map[string]string{}
	want := regexp.MustCompile(`# → (\d{3})`)
	copyInto := regexp.MustCompile(`[Cc]opy (\.[\w.]+) into (\w+)`)
	ran := 0
	for _, b := range blocks {
		var cmd []string
		var comments []string
		for _, line := range strings.Split(b[1], "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				comments = append(comments, line)
			} else if strings.TrimSpace(line) != "" {
				cmd = append(cmd, line)
			}
		}
		text := strings.ReplaceAll(strings.Join(cmd, "\n"), "\\\n", " ")
		words := shellWords(t, text, vars)
		ran++
		switch {
		case len(words) > 3 && words[0] == "go" && words[1] == "run" && words[2] == "./host":
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			out, err := harness.RunCommand(ctx, t, p.DataDir, withEnv(nil), words[3:]...)
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			if words[3] == "keys" {
				vars["KEY"] = harness.LastLine(out)
			}
		case len(words) > 0 && words[0] == "curl":
			m := want.FindStringSubmatch(strings.Join(comments, "\n"))
			if m == nil {
				t.Fatalf("no '# → status' after %s", text)
			}
			status, body := curl(t, p.URL, words)
			if code, _ := strconv.Atoi(m[1]); status != code {
				t.Errorf("%s\n→ %d %s, the README shows %d", text, status, body, code)
			}
			for _, c := range copyInto.FindAllStringSubmatch(strings.Join(comments, "\n"), -1) {
				vars[c[2]] = jsonPath(t, body, c[1])
			}
		default:
			t.Fatalf("the tour runs only go run ./host and curl: %s", text)
		}
	}
	// The prose sets SITE by hand ("Copy .siteKey into SITE=ks_..."):
	// the test read that instruction like the comments.
	t.Logf("%d tour commands ran", ran)
}

// shellWords splits a command as sh would: single quotes keep everything,
// double quotes and bare words expand $NAME.
func shellWords(t *testing.T, s string, vars map[string]string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	expand := func(i int) int { // s[i] == '$'; returns the index after the name
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		name := s[i+1 : j]
		v, ok := vars[name]
		if !ok {
			t.Fatalf("$%s is used before the tour sets it", name)
		}
		cur.WriteString(v)
		return j
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 2
			inWord = true
		case c == '"':
			i++
			for i < len(s) && s[i] != '"' {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					cur.WriteByte(s[i+1])
					i += 2
				case s[i] == '$':
					i = expand(i)
				default:
					cur.WriteByte(s[i])
					i++
				}
			}
			i++
			inWord = true
		case c == '$':
			i = expand(i)
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		default:
			cur.WriteByte(c)
			i++
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// curl sends what a curl command line says: -X, -H, -d and the URL, with
// the README's address replaced by the test's Herald.
func curl(t *testing.T, base string, words []string) (int, string) {
	t.Helper()
	method, target, body := "", "", ""
	header := http.Header{}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; w {
		case "-s", "-S", "-sS":
		case "-X":
			i++
			method = words[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(words[i], ":")
			header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		case "-d", "--data":
			i++
			body = words[i]
		default:
			if strings.HasPrefix(w, "-") {
				t.Fatalf("curl option %s is not understood", w)
			}
			target = w
		}
	}
	if method == "" {
		method = "GET"
		if body != "" {
			method = "POST"
		}
	}
	target = strings.Replace(target, "http://127.0.0.1:8080", base, 1)
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, string(out)
}

// jsonPath reads .a.b of a JSON object as a string.
func jsonPath(t *testing.T, body, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s of %s is not a string", path, body)
	}
	return s
}
