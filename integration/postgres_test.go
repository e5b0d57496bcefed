package integration_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

func TestServeOnPostgres(t *testing.T) {
	t.Parallel()
	db := testenv.NewSchema(t, testenv.DatabaseURL(t))
	openai := newFakeOpenAI(t, "sk-test")
	env := map[string]string{"HERALD_DATABASE_URL": db, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1"}
	p := harness.Start(t, harness.Options{Env: env, AllowLog: []harness.Allow{harness.Allow{Match: `HERALD_SECRET_KEY is not set`, Why: "a distributed host without a shared secret key warns at start; these hosts store no credentials"}}})
	if !strings.HasPrefix(p.Key, "hk_") {
		t.Fatalf("no key printed:\n%s", p.Output())
	}
	if !strings.Contains(p.Output(), "store=postgres") {
		t.Fatalf("not serving from PostgreSQL:\n%s", p.Output())
	}
	out, err := p.Run(context.Background(), "keys", "create", "--workspace", "pg2")
	if err != nil {
		t.Fatal(err)
	}
	key := harness.LastLine(out)
	if status, _ := call(t, "POST", p.URL+"/v1/ai/generate/brand-voice/text", key, `{"content":"on postgres"}`); status != 201 {
		t.Fatalf("create: %d", status)
	}
	if status, body := call(t, "GET", p.URL+"/v1/ai/brand-voice/", key, ""); status != 200 || len(body["data"].([]any)) != 1 {
		t.Fatalf("list: %d %v", status, body)
	}
	if status, _ := call(t, "GET", p.URL+"/readyz", "", ""); status != 200 {
		t.Fatalf("readyz: %d", status)
	}
	// In distributed mode images are stored in the database, so any host
	// serves them: a second host on the same database serves the first's.
	status, body := call(t, "POST", p.URL+"/v1/ai/generate/image", key, `{"text":"a harbour"}`)
	if status != 200 {
		t.Fatalf("image: %d %v", status, body)
	}
	url := body["data"].(map[string]any)["url"].(string)
	other := harness.Start(t, harness.Options{Env: env, Key: p.Key, AllowLog: []harness.Allow{harness.Allow{Match: `HERALD_SECRET_KEY is not set`, Why: "a distributed host without a shared secret key warns at start; these hosts store no credentials"}}})
	res, err := http.Get(other.URL + url[strings.Index(url, "/v1/blobs/"):])
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, tinyPNG) {
		t.Fatalf("the other host does not serve the image: %d", res.StatusCode)
	}
}
