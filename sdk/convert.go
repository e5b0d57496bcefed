package sdk

// This file is the conversion layer between the Go types plugin authors use
// and the herald.plugin.v1 protobuf messages. Nothing here is exported.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/heraldhq/herald/sdk/proto/pluginv1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

func fieldsToProto(fs []Field) []*pluginv1.Field {
	out := make([]*pluginv1.Field, 0, len(fs))
	for _, f := range fs {
		out = append(out, &pluginv1.Field{Name: f.Name, Label: f.Label, Secret: f.Secret, Required: f.Required, Description: f.Description})
	}
	return out
}

func fieldsFromProto(fs []*pluginv1.Field) []Field {
	out := make([]Field, 0, len(fs))
	for _, f := range fs {
		out = append(out, Field{Name: f.GetName(), Label: f.GetLabel(), Secret: f.GetSecret(), Required: f.GetRequired(), Description: f.GetDescription()})
	}
	return out
}

var capabilityToProto = map[Capability]pluginv1.Capability{
	CapabilityText:  pluginv1.Capability_CAPABILITY_TEXT,
	CapabilityChat:  pluginv1.Capability_CAPABILITY_CHAT,
	CapabilityTools: pluginv1.Capability_CAPABILITY_TOOLS,
	CapabilityImage: pluginv1.Capability_CAPABILITY_IMAGE,
}

func providerInfoToProto(in ProviderInfo) *pluginv1.ProviderInfoResponse {
	out := &pluginv1.ProviderInfoResponse{Name: in.Name, DisplayName: in.DisplayName, Settings: fieldsToProto(in.Settings)}
	for _, m := range in.Models {
		pm := &pluginv1.Model{Id: m.ID}
		for _, c := range m.Capabilities {
			pm.Capabilities = append(pm.Capabilities, capabilityToProto[c])
		}
		out.Models = append(out.Models, pm)
	}
	return out
}

func providerInfoFromProto(in *pluginv1.ProviderInfoResponse) ProviderInfo {
	out := ProviderInfo{Name: in.GetName(), DisplayName: in.GetDisplayName(), Settings: fieldsFromProto(in.GetSettings())}
	for _, m := range in.GetModels() {
		gm := Model{ID: m.GetId()}
		for _, c := range m.GetCapabilities() {
			for k, v := range capabilityToProto {
				if v == c {
					gm.Capabilities = append(gm.Capabilities, k)
				}
			}
		}
		out.Models = append(out.Models, gm)
	}
	return out
}

func usageToProto(u Usage) *pluginv1.Usage {
	return &pluginv1.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
}

func usageFromProto(u *pluginv1.Usage) Usage {
	return Usage{InputTokens: u.GetInputTokens(), OutputTokens: u.GetOutputTokens(), TotalTokens: u.GetTotalTokens()}
}

// structToProto converts a JSON object. Any JSON-shaped Go value crosses:
// structpb takes only the generic forms (map[string]any, []any, float64...),
// so a map holding typed values ([]string, map[string]string, a struct with
// json tags) is first put through encoding/json, which is what "JSON-shaped"
// means. Values that JSON cannot hold (channels, functions, NaN) are an
// invalid-argument error.
func structToProto(m map[string]any) (*structpb.Struct, error) {
	if m == nil {
		return nil, nil
	}
	s, err := structpb.NewStruct(m)
	if err == nil {
		return s, nil
	}
	generic, jerr := genericJSON(m)
	if jerr != nil {
		return nil, Errorf(CodeInvalidArgument, "encode object: %v", jerr)
	}
	s, err = structpb.NewStruct(generic)
	if err != nil {
		return nil, Errorf(CodeInvalidArgument, "encode object: %v", err)
	}
	return s, nil
}

// genericJSON re-reads m as encoding/json's generic form. Numbers stay
// float64, as structpb holds them anyway.
func genericJSON(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func structFromProto(s *structpb.Struct) map[string]any {
	if s == nil {
		return nil
	}
	return s.AsMap()
}

func textRequestToProto(r TextRequest) (*pluginv1.GenerateTextRequest, error) {
	opts, err := structToProto(r.Options)
	if err != nil {
		return nil, err
	}
	return &pluginv1.GenerateTextRequest{Model: r.Model, Prompt: r.Prompt, System: r.System, MaxOutputTokens: r.MaxOutputTokens, Temperature: r.Temperature, Options: opts}, nil
}

func textRequestFromProto(r *pluginv1.GenerateTextRequest) TextRequest {
	return TextRequest{Model: r.GetModel(), Prompt: r.GetPrompt(), System: r.GetSystem(), MaxOutputTokens: r.GetMaxOutputTokens(), Temperature: r.Temperature, Options: structFromProto(r.GetOptions())}
}

func textResponseToProto(r TextResponse) *pluginv1.GenerateTextResponse {
	out := &pluginv1.GenerateTextResponse{Text: r.Text, Model: r.Model, FinishReason: r.FinishReason, Usage: usageToProto(r.Usage)}
	for _, c := range r.Citations {
		out.Citations = append(out.Citations, &pluginv1.Citation{Url: c.URL, Title: c.Title})
	}
	return out
}

func textResponseFromProto(r *pluginv1.GenerateTextResponse) TextResponse {
	out := TextResponse{Text: r.GetText(), Model: r.GetModel(), FinishReason: r.GetFinishReason(), Usage: usageFromProto(r.GetUsage())}
	for _, c := range r.GetCitations() {
		out.Citations = append(out.Citations, Citation{URL: c.GetUrl(), Title: c.GetTitle()})
	}
	return out
}

var roleToProto = map[Role]pluginv1.Role{
	RoleSystem:    pluginv1.Role_ROLE_SYSTEM,
	RoleUser:      pluginv1.Role_ROLE_USER,
	RoleAssistant: pluginv1.Role_ROLE_ASSISTANT,
	RoleTool:      pluginv1.Role_ROLE_TOOL,
}

func roleFromProto(r pluginv1.Role) Role {
	for k, v := range roleToProto {
		if v == r {
			return k
		}
	}
	return ""
}

func toolCallToProto(c ToolCall) *pluginv1.ToolCall {
	return &pluginv1.ToolCall{Id: c.ID, Name: c.Name, Arguments: c.Arguments}
}

func toolCallFromProto(c *pluginv1.ToolCall) ToolCall {
	return ToolCall{ID: c.GetId(), Name: c.GetName(), Arguments: c.GetArguments()}
}

func chatRequestToProto(r ChatRequest) (*pluginv1.ChatRequest, error) {
	opts, err := structToProto(r.Options)
	if err != nil {
		return nil, err
	}
	out := &pluginv1.ChatRequest{Model: r.Model, MaxOutputTokens: r.MaxOutputTokens, Temperature: r.Temperature, Options: opts}
	for _, m := range r.Messages {
		pm := &pluginv1.Message{Role: roleToProto[m.Role], Content: m.Content, ToolCallId: m.ToolCallID}
		for _, c := range m.ToolCalls {
			pm.ToolCalls = append(pm.ToolCalls, toolCallToProto(c))
		}
		out.Messages = append(out.Messages, pm)
	}
	for _, t := range r.Tools {
		params, err := structToProto(t.Parameters)
		if err != nil {
			return nil, err
		}
		out.Tools = append(out.Tools, &pluginv1.Tool{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return out, nil
}

func chatRequestFromProto(r *pluginv1.ChatRequest) ChatRequest {
	out := ChatRequest{Model: r.GetModel(), MaxOutputTokens: r.GetMaxOutputTokens(), Temperature: r.Temperature, Options: structFromProto(r.GetOptions())}
	for _, m := range r.GetMessages() {
		gm := Message{Role: roleFromProto(m.GetRole()), Content: m.GetContent(), ToolCallID: m.GetToolCallId()}
		for _, c := range m.GetToolCalls() {
			gm.ToolCalls = append(gm.ToolCalls, toolCallFromProto(c))
		}
		out.Messages = append(out.Messages, gm)
	}
	for _, t := range r.GetTools() {
		out.Tools = append(out.Tools, Tool{Name: t.GetName(), Description: t.GetDescription(), Parameters: structFromProto(t.GetParameters())})
	}
	return out
}

func chatEventToProto(ev ChatEvent) *pluginv1.ChatResponse {
	switch {
	case ev.Finish != nil:
		return &pluginv1.ChatResponse{Event: &pluginv1.ChatResponse_Finish{Finish: &pluginv1.ChatFinish{
			FinishReason: ev.Finish.FinishReason, Model: ev.Finish.Model, Usage: usageToProto(ev.Finish.Usage),
		}}}
	case ev.ToolCall != nil:
		return &pluginv1.ChatResponse{Event: &pluginv1.ChatResponse_ToolCall{ToolCall: toolCallToProto(*ev.ToolCall)}}
	default:
		return &pluginv1.ChatResponse{Event: &pluginv1.ChatResponse_TextDelta{TextDelta: ev.TextDelta}}
	}
}

func chatEventFromProto(r *pluginv1.ChatResponse) ChatEvent {
	switch e := r.GetEvent().(type) {
	case *pluginv1.ChatResponse_Finish:
		return ChatEvent{Finish: &ChatFinish{FinishReason: e.Finish.GetFinishReason(), Model: e.Finish.GetModel(), Usage: usageFromProto(e.Finish.GetUsage())}}
	case *pluginv1.ChatResponse_ToolCall:
		c := toolCallFromProto(e.ToolCall)
		return ChatEvent{ToolCall: &c}
	case *pluginv1.ChatResponse_TextDelta:
		return ChatEvent{TextDelta: e.TextDelta}
	}
	return ChatEvent{}
}

func imageRequestToProto(r ImageRequest) (*pluginv1.GenerateImageRequest, error) {
	opts, err := structToProto(r.Options)
	if err != nil {
		return nil, err
	}
	return &pluginv1.GenerateImageRequest{Model: r.Model, Prompt: r.Prompt, Size: r.Size, Quality: r.Quality, Options: opts}, nil
}

func imageRequestFromProto(r *pluginv1.GenerateImageRequest) ImageRequest {
	return ImageRequest{Model: r.GetModel(), Prompt: r.GetPrompt(), Size: r.GetSize(), Quality: r.GetQuality(), Options: structFromProto(r.GetOptions())}
}

func imageResponseToProto(r ImageResponse) *pluginv1.GenerateImageResponse {
	return &pluginv1.GenerateImageResponse{Data: r.Data, MimeType: r.MIMEType, Model: r.Model, Size: r.Size, Quality: r.Quality, RevisedPrompt: r.RevisedPrompt, Usage: usageToProto(r.Usage)}
}

func imageResponseFromProto(r *pluginv1.GenerateImageResponse) ImageResponse {
	return ImageResponse{Data: r.GetData(), MIMEType: r.GetMimeType(), Model: r.GetModel(), Size: r.GetSize(), Quality: r.GetQuality(), RevisedPrompt: r.GetRevisedPrompt(), Usage: usageFromProto(r.GetUsage())}
}

func destinationInfoToProto(in DestinationInfo) *pluginv1.DestinationInfoResponse {
	return &pluginv1.DestinationInfoResponse{
		Name: in.Name, DisplayName: in.DisplayName,
		RequiredKeys: in.RequiredKeys, OptionalKeys: in.OptionalKeys,
		Credentials: fieldsToProto(in.Credentials), CanDelete: in.CanDelete,
		Idempotent: in.Idempotent,
	}
}

func destinationInfoFromProto(in *pluginv1.DestinationInfoResponse) DestinationInfo {
	return DestinationInfo{
		Name: in.GetName(), DisplayName: in.GetDisplayName(),
		RequiredKeys: in.GetRequiredKeys(), OptionalKeys: in.GetOptionalKeys(),
		Credentials: fieldsFromProto(in.GetCredentials()), CanDelete: in.GetCanDelete(),
		Idempotent: in.GetIdempotent(),
	}
}

func problemsToProto(ps []Problem) []*pluginv1.Problem {
	out := make([]*pluginv1.Problem, 0, len(ps))
	for _, p := range ps {
		out = append(out, &pluginv1.Problem{Key: p.Key, Message: p.Message})
	}
	return out
}

func problemsFromProto(ps []*pluginv1.Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		out = append(out, Problem{Key: p.GetKey(), Message: p.GetMessage()})
	}
	return out
}

func exportRequestToProto(r ExportRequest) (*pluginv1.ExportRequest, error) {
	content, err := structToProto(r.Content)
	if err != nil {
		return nil, err
	}
	return &pluginv1.ExportRequest{
		ScheduleId: r.ScheduleID, IdempotencyKey: r.IdempotencyKey, ContentToExport: content,
		Credentials: r.Credentials, ImageUrl: r.ImageURL, ImageData: r.ImageData, ImageMimeType: r.ImageMIMEType,
		ImageFileName: r.ImageFileName, ImageAlt: r.ImageAlt,
	}, nil
}

func exportRequestFromProto(r *pluginv1.ExportRequest) ExportRequest {
	return ExportRequest{
		ScheduleID: r.GetScheduleId(), IdempotencyKey: r.GetIdempotencyKey(), Content: contentFromProto(r.GetContentToExport()),
		Credentials: nonNilMap(r.GetCredentials()), ImageURL: r.GetImageUrl(), ImageData: r.GetImageData(), ImageMIMEType: r.GetImageMimeType(),
		ImageFileName: r.GetImageFileName(), ImageAlt: r.GetImageAlt(),
	}
}

func contentFromProto(s *structpb.Struct) Content {
	if m := structFromProto(s); m != nil {
		return m
	}
	return Content{}
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// grpcCode picks the gRPC status code that matches an error Code, so that
// clients which ignore the PluginError detail still see a sensible status.
var grpcCode = map[Code]codes.Code{
	CodeInternal:         codes.Internal,
	CodeUnconfigured:     codes.FailedPrecondition,
	CodeInvalidArgument:  codes.InvalidArgument,
	CodeUnauthenticated:  codes.Unauthenticated,
	CodePermissionDenied: codes.PermissionDenied,
	CodeNotFound:         codes.NotFound,
	CodeRateLimited:      codes.ResourceExhausted,
	CodeUnavailable:      codes.Unavailable,
	CodeRemote:           codes.Aborted,
	CodeUnimplemented:    codes.Unimplemented,
	CodeCanceled:         codes.Canceled,
}

// errorToStatus turns any error a plugin returned into a gRPC status error
// with a PluginError detail.
func errorToStatus(err error) error {
	if err == nil {
		return nil
	}
	e := AsError(err)
	code, ok := grpcCode[e.Code]
	if !ok {
		code = codes.Unknown
	}
	if errors.Is(err, context.DeadlineExceeded) {
		code = codes.DeadlineExceeded
	}
	st := status.New(code, e.Message)
	detail := &pluginv1.PluginError{
		Code: string(e.Code), Message: e.Message, Retryable: e.Retryable,
		StatusCode: int32(e.StatusCode), RetryAfterSeconds: int64(math.Ceil(e.RetryAfter.Seconds())),
	}
	if withDetail, derr := st.WithDetails(detail); derr == nil {
		st = withDetail
	}
	return st.Err()
}

// errorFromStatus turns a gRPC error received by a client back into an
// *Error. Statuses without a PluginError detail (transport failures, a
// crashed plugin) become an *Error whose Code follows the gRPC code and which
// is not marked retryable: whether to repeat such a call is the host's
// decision, as the plugin may or may not have acted on it.
func errorFromStatus(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return &Error{Code: CodeInternal, Message: op + ": " + err.Error(), cause: err}
	}
	for _, d := range st.Details() {
		if pe, ok := d.(*pluginv1.PluginError); ok {
			return &Error{
				Code: Code(pe.GetCode()), Message: pe.GetMessage(), Retryable: pe.GetRetryable(),
				StatusCode: int(pe.GetStatusCode()), RetryAfter: time.Duration(pe.GetRetryAfterSeconds()) * time.Second,
			}
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return &Error{Code: CodeCanceled, Message: op + ": " + cerr.Error(), cause: cerr}
	}
	code := CodeInternal
	for c, g := range grpcCode {
		if g == st.Code() {
			code = c
		}
	}
	if st.Code() == codes.DeadlineExceeded {
		code = CodeCanceled
	}
	return &Error{Code: code, Message: op + ": " + st.Message(), cause: err}
}
