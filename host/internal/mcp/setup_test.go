package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/content"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	heraldmcp "github.com/heraldhq/herald/host/internal/mcp"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/pluginhost/pluginhosttest"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/site"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/visibility"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

func TestMain(m *testing.M) { pluginhosttest.Main(m) }

func destinations(t testing.TB) *pluginhost.Manager { return pluginhosttest.Manager(t, false) }

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)

// router is an in-process model router: these tests are about the MCP
// face over the real services; the plugin path of generation is tested
// end to end in integration/.
type router struct{}

func (router) Models() []string { return append([]string{"gpt-4o"}, generate.ImageModels...) }

func (router) GenerateText(_ context.Context, model string, req sdk.TextRequest) (sdk.TextResponse, error) {
	return sdk.TextResponse{Text: "echo: " + req.Prompt, Model: model, FinishReason: "stop", Usage: sdk.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}, nil
}

func (router) GenerateImage(_ context.Context, model string, req sdk.ImageRequest) (sdk.ImageResponse, error) {
	return sdk.ImageResponse{Data: pngBytes, MIMEType: "image/png", Model: model, Size: req.Size, Quality: req.Quality}, nil
}

// bundle is the whole API handler, MCP included, over real HTTP on a
// migrated store with the real services. Keys: acme (business, website
// acme.example), pro (plan pro: no scheduler API access), other (business,
// another workspace, no website), all three unattended (--mcp-unattended:
// write tools do not ask, so the tests of the tools' own rules need no
// eliciting client); acmeAsk is a key of acme whose write tools ask the
// human (approval_test.go).
type bundle struct {
	url               string
	store             *store.Store
	acme, pro, other  string
	acmeAsk           string
	acmeID, otherID   string
	blobBase          string
	mcpServer         *heraldmcp.Server
	registry          *prometheus.Registry
	queue             *jobs.Queue
	trafficSvc        *traffic.Service
	scheduler         *schedule.Service
	voices            *voice.Service
	generator         *generate.Service
	contentSvc        *content.Service
	reports           *visibility.Service
	authenticator     *auth.Authenticator
	httpServerHandler http.Handler
}

func setup(t testing.TB) *bundle {
	t.Helper()
	ctx := context.Background()
	st := storetest.SQLite(t)
	b := &bundle{store: st, registry: prometheus.NewRegistry(), blobBase: "http://herald.test"}
	var err error
	for _, k := range []struct {
		key             *string
		ws, plan, email string
	}{{&b.acme, "acme", "business", "a@acme.test"}, {&b.pro, "pro", "pro", "p@pro.test"}, {&b.other, "other", "business", "o@other.test"}} {
		if *k.key, err = auth.CreateKeyWith(ctx, st, k.ws, k.plan, k.email, auth.KeyOptions{MCPUnattended: true}); err != nil {
			t.Fatal(err)
		}
	}
	if b.acmeAsk, err = auth.CreateKey(ctx, st, "acme", "business", "a@acme.test"); err != nil {
		t.Fatal(err)
	}
	ws, _, _ := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	b.acmeID = ws.ID
	if err := st.SetWorkspaceWebsite(ctx, ws.ID, "https://acme.example"); err != nil {
		t.Fatal(err)
	}
	ows, _, _ := st.EnsureWorkspaceUser(ctx, "other", "business", "o@other.test")
	b.otherID = ows.ID

	log := hclog.NewNullLogger()
	planTable := plans.New(nil)
	b.queue, err = jobs.New(jobs.Options{Store: st, PollInterval: time.Hour, Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewFS(t.TempDir(), b.blobBase)
	if err != nil {
		t.Fatal(err)
	}
	writer, err := traffic.NewWriter(context.Background(), st, traffic.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(writer.Close)
	if b.trafficSvc, err = traffic.New(traffic.Deps{Store: st, Writer: writer, BaseURL: b.blobBase}); err != nil {
		t.Fatal(err)
	}
	caps := quota.New(st, config.Limits{}).Follow(planTable)
	dests, err := destination.New(destination.Deps{Store: st, Plugins: destinations(t), Plans: planTable, Quota: caps})
	if err != nil {
		t.Fatal(err)
	}
	if b.scheduler, err = schedule.New(schedule.Deps{Store: st, Queue: b.queue, Destinations: destinations(t), Credentials: dests, Blobs: blobs, Plans: planTable, Quota: caps}); err != nil {
		t.Fatal(err)
	}
	if b.voices, err = voice.New(voice.Deps{Store: st}); err != nil {
		t.Fatal(err)
	}
	credits := quota.New(st, config.Limits{}).Follow(planTable)
	if b.generator, err = generate.New(generate.Deps{Logger: log, Models: router{}, Queue: b.queue, Store: st, Blobs: blobs,
		Quota: credits, Voices: b.voices}); err != nil {
		t.Fatal(err)
	}
	if b.contentSvc, err = content.New(content.Deps{Logger: log, Generator: b.generator, Queue: b.queue, Quota: credits}); err != nil {
		t.Fatal(err)
	}
	if b.reports, err = visibility.New(visibility.Deps{Store: st, Queue: b.queue, Quota: credits, Models: router{}, Site: site.New(site.Deps{}), Plans: planTable, Logger: log}); err != nil {
		t.Fatal(err)
	}
	b.authenticator = auth.NewAuthenticator(st, "jwt-secret")
	b.mcpServer = heraldmcp.New(heraldmcp.Deps{
		Auth: b.authenticator, Logger: log, Version: "test", MaxBodyBytes: 1 << 20,
		Scheduler: schedule.NewHandler(b.scheduler), Generate: generate.NewHandler(b.generator), Voices: voice.NewHandler(b.voices),
		Content: content.NewHandler(b.contentSvc), Visibility: visibility.NewHandler(b.reports), Traffic: traffic.NewHandler(b.trafficSvc),
	})
	srv := apitest.Start(t, api.Deps{
		Logger: log, Store: st, Auth: b.authenticator, Registry: b.registry, MaxBodyBytes: 1 << 20, Blobs: blobs,
		Voices: voice.NewHandler(b.voices), Jobs: jobs.NewAPIHandler(b.queue), Scheduler: schedule.NewHandler(b.scheduler),
		Generate: generate.NewHandler(b.generator), Content: content.NewHandler(b.contentSvc),
		Visibility: visibility.NewHandler(b.reports), Traffic: traffic.NewHandler(b.trafficSvc),
		MCP: b.mcpServer.Handler(),
	})
	b.url = srv.URL
	return b
}

// headerTransport adds fixed headers to every request of the MCP client.
type headerTransport http.Header

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an SDK client session to /mcp with the given headers.
func (b *bundle) connect(t testing.TB, header http.Header) (*mcp.ClientSession, error) {
	return b.connectWith(t, header, nil)
}

// connectWith is connect with client options (an elicitation handler).
func (b *bundle) connectWith(t testing.TB, header http.Header, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "herald-test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: b.url + "/mcp", HTTPClient: &http.Client{Transport: headerTransport(header)}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// session is a client session with the api-key header.
func (b *bundle) session(t testing.TB, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := b.connect(t, http.Header{"Api-Key": {key}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// call runs a tool and returns its result; a protocol error fails the test.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// ok returns the JSON of a successful tool result.
func ok(t testing.TB, name string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatalf("%s: result is not JSON: %v: %s", name, err, text(res))
	}
	return out
}

// toolErr returns the message of a tool error.
func toolErr(t *testing.T, name string, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("%s: want a tool error, got %s", name, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// rest calls the REST API, to check MCP's effects through another face.
func (b *bundle) rest(t testing.TB, method, path, key, body string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, b.url+path, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	json.Unmarshal(raw, &out)
	return res.StatusCode, out
}

// schedules counts the workspace's schedules in the store.
func (b *bundle) schedules(t *testing.T, workspaceID string) int {
	t.Helper()
	_, n, err := b.store.ListSchedules(context.Background(), workspaceID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
