// Package finetune is the one home of fine-tuning on the host side (it has
// no routes of its own): the Service builds a workspace's training file
// from its up-rated chat exchanges (TrainingFile), starts a job through a
// provider plugin (Start, behind `herald finetune start`) and answers the
// workspace's latest job, refreshed from its provider while unfinished
// (Latest, behind the agent's getFineTuningJob route); the Resolver routes
// the model name ft:<workspace name> of a workspace to its newest
// fine-tuned model (shared by the generation and the agent chat paths).
//
// The one home of fine-tuning (not an API area: it has no routes); its rows
// are `store/finetune.go` (`fine_tuning_jobs`, the up-rated exchanges, the
// newest tuned model). `finetune.New(Deps)` (`Logger`, `Store` required,
// `Plugins`: the plugin manager's `StartFineTune`/`GetFineTune`, from
// `pluginhost/finetune.go`) is a `Service` answering its own `Job` type:
// `TrainingFile` builds the workspace's JSONL training file (only sessions
// whose owner opted in: `chat_sessions.training_opt_in`, set by `PUT
// /v1/ai/chat/session/{id}/training`); `Start` (behind `herald finetune
// start`, `host/finetune_cmd.go`) refuses fewer than 10 examples before
// anything is uploaded, starts the job through `Manager.StartFineTune` (the
// route's first deployment whose plugin implements the optional
// `sdk.FineTuner`; never retried, since a start is not idempotent) and
// stores it; `Latest` answers the workspace's newest job, refreshing an
// unfinished one from its provider (`Manager.GetFineTune`; a failed refresh
// answers the stored state) — the agent's route calls it. `Resolver` is
// shared by `generate` (`Deps.Tuned`: inline and queued text) and the
// agent's chat: `ft:<workspace name>` of the caller's own workspace leads to
// its newest succeeded job's model, called with
// `Manager.GenerateTextOn`/`ChatOn` (one provider, the provider's model id,
// outside the configured routes); anything else, including another
// workspace's `ft:` name, falls through to the usual unknown-model 400.
package finetune
