package sdk_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// fineTuner is an echo provider that also fine-tunes: it records the
// request and answers jobs from a map.
type fineTuner struct {
	echoProvider
	got  chan sdk.FineTuneRequest
	jobs map[string]sdk.FineTuneJob
}

func (f *fineTuner) StartFineTune(_ context.Context, req sdk.FineTuneRequest) (sdk.FineTuneJob, error) {
	f.got <- req
	return f.jobs["new"], nil
}

func (f *fineTuner) GetFineTune(_ context.Context, id string) (sdk.FineTuneJob, error) {
	j, ok := f.jobs[id]
	if !ok {
		return sdk.FineTuneJob{}, sdk.Errorf(sdk.CodeNotFound, "no job %s", id)
	}
	return j, nil
}

func TestFineTuneRoundTrip(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	done := sdk.FineTuneJob{ID: "ftjob-2", Status: sdk.FineTuneSucceeded, FineTunedModel: "ft:gpt-4o-mini:acme::x1", CreatedAt: created, FinishedAt: created.Add(time.Hour)}
	failed := sdk.FineTuneJob{ID: "ftjob-3", Status: sdk.FineTuneFailed, Error: "invalid file", CreatedAt: created, FinishedAt: created.Add(time.Minute)}
	p := &fineTuner{got: make(chan sdk.FineTuneRequest, 1), jobs: map[string]sdk.FineTuneJob{
		"new":     {ID: "ftjob-1", Status: sdk.FineTuneValidatingFiles, CreatedAt: created},
		"ftjob-2": done, "ftjob-3": failed,
	}}
	client := plugintest.InProcessProvider(t, p)
	ctx := context.Background()

	req := sdk.FineTuneRequest{BaseModel: "gpt-4o-mini-2024-07-18", TrainingFile: []byte("{\"messages\":[]}\n"), Suffix: "acme"}
	job, err := client.StartFineTune(ctx, req)
	if err != nil {
		t.Fatalf("StartFineTune: %v", err)
	}
	if sent := <-p.got; !reflect.DeepEqual(sent, req) {
		t.Errorf("plugin received %+v, want %+v", sent, req)
	}
	if want := p.jobs["new"]; !reflect.DeepEqual(job, want) {
		t.Errorf("StartFineTune = %+v, want %+v (unfinished: zero FinishedAt)", job, want)
	}
	for _, want := range []sdk.FineTuneJob{done, failed} {
		got, err := client.GetFineTune(ctx, want.ID)
		if err != nil {
			t.Fatalf("GetFineTune(%s): %v", want.ID, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GetFineTune = %+v, want %+v", got, want)
		}
	}
	if _, err := client.GetFineTune(ctx, "nope"); sdk.ErrorCode(err) != sdk.CodeNotFound {
		t.Errorf("GetFineTune(unknown) = %v, want not_found", err)
	}
}
