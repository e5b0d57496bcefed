package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/sdk"
)

func TestTheTrainingFileHoldsTheExchangesWhoseLatestRatingIsUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	answer := map[string]string{}
	for _, q := range []string{"q1", "q2", "q3"} {
		res := b.chat(t, b.acme, fmt.Sprintf(`{"model":"gpt-4o","text":%q,"sessionId":"train"}`, q)).Want(t, 200)
		answer[q] = blocks(t, res.Data(t)["blocks"])[1]["id"].(string)
	}
	rate := func(key, q, rating string, status int) {
		b.srv.Do(t, "POST", "/v1/ai/chat/feedback", key, fmt.Sprintf(`{"sessionId":"train","blockId":%q,"rating":%q}`, answer[q], rating)).Want(t, status)
	}
	rate(b.acme, "q1", "up", 201)
	rate(b.acme, "q2", "up", 201)
	rate(b.acme, "q2", "down", 201)
	rate(b.acme, "q3", "down", 201)
	rate(b.other, "q3", "up", 404)
	b.srv.Do(t, "PUT", "/v1/ai/chat/session/train/training", b.acme, `{"trainingOptIn":true}`).Want(t, 200)

	file, n, err := b.tune.TrainingFile(context.Background(), b.acmeP.WorkspaceID, "Speak plainly.")
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
	pl := &refreshing{}
	tune, err := finetune.New(finetune.Deps{Store: b.store, Plugins: pl})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := agent.New(agent.Deps{Store: b.store, Quota: b.quota, Models: newOpenAIModels(t, b.fake), FineTune: tune})
	if err != nil {
		t.Fatal(err)
	}
	if err := finetunestore.New(b.store).InsertFineTuningJob(ctx, &finetunestore.FineTuningJob{WorkspaceID: b.acmeP.WorkspaceID, Provider: "openai", ProviderJobID: "ftjob-9", BaseModel: "gpt-4o-mini", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		j, err := svc.FineTuningJob(ctx, b.acmeP)
		if err != nil || j.Status != "succeeded" || *j.FineTunedModel != "ft:gpt-4o-mini:acme:1" {
			t.Fatalf("job %+v %v", j, err)
		}
	}
	if pl.asked != 1 {
		t.Fatalf("the provider was asked %d times; a finished job is not asked again", pl.asked)
	}
}

// refreshing is a provider plugin whose fine-tuning jobs have succeeded;
// it counts the refreshes.
type refreshing struct{ asked int }

func (r *refreshing) StartFineTune(context.Context, string, sdk.FineTuneRequest) (pluginhost.FineTuneStart, error) {
	return pluginhost.FineTuneStart{}, errors.New("not started in this test")
}

func (r *refreshing) GetFineTune(context.Context, string, string) (sdk.FineTuneJob, error) {
	r.asked++
	return sdk.FineTuneJob{Status: sdk.FineTuneSucceeded, FineTunedModel: "ft:gpt-4o-mini:acme:1", FinishedAt: time.UnixMilli(1_800_000_000_000)}, nil
}

// Chat sessions are personal: fine-tuning trains only on the sessions
// whose owner opted in, and only the owner can opt a session in.
func TestFineTuningTrainsOnlyOnSessionsTheirOwnerOptedIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	upRate := func(key, session, text string) {
		t.Helper()
		res := b.chat(t, key, fmt.Sprintf(`{"model":"gpt-4o","text":%q,"sessionId":%q}`, text, session)).Want(t, 200)
		id := blocks(t, res.Data(t)["blocks"])[1]["id"].(string)
		b.srv.Do(t, "POST", "/v1/ai/chat/feedback", key, fmt.Sprintf(`{"sessionId":%q,"blockId":%q,"rating":"up"}`, session, id)).Want(t, 201)
	}
	upRate(b.acme, "mine", "my question")
	upRate(b.mate, "theirs", "a teammate's private question")
	examples := func() string {
		t.Helper()
		file, _, err := b.tune.TrainingFile(ctx, b.acmeP.WorkspaceID, "")
		if err != nil {
			t.Fatal(err)
		}
		return string(file)
	}
	if got := examples(); got != "" {
		t.Fatalf("sessions nobody opted in were used for training: %s", got)
	}
	// A teammate cannot opt another user's session in; another workspace
	// cannot see it at all.
	b.srv.Do(t, "PUT", "/v1/ai/chat/session/theirs/training", b.acme, `{"trainingOptIn":true}`).Want(t, 404)
	b.srv.Do(t, "PUT", "/v1/ai/chat/session/theirs/training", b.other, `{"trainingOptIn":true}`).Want(t, 404)
	res := b.srv.Do(t, "PUT", "/v1/ai/chat/session/mine/training", b.acme, `{"trainingOptIn":true}`).Want(t, 200)
	if res.Body["session"].(map[string]any)["trainingOptIn"] != true {
		t.Fatalf("opt-in: %s", res.Raw)
	}
	if got := examples(); !strings.Contains(got, "my question") || strings.Contains(got, "private question") {
		t.Fatalf("training file after acme's opt-in: %s", got)
	}
	b.srv.Do(t, "PUT", "/v1/ai/chat/session/theirs/training", b.mate, `{"trainingOptIn":true}`).Want(t, 200)
	if got := examples(); !strings.Contains(got, "private question") {
		t.Fatalf("the teammate's opted-in session is missing: %s", got)
	}
	// Opting out again takes the session out of later jobs.
	b.srv.Do(t, "PUT", "/v1/ai/chat/session/mine/training", b.acme, `{"trainingOptIn":false}`).Want(t, 200)
	if got := examples(); strings.Contains(got, "my question") {
		t.Fatalf("an opted-out session is still used: %s", got)
	}
	list := b.srv.Do(t, "GET", "/v1/ai/chat/sessions", b.mate, "").Want(t, 200)
	if !strings.Contains(list.Raw, `"trainingOptIn":true`) {
		t.Fatalf("the session list does not show the opt-in: %s", list.Raw)
	}
}
