package finetune_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/agentstore"
	"github.com/heraldhq/herald/host/internal/store/finetunestore"
	"testing"
	"time"

	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/sdk"
)

// direct records the provider and model a fine-tuned call reached.
type direct struct{ provider, model string }

func (d *direct) GenerateTextOn(_ context.Context, provider string, req sdk.TextRequest) (sdk.TextResponse, error) {
	d.provider, d.model = provider, req.Model
	return sdk.TextResponse{Text: "tuned", Model: req.Model}, nil
}

func (d *direct) ChatOn(_ context.Context, provider string, req sdk.ChatRequest, stream sdk.ChatStream) error {
	d.provider, d.model = provider, req.Model
	return stream.Send(sdk.ChatEvent{Finish: &sdk.ChatFinish{FinishReason: "stop", Model: req.Model}})
}

func workspace(t *testing.T, st *store.Store, name string) store.Workspace {
	t.Helper()
	ws, _, err := st.EnsureWorkspaceUser(context.Background(), name, "business", "owner@"+name)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func insertJob(t *testing.T, st *store.Store, j finetunestore.FineTuningJob) {
	t.Helper()
	if err := finetunestore.New(st).InsertFineTuningJob(context.Background(), &j); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestFtNamesOnlyTheCallersWorkspaceNewestFinishedModel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		acme, globex := workspace(t, st, "acme"), workspace(t, st, "globex")
		insertJob(t, st, finetunestore.FineTuningJob{WorkspaceID: acme.ID, Provider: "openai", ProviderJobID: "j1", BaseModel: "gpt-4o-mini", Status: "succeeded", FineTunedModel: ptr("ft:gpt-4o-mini:acme::old"), CreatedAt: 1000})
		insertJob(t, st, finetunestore.FineTuningJob{WorkspaceID: acme.ID, Provider: "openai-eu", ProviderJobID: "j2", BaseModel: "gpt-4o-mini", Status: "succeeded", FineTunedModel: ptr("ft:gpt-4o-mini:acme::new"), CreatedAt: 2000})
		// A newer job still running does not replace the finished model.
		insertJob(t, st, finetunestore.FineTuningJob{WorkspaceID: acme.ID, Provider: "openai", ProviderJobID: "j3", BaseModel: "gpt-4o-mini", Status: "running", CreatedAt: 3000})
		insertJob(t, st, finetunestore.FineTuningJob{WorkspaceID: globex.ID, Provider: "openai", ProviderJobID: "j4", BaseModel: "gpt-4o-mini", Status: "failed", Error: ptr("bad file"), CreatedAt: 1000})

		d := &direct{}
		r := finetune.NewResolver(st, d)
		tests := []struct {
			name, workspace, model string
			want                   *finetune.Target
		}{
			{"the workspace's own name leads to its newest succeeded model", acme.ID, "ft:acme", &finetune.Target{Provider: "openai-eu", Model: "ft:gpt-4o-mini:acme::new"}},
			{"another workspace naming it gets nothing", globex.ID, "ft:acme", nil},
			{"a workspace whose jobs all failed has no model", globex.ID, "ft:globex", nil},
			{"the workspace id is not the name", acme.ID, "ft:" + acme.ID, nil},
			{"an ordinary model is not resolved", acme.ID, "gpt-4o", nil},
			{"ft: alone is nothing", acme.ID, "ft:", nil},
		}
		for _, tt := range tests {
			got, ok, err := r.Resolve(ctx, tt.workspace, tt.model)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if ok != (tt.want != nil) || (ok && got != *tt.want) {
				t.Errorf("%s: Resolve(%s) = %+v, %v; want %+v", tt.name, tt.model, got, ok, tt.want)
			}
		}
		if _, ok, err := (*finetune.Resolver)(nil).Resolve(ctx, acme.ID, "ft:acme"); ok || err != nil {
			t.Errorf("a nil resolver resolved: %v %v", ok, err)
		}
		target, _, _ := r.Resolve(ctx, acme.ID, "ft:acme")
		res, err := r.GenerateText(ctx, target, sdk.TextRequest{Model: "ft:acme", Prompt: "hi"})
		if err != nil || d.provider != "openai-eu" || d.model != "ft:gpt-4o-mini:acme::new" || res.Text != "tuned" {
			t.Errorf("GenerateText reached %s/%s (%v), want openai-eu and the provider's model id", d.provider, d.model, err)
		}
	})
}

// upRated stores n exchanges of the workspace rated up, in a session its
// owner opted in to training.
func upRated(t *testing.T, st *store.Store, ws store.Workspace, n int) {
	t.Helper()
	ctx := context.Background()
	_, user, err := st.EnsureWorkspaceUser(ctx, ws.Name, "business", "owner@"+ws.Name)
	if err != nil {
		t.Fatal(err)
	}
	c := agentstore.ChatSession{WorkspaceID: ws.ID, UserID: user.ID, TrainingOptIn: true}
	if err := agentstore.New(st).CreateChatSession(ctx, &c); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		blocks := []agentstore.ChatBlock{
			{Role: "user", Type: "text", Content: fmt.Sprintf("%q", fmt.Sprint("question ", i))},
			{Role: "assistant", Type: "text", Content: fmt.Sprintf("%q", fmt.Sprint("answer ", i))},
		}
		if err := agentstore.New(st).AppendChatBlocks(ctx, ws.ID, user.ID, c.ID, "training", "gpt-4o", blocks); err != nil {
			t.Fatal(err)
		}
		f := agentstore.Feedback{WorkspaceID: ws.ID, UserID: user.ID, TargetKind: agentstore.FeedbackChatBlock, TargetID: blocks[1].ID, Rating: "up"}
		if err := agentstore.New(st).InsertFeedback(ctx, &f); err != nil {
			t.Fatal(err)
		}
	}
}

// plugins records fine-tuning calls.
type plugins struct {
	started []sdk.FineTuneRequest
	job     sdk.FineTuneJob
	err     error
}

func (p *plugins) StartFineTune(_ context.Context, model string, req sdk.FineTuneRequest) (pluginhost.FineTuneStart, error) {
	p.started = append(p.started, req)
	return pluginhost.FineTuneStart{Provider: "openai", BaseModel: model + "-2024-07-18", Job: p.job}, p.err
}

func (p *plugins) GetFineTune(context.Context, string, string) (sdk.FineTuneJob, error) {
	return p.job, p.err
}

func TestStartRefusesTooFewExamplesBeforeUploadingAnything(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	ctx := context.Background()
	acme := workspace(t, st, "Acme Corp")
	pl := &plugins{job: sdk.FineTuneJob{ID: "ftjob-1", Status: sdk.FineTuneValidatingFiles}}
	svc, err := finetune.New(finetune.Deps{Store: st, Plugins: pl})
	if err != nil {
		t.Fatal(err)
	}
	in := finetune.StartInput{WorkspaceID: acme.ID, WorkspaceName: acme.Name, Model: "gpt-4o-mini"}

	upRated(t, st, acme, finetune.MinExamples-1)
	_, err = svc.Start(ctx, in)
	var few *finetune.TooFewExamplesError
	if !errors.As(err, &few) || few.Have != 9 || len(pl.started) != 0 {
		t.Fatalf("9 examples: %v after %d starts, want TooFewExamplesError and nothing started", err, len(pl.started))
	}
	if _, err := finetunestore.New(st).LatestFineTuningJob(ctx, acme.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused start stored a job: %v", err)
	}

	upRated(t, st, acme, 1)
	j, err := svc.Start(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.started) != 1 || pl.started[0].Suffix != "acme-corp" || pl.started[0].BaseModel != "gpt-4o-mini" {
		t.Errorf("started %+v, want one job of gpt-4o-mini with suffix acme-corp", pl.started)
	}
	stored, err := finetunestore.New(st).LatestFineTuningJob(ctx, acme.ID)
	if err != nil || stored.ID != j.ID || stored.Provider != "openai" || stored.ProviderJobID != "ftjob-1" || stored.BaseModel != "gpt-4o-mini-2024-07-18" || stored.Status != "validating_files" {
		t.Errorf("stored %+v (%v)", stored, err)
	}

	pl.err = &sdk.Error{Code: sdk.CodeRateLimited, Message: "slow down"}
	if _, err := svc.Start(ctx, in); sdk.ErrorCode(err) != sdk.CodeRateLimited {
		t.Errorf("a failing provider: %v", err)
	}
	if latest, _ := finetunestore.New(st).LatestFineTuningJob(ctx, acme.ID); latest.ID != j.ID {
		t.Errorf("a failed start stored job %s", latest.ID)
	}
}

func TestLatestRefreshesAnUnfinishedJobFromItsProvider(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	ctx := context.Background()
	acme := workspace(t, st, "acme")
	done := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	pl := &plugins{err: errors.New("down")}
	svc, err := finetune.New(finetune.Deps{Store: st, Plugins: pl})
	if err != nil {
		t.Fatal(err)
	}
	if j, err := svc.Latest(ctx, acme.ID); j != nil || err != nil {
		t.Fatalf("no job yet: %+v %v", j, err)
	}
	insertJob(t, st, finetunestore.FineTuningJob{ID: "j", WorkspaceID: acme.ID, Provider: "openai", ProviderJobID: "ftjob-1", BaseModel: "gpt-4o-mini", Status: "running", CreatedAt: 5})
	if j, err := svc.Latest(ctx, acme.ID); err != nil || j == nil || j.Status != "running" {
		t.Fatalf("a failing provider: %+v %v, want the stored status", j, err)
	}
	pl.err = nil
	pl.job = sdk.FineTuneJob{ID: "ftjob-1", Status: sdk.FineTuneSucceeded, FineTunedModel: "ft:m:acme::1", FinishedAt: done}
	got, err := svc.Latest(ctx, acme.ID)
	if err != nil || got.Status != "succeeded" || got.FineTunedModel == nil || got.FinishedAt == nil || *got.FineTunedModel != "ft:m:acme::1" || *got.FinishedAt != done.UnixMilli() || got.ID != "j" || got.CreatedAt != 5 {
		t.Errorf("refreshed = %+v (%v)", got, err)
	}
	if stored, _ := finetunestore.New(st).LatestFineTuningJob(ctx, acme.ID); stored.Status != "succeeded" {
		t.Errorf("the refreshed state was not stored: %+v", stored)
	}
}
