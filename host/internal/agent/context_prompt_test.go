package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/store/storetest"
)

// The model reads the workspace's recent documents in its system prompt
// (the context the assistant answers from), with each one's id, title,
// kind, date and link; another workspace's documents are not there.
func TestTheModelReadsTheRecentDocumentsInItsContext(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ws := b.acmeP.WorkspaceID
	t0 := int64(1_790_000_000_000)
	for _, j := range []struct{ id, ws, result string }{
		{"j-mine", ws, `{"text":"# Spring widget guide\n\nBody.","model":"gpt-4o"}`},
		{"j-theirs", "another-workspace", `{"text":"Their secret plan"}`},
	} {
		if _, err := storetest.Exec(ctx, b.store, `INSERT INTO jobs (id, workspace_id, queue, name, state, data, result, max_attempts, run_at, created_at, finished_on)
			VALUES ($1, $2, 'aiQueue', 'text_generation', 'completed', '{}', $3, 3, $4, $4, $4)`, j.id, j.ws, j.result, t0); err != nil {
			t.Fatal(err)
		}
	}
	url := "https://blog.acme.test/launch"
	if _, err := storetest.Exec(ctx, b.store, `INSERT INTO schedules (id, workspace_id, user_id, export_to, status, content, external_url, published_at, created_at, updated_at)
		VALUES ('s-pub', $1, 'u', 'webhook', 'published', '{"title":"Launch notes"}', $2, $3, $3, $3)`, ws, url, t0+86_400_000); err != nil {
		t.Fatal(err)
	}

	b.chat(t, b.acme, `{"model":"gpt-4o","text":"What did we publish lately?"}`).Want(t, 200)
	calls := b.fake.calls()
	system := fmt.Sprint(calls[len(calls)-1].Messages[0]["content"])
	const marker = "Workspace context (JSON): "
	i := strings.Index(system, marker)
	if i < 0 {
		t.Fatalf("system prompt has no workspace context: %s", system)
	}
	line, _, _ := strings.Cut(system[i+len(marker):], "\n")
	var wctx struct {
		Documents []map[string]any `json:"documents"`
	}
	if err := json.Unmarshal([]byte(line), &wctx); err != nil {
		t.Fatalf("workspace context is not JSON: %v\n%s", err, line)
	}
	got, _ := json.Marshal(wctx.Documents)
	want := `[{"date":"2026-09-22T14:13:20Z","id":"s-pub","kind":"published_post","link":"https://blog.acme.test/launch","title":"Launch notes"},` +
		`{"date":"2026-09-21T14:13:20Z","id":"j-mine","kind":"generated_text","link":"/v1/ai/generate/job/j-mine","title":"Spring widget guide"}]`
	if string(got) != want {
		t.Fatalf("documents in the model's context =\n%s\nwant\n%s", got, want)
	}
}
