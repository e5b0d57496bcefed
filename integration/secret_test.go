package integration_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
)

func TestEmbeddedDefaultGeneratesAndKeepsItsSecretKey(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	status, body := call(t, "POST", p.URL+"/v1/webhooks", p.Key, `{"url":"https://hooks.example.com/in","name":"ci"}`)
	if status != 201 || body["secret"] == nil {
		t.Fatalf("webhook with the generated key: %d %v\n%s", status, body, p.Output())
	}
	path := filepath.Join(p.DataDir, "secret.key")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret key file: %v %v", st, err)
	}
	before, _ := os.ReadFile(path)
	p.Kill()
	p.Restart()
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("the secret key changed across a restart")
	}
	if status, body := call(t, "GET", p.URL+"/v1/webhooks", p.Key, ""); status != 200 || len(body["webhooks"].([]any)) != 1 {
		t.Fatalf("webhooks after restart: %d %v", status, body)
	}
}
