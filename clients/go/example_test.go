package heraldclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"testing"

	"connectrpc.com/connect"

	heraldclient "github.com/heraldhq/herald/clients/go"
	"github.com/heraldhq/herald/integration/harness"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
)

// herald is the Herald the examples call: a real `herald serve` on a
// loopback port with an empty data directory, started by TestMain.
var herald struct{ url, key string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heraldclient-")
	if err != nil {
		log.Fatal(err)
	}
	tb := &mainTB{}
	p := harness.Start(tb, harness.Options{DataDir: dir})
	herald.url, herald.key = p.URL, p.Key
	code := m.Run()
	tb.cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

// mainTB is the testing.TB that TestMain gives the harness: failures end
// the process, cleanups run after the examples.
type mainTB struct {
	testing.TB
	cleanups []func()
}

func (*mainTB) Helper()                           {}
func (*mainTB) Fatal(args ...any)                 { log.Fatal(args...) }
func (*mainTB) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
func (*mainTB) Logf(format string, args ...any)   { log.Printf(format, args...) }
func (t *mainTB) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }
func (t *mainTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// Create a brand voice from text and list the workspace's voices.
func Example() {
	ctx := context.Background()
	client := heraldclient.New(herald.url, herald.key, nil)

	created, err := client.BrandVoices.CreateBrandVoiceFromText(ctx, connect.NewRequest(&apiv1.CreateBrandVoiceFromTextRequest{
		Name:    "Warm",
		Content: "We write short, warm sentences. We say you, not users.",
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created.Msg.GetData().GetName(), created.Msg.GetData().GetContentLength())

	list, err := client.BrandVoices.ListBrandVoices(ctx, connect.NewRequest(&apiv1.ListBrandVoicesRequest{}))
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range list.Msg.GetData() {
		if v.GetId() == created.Msg.GetData().GetId() {
			fmt.Println("listed:", v.GetName())
		}
	}
	// Output:
	// Warm 54
	// listed: Warm
}

// A request that breaks a declared rule is refused before anything runs:
// code invalid_argument, and a message that begins with the field's name.
func ExampleNew_invalidArgument() {
	client := heraldclient.New(herald.url, herald.key, nil)
	_, err := client.Generate.GenerateImage(context.Background(), connect.NewRequest(&apiv1.GenerateImageRequest{
		Text: "A lighthouse at dawn",
		Size: "640x480",
	}))
	var ce *connect.Error
	if errors.As(err, &ce) {
		fmt.Println(ce.Code())
		fmt.Println(ce.Message())
	}
	// Output:
	// invalid_argument
	// size must be one of 1024x1024, 1536x1024, 1024x1536, auto; got "640x480"
}

// Register a site for AI traffic tracking; its snippet goes into the site's <head>.
func ExampleClient_traffic() {
	ctx := context.Background()
	client := heraldclient.New(herald.url, herald.key, nil)
	site, err := client.Traffic.CreateSite(ctx, connect.NewRequest(&apiv1.CreateSiteRequest{Domain: "example.org"}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(site.Msg.GetDomain(), site.Msg.GetCreated())
	// Output:
	// example.org true
}
