// Package agent is Herald's agent: a chat over the caller's workspace in
// which the model may call tools (traffic stats, schedules, brand voices,
// images, and, when wired, visibility reports and SEO scores), each running
// as the calling user under the same scoping and plan rules as the route
// behind it. It keeps personal chat sessions as ordered blocks, builds the
// workspace summary the agent starts from, stores feedback and reports the
// workspace's fine-tuning job. It implements herald.api.v1.ChatService.
//
// A turn is: validate, charge one AI credit, rebuild the session's history
// as provider messages (trimmed oldest first to the context budget; the
// system prompt with the summary and the brand voice always stays), then up
// to MaxToolRounds rounds of model call + tool execution, and last one
// write of every new block. A turn that fails stores nothing and gives the
// credit back. Actions with outside effects (schedule_content) are never
// taken on the model's say-so: the tool returns a proposal whose
// confirmToken the user sends back.
//
// The agent (`ChatService`): personal chat sessions stored as ordered blocks
// (`store/agent.go`: `chat_sessions`, `chat_blocks`, `feedback`,
// `generations`; the service answers its own `ChatSession` and `Block`
// types, converted from the rows in the service files, so `handler.go`
// imports no `store`), and the turn (`chat.go`): one AI credit reserved
// through the quota kit (`Deps.Quota.Reserve`, refunded when the turn
// fails), the history rebuilt as provider messages and trimmed
// oldest-exchange-first under the system prompt (instructions + the
// workspace summary of `/v1/ai/generate/assistant/context` + the brand
// voice), then up to 8 rounds of `Manager.Chat` (streamed) and tool calls,
// then one write of every new block. `agent.New(Deps)`: `Logger`, `Store`,
// `Quota` and `Models` (required; `New` names each one missing), `Plans`,
// `Now`, and the optional tool dependencies. Tools call the other areas'
// services through consumer-side interfaces in `Deps` with the caller's
// principal, so a tool has exactly the rules of its route; a tool whose
// dependency is nil is not offered. The visibility tool reads a typed
// `VisibilitySnapshot` (`visibility.go`), which `host/agent_tools.go` fills
// from `visibility.View`, as it adapts content's scoring for
// `calculate_seo_score`. The agent registers no jobs. Side effects go
// through proposals: `schedule_content` stores a block with a
// `confirmToken`, and confirming claims it once (guarded update) before the
// scheduler creates the post. `budget.go` holds the per-message budget (4
// tool calls a round, 16 a message, 2 credits without a confirmation), the
// rule that a credit-spending tool (`generate_image`) runs directly only
// when the user's own message asked for it and no outside text is in the
// context (else it proposes, confirmed like `schedule_content`), and the
// untrusted-data envelope (random nonce per message) around results of tools
// that carry outside text (`outsideText`: traffic stats, schedules' errors,
// visibility reports) and around website/file voice profiles. The Connect
// stream and the REST SSE handler (`api/sse.go`, the one REST route outside
// the unary adapter) both use `agent.Handler.Stream`. `finetune.go` is only
// the `GET /v1/ai/chat/getFineTuningJob` call into `finetune`
// (`Deps.FineTune`; nil: the stored job, not refreshed).
package agent
