package pluginhost

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/sdk"
)

// The direct calls reach the named provider with the model as given, and a
// route whose providers cannot fine-tune says so. (The start and status of a
// real job are covered through the openai plugin in integration/.)
func TestDirectCallsAndFineTuneRouting(t *testing.T) {
	t.Parallel()
	ctl := newControl(t, nil)
	cfg := testConfig()
	addProvider(cfg, "a", "a", ctl.url)
	addProvider(cfg, "b", "b", ctl.url)
	cfg.Models["both"] = config.Model{Name: "both", Deployments: []config.Deployment{{Provider: "a"}, {Provider: "b"}}}
	b := setup(t, cfg)
	ctx := ctxT(t)

	resp, err := b.m.GenerateTextOn(ctx, "b", sdk.TextRequest{Model: "ft:base:org::x1", Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "ft:base:org::x1" || resp.Text != "b:hi" {
		t.Errorf("GenerateTextOn = %+v, want plugin b answering model ft:base:org::x1", resp)
	}
	var got []string
	err = b.m.ChatOn(ctx, "a", sdk.ChatRequest{Model: "ft:chat", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "yo"}}}, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		if ev.Finish != nil {
			got = append(got, "finish:"+ev.Finish.Model)
		}
		return nil
	}))
	if err != nil || len(got) != 1 || got[0] != "finish:ft:chat" {
		t.Errorf("ChatOn = %v, %v; want one finish from model ft:chat", got, err)
	}
	if _, err := b.m.GenerateTextOn(ctx, "nope", sdk.TextRequest{Model: "m"}); !errors.Is(err, ErrUnknownProvider) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := b.m.GetFineTune(ctx, "nope", "ftjob-1"); !errors.Is(err, ErrUnknownProvider) {
		t.Errorf("GetFineTune(unknown provider) = %v", err)
	}
	_, err = b.m.StartFineTune(ctx, "both", sdk.FineTuneRequest{TrainingFile: []byte("{}\n")})
	if sdk.ErrorCode(err) != sdk.CodeUnimplemented || !strings.Contains(err.Error(), `"both"`) {
		t.Errorf("StartFineTune on providers that cannot = %v, want unimplemented naming the model", err)
	}
	if n := b.calls("a", "StartFineTune", "unimplemented") + b.calls("b", "StartFineTune", "unimplemented"); n != 2 {
		t.Errorf("StartFineTune tried %v deployments, want both", n)
	}
	if _, err := b.m.GetFineTune(ctx, "a", "ftjob-1"); sdk.ErrorCode(err) != sdk.CodeUnimplemented {
		t.Errorf("GetFineTune on a plugin that cannot = %v", err)
	}
}
