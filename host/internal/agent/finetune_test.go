package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/store"
)

func TestTheTrainingFileHoldsTheExchangesWhoseLatestRatingIsUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	answer := map[string]string{}
	for _, q := range []string{"q1", "q2", "q3"} {
		res := b.chat(t, b.acme, fmt.Sprintf(`{"model":"gpt-4o","text":%q,"sessionId":"train"}`, q)).want(t, 200)
		answer[q] = blocks(t, data(t, res)["blocks"])[1]["id"].(string)
	}
	rate := func(key, q, rating string, status int) {
		b.do(t, "POST", "/v1/ai/chat/feedback", key, fmt.Sprintf(`{"sessionId":"train","blockId":%q,"rating":%q}`, answer[q], rating)).want(t, status)
	}
	rate(b.acme, "q1", "up", 201)
	rate(b.acme, "q2", "up", 201)
	rate(b.acme, "q2", "down", 201)
	rate(b.acme, "q3", "down", 201)
	rate(b.other, "q3", "up", 404)

	file, n, err := b.svc.TrainingFile(context.Background(), b.acmeP.WorkspaceID, "Speak plainly.")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(file)), "\n")
	if n != 1 || len(lines) != 1 {
		t.Fatalf("%d examples, want 1 (q1): %s", n, file)
	}
	var ex struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal([]byte(lines[0]), &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Messages) != 3 || ex.Messages[0].Content != "Speak plainly." || ex.Messages[1].Content != "q1" || ex.Messages[2].Role != "assistant" || ex.Messages[2].Content != "Hello world" {
		t.Fatalf("example: %+v", ex)
	}
}

func TestAnUnfinishedFineTuningJobIsRefreshedFromTheProvider(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	asked := 0
	svc, err := agent.New(agent.Deps{Store: b.store, Models: newOpenAIModels(t, b.fake), FineTuneStatus: func(ctx context.Context, j store.FineTuningJob) (store.FineTuningJob, error) {
		asked++
		model, done := "ft:gpt-4o-mini:acme:1", int64(1_800_000_000_000)
		j.Status, j.FineTunedModel, j.FinishedAt = "succeeded", &model, &done
		return j, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.store.InsertFineTuningJob(ctx, &store.FineTuningJob{WorkspaceID: b.acmeP.WorkspaceID, Provider: "openai", ProviderJobID: "ftjob-9", BaseModel: "gpt-4o-mini", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		j, err := svc.FineTuningJob(ctx, b.acmeP)
		if err != nil || j.Status != "succeeded" || *j.FineTunedModel != "ft:gpt-4o-mini:acme:1" {
			t.Fatalf("job %+v %v", j, err)
		}
	}
	if asked != 1 {
		t.Fatalf("the provider was asked %d times; a finished job is not asked again", asked)
	}
}
