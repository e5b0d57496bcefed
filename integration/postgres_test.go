package integration_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/integration/testenv"
)

func TestServeOnPostgres(t *testing.T) {
	t.Parallel()
	db := testenv.NewSchema(t, testenv.DatabaseURL(t))
	env := map[string]string{"HERALD_DATABASE_URL": db}
	p := harness.Start(t, harness.Options{Env: env})
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
}
