package sdk

import "context"

// Provider is implemented by plugins that generate text and chat replies
// with AI models. Image generation is optional ([ImageGenerator]), and so
// are operator settings ([Configurer]).
//
// Methods may be called concurrently. Return an [*Error] to tell the host
// whether a failure is worth retrying.
type Provider interface {
	// Info describes the provider and the models it knows.
	Info(ctx context.Context) (ProviderInfo, error)
	// GenerateText answers one prompt with one completion.
	GenerateText(ctx context.Context, req TextRequest) (TextResponse, error)
	// Chat produces one assistant turn, sending text deltas and complete
	// tool calls to stream as they arrive and, last, exactly one event with
	// Finish set. If Chat returns nil without sending a finish event, the
	// SDK sends one with FinishReason "stop".
	Chat(ctx context.Context, req ChatRequest, stream ChatStream) error
}

// ImageGenerator is implemented by providers that can create images.
type ImageGenerator interface {
	// GenerateImage creates one image and returns its bytes.
	GenerateImage(ctx context.Context, req ImageRequest) (ImageResponse, error)
}

// Configurer is implemented by plugins (providers or destinations) that
// accept operator settings, such as an API key or a base URL. The host calls
// Configure once after start and again when its configuration changes; keys
// that are absent keep their current value.
type Configurer interface {
	Configure(ctx context.Context, settings map[string]string) error
}

// ChatStream receives the events of one chat reply, in order.
type ChatStream interface {
	Send(ChatEvent) error
}

// ChatStreamFunc adapts a function to a [ChatStream].
type ChatStreamFunc func(ChatEvent) error

// Send calls f(ev).
func (f ChatStreamFunc) Send(ev ChatEvent) error { return f(ev) }

// ProviderInfo describes a provider.
type ProviderInfo struct {
	// Name is the stable identifier, for example "openai".
	Name        string
	DisplayName string
	// Models lists well-known models; a provider may accept others.
	Models []Model
	// Settings lists the settings [Configurer.Configure] understands.
	Settings []Field
}

// Capability is something a model can do.
type Capability string

// The capabilities a [Model] may have.
const (
	CapabilityText  Capability = "text"
	CapabilityChat  Capability = "chat"
	CapabilityTools Capability = "tools"
	CapabilityImage Capability = "image"
)

// Model is one model a provider offers.
type Model struct {
	ID           string
	Capabilities []Capability
}

// Field describes one credential or setting a plugin needs.
type Field struct {
	// Name is the key in the credentials or settings map.
	Name string
	// Label is a human-readable name for forms.
	Label string
	// Secret marks values that must be stored encrypted and never shown or
	// logged.
	Secret   bool
	Required bool
	// Description is an optional hint for forms.
	Description string
}

// Usage counts the tokens a call consumed.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	TotalTokens  int64
}

// TextRequest is one prompt.
type TextRequest struct {
	Model  string
	Prompt string
	// System is an optional system instruction.
	System string
	// MaxOutputTokens caps the completion; 0 means the provider default.
	MaxOutputTokens int64
	// Temperature is used when non-nil.
	Temperature *float64
	// Options carries provider-specific options (JSON values).
	Options map[string]any
}

// TextResponse is one completion.
type TextResponse struct {
	Text string
	// Model is the model that answered, as the remote names it.
	Model        string
	FinishReason string
	Usage        Usage
	// Citations are the sources the engine returned with its answer (web
	// search results, URL annotations), in its order; empty when the
	// provider returns none.
	Citations []Citation
}

// FinishNoAnswer is the FinishReason of a TextResponse whose engine showed
// no answer for the prompt, such as a Google search without an AI Overview:
// Text is empty, and the host records the outcome as such (not as an
// answer that names nothing, nor as a failure).
const FinishNoAnswer = "no_answer"

// Citation is one source an answer engine cited.
type Citation struct {
	URL   string
	Title string
}

// Role is the author of a chat message.
type Role string

// The roles of chat messages.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message.
type Message struct {
	Role    Role
	Content string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID names the call a tool message answers.
	ToolCallID string
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments.
	Parameters map[string]any
}

// ToolCall is a request by the model to call a tool.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is a JSON object as text, exactly as the model wrote it.
	Arguments string
}

// ChatRequest is a conversation to continue.
type ChatRequest struct {
	Model           string
	Messages        []Message
	Tools           []Tool
	MaxOutputTokens int64
	Temperature     *float64
	Options         map[string]any
}

// ChatEvent is one event of a chat stream. Exactly one field is set.
type ChatEvent struct {
	// TextDelta is the next piece of the assistant's text.
	TextDelta string
	// ToolCall is a complete tool call.
	ToolCall *ToolCall
	// Finish ends the stream.
	Finish *ChatFinish
}

// ChatFinish ends a chat stream.
type ChatFinish struct {
	// FinishReason is "stop", "tool_calls", "length" or the remote's value.
	FinishReason string
	Model        string
	Usage        Usage
}

// ImageRequest asks for one image.
type ImageRequest struct {
	Model  string
	Prompt string
	// Size is for example "1024x1024", "1536x1024", "1024x1536" or "auto".
	Size string
	// Quality is for example "low", "medium", "high" or "auto".
	Quality string
	Options map[string]any
}

// ImageResponse is one image.
type ImageResponse struct {
	Data []byte
	// MIMEType is for example "image/png".
	MIMEType      string
	Model         string
	Size          string
	Quality       string
	RevisedPrompt string
	Usage         Usage
}
