package sdk_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

// shout is a tiny provider: it answers every prompt in capitals.
type shout struct{}

func (shout) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{Name: "shout", DisplayName: "Shout", Models: []sdk.Model{
		{ID: "shout-1", Capabilities: []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat}},
	}}, nil
}

func (shout) GenerateText(_ context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Model != "shout-1" {
		// Coded errors tell the host how to route: invalid_argument ends
		// the call, unavailable or rate_limited try the next deployment.
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "unknown model %q", req.Model)
	}
	return sdk.TextResponse{Text: strings.ToUpper(req.Prompt), Model: req.Model, FinishReason: "stop"}, nil
}

func (shout) Chat(_ context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	// Deltas first, then exactly one event with Finish set.
	if err := stream.Send(sdk.ChatEvent{TextDelta: "HELLO"}); err != nil {
		return err
	}
	return stream.Send(sdk.ChatEvent{Finish: &sdk.ChatFinish{FinishReason: "stop", Model: req.Model}})
}

// A provider plugin implements sdk.Provider and serves it from main:
//
//	func main() {
//		if err := sdk.ServeProvider(shout{}); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// The host starts the binary (a config plugin block with its command) and
// calls it over gRPC; here its methods are called directly.
func ExampleProvider() {
	var p sdk.Provider = shout{}
	res, _ := p.GenerateText(context.Background(), sdk.TextRequest{Model: "shout-1", Prompt: "hello"})
	fmt.Println(res.Text)
	_, err := p.GenerateText(context.Background(), sdk.TextRequest{Model: "whisper-1", Prompt: "hello"})
	fmt.Println(err)
	_ = p.Chat(context.Background(), sdk.ChatRequest{Model: "shout-1"}, sdk.ChatStreamFunc(func(ev sdk.ChatEvent) error {
		if ev.Finish != nil {
			fmt.Println("finish:", ev.Finish.FinishReason)
		} else {
			fmt.Println("delta:", ev.TextDelta)
		}
		return nil
	}))
	// Output:
	// HELLO
	// invalid_argument: unknown model "whisper-1"
	// delta: HELLO
	// finish: stop
}

// board is a tiny destination: it "publishes" a title to a notice board.
type board struct{ posted map[string]string }

var boardInfo = sdk.DestinationInfo{
	Name: "board", DisplayName: "Notice board",
	RequiredKeys: []string{"title"},
	Credentials:  []sdk.Field{{Name: "token", Label: "Board token", Secret: true, Required: true}},
	// The board keys posts on IdempotencyKey, so the host may repeat an
	// Export whose outcome it did not learn.
	Idempotent: true,
}

func (b *board) Info(context.Context) (sdk.DestinationInfo, error) { return boardInfo, nil }

func (b *board) Validate(_ context.Context, req sdk.ValidateRequest) ([]sdk.Problem, error) {
	// CheckRequired reports the missing keys and credentials Info declares.
	return sdk.CheckRequired(boardInfo, req.Content, req.Credentials), nil
}

func (b *board) Export(_ context.Context, req sdk.ExportRequest) (sdk.ExportResult, error) {
	if req.Credentials["token"] != "secret" {
		return sdk.ExportResult{}, sdk.Errorf(sdk.CodeUnauthenticated, "the board refused the token")
	}
	b.posted[req.IdempotencyKey] = req.Content.String("title") // a repeat overwrites: publishes once
	return sdk.ExportResult{ExternalID: req.IdempotencyKey, ExternalURL: "https://board.example/" + req.IdempotencyKey}, nil
}

// A destination plugin implements sdk.Destination (optionally sdk.Deleter
// and sdk.ConnectionChecker) and serves it from main with
// sdk.ServeDestination; here its methods are called directly.
func ExampleDestination() {
	var d sdk.Destination = &board{posted: map[string]string{}}
	ctx := context.Background()
	problems, _ := d.Validate(ctx, sdk.ValidateRequest{Content: sdk.Content{}, Credentials: map[string]string{}})
	for _, p := range problems {
		fmt.Println("problem:", p.Key)
	}
	res, err := d.Export(ctx, sdk.ExportRequest{IdempotencyKey: "sch_1", Content: sdk.Content{"title": "Launch"},
		Credentials: map[string]string{"token": "secret"}})
	fmt.Println(res.ExternalURL, err)
	// Output:
	// problem: title
	// problem: credentials.token
	// https://board.example/sch_1 <nil>
}
