package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/voicestore"
	"io"

	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/store"
)

const finetuneUsage = "usage: herald finetune start --workspace NAME --model MODEL [--voice BRAND_VOICE_ID]"

// finetuneCmd is `herald finetune start`: it builds the workspace's training
// file from its up-rated chat exchanges, starts a job of a configured model
// through its provider plugin and stores it as the workspace's latest job
// (GET /v1/ai/chat/getFineTuningJob follows it; once it succeeded the
// workspace may call the model ft:NAME).
func finetuneCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "start" {
		return errors.New(finetuneUsage)
	}
	fs, f := newFlagSet("finetune start", stderr, false)
	workspace := fs.String("workspace", "", "workspace name")
	model := fs.String("model", "", "configured model (or alias) to fine-tune; its first deployment whose provider can fine-tune runs the job")
	voiceID := fs.String("voice", "", "brand voice whose prompt is the examples' system message (default: a generic assistant instruction)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *workspace == "" || *model == "" {
		return fmt.Errorf("finetune start: --workspace and --model are required (%s)", finetuneUsage)
	}
	st, cfg, err := f.open(ctx, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	ws, err := workspaceNamed(ctx, st, "finetune start: --workspace", *workspace)
	if err != nil {
		return err
	}
	voice := ""
	if *voiceID != "" {
		v, err := voicestore.New(st).GetWorkspaceVoice(ctx, ws.ID, *voiceID)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("finetune start: --voice: workspace %q has no brand voice %q", *workspace, *voiceID)
		}
		if err != nil {
			return err
		}
		voice = generate.VoiceSystem(&generate.Voice{ID: v.ID, Name: v.Name, Content: v.Content}, "")
	}
	log := newLogger(cfg, stderr)
	mgr, err := pluginhost.NewManager(log, cfg, nil)
	if err != nil {
		return err
	}
	defer mgr.Close()
	tuning, err := finetune.New(finetune.Deps{Store: st, Plugins: mgr, Logger: log})
	if err != nil {
		return err
	}
	job, err := tuning.Start(ctx, finetune.StartInput{WorkspaceID: ws.ID, WorkspaceName: ws.Name, Model: *model, Voice: voice})
	if err != nil {
		return fmt.Errorf("finetune start: %w", err)
	}
	fmt.Fprintf(stdout, "Started fine-tuning job %s: provider %s, provider job %s, base model %s, status %s.\n", job.ID, job.Provider, job.ProviderJobID, job.BaseModel, job.Status)
	fmt.Fprintf(stdout, "GET /v1/ai/chat/getFineTuningJob follows it; once it succeeded, workspace %q may use the model %q.\n", ws.Name, finetune.ModelName(ws.Name))
	return nil
}
