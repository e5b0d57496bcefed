package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/agent"
	"github.com/heraldhq/herald/host/internal/api"
	"github.com/heraldhq/herald/host/internal/api/apitest"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/blob"
	"github.com/heraldhq/herald/host/internal/destination"
	"github.com/heraldhq/herald/host/internal/finetune"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/jobs"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/pluginhost"
	"github.com/heraldhq/herald/host/internal/pluginhost/pluginhosttest"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/voice"
)

func TestMain(m *testing.M) { pluginhosttest.Main(m) }

func destinations(t testing.TB) *pluginhost.Manager { return pluginhosttest.Manager(t, false) }

// bundle is the real API over HTTP with the agent wired to the real
// traffic, voice and scheduler services, and the real openai plugin talking
// to a fake OpenAI server. Keys: acme (business) with a teammate, pro (plan
// pro, no scheduler API access) and other (another workspace).
type bundle struct {
	srv                    *apitest.Server
	url                    string
	store                  *store.Store
	quota                  *quota.Checker
	plans                  *plans.Table
	tune                   *finetune.Service
	fake                   *fakeOpenAI
	svc                    *agent.Service
	traffic                *traffic.Service
	acme, mate, pro, other string
	acmeP                  auth.Principal
	registry               *prometheus.Registry
	queue                  *jobs.Queue
}

// options change the bundle: images wires generate_image (the generate
// service with a blob store and the image model).
type options struct {
	images, gapBrief bool
	// gapDraft is write_for_gap's draft function.
	gapDraft agent.GapDraftFunc
}

func setup(t *testing.T, opts ...options) *bundle {
	t.Helper()
	var opt options
	if len(opts) > 0 {
		opt = opts[0]
	}
	ctx := context.Background()
	st := storetest.SQLite(t)
	b := &bundle{store: st, fake: newFakeOpenAI(t), registry: prometheus.NewRegistry(), plans: plans.New(nil)}
	b.quota = quota.New(st, config.Limits{}).Follow(b.plans)
	var err error
	for _, k := range []struct {
		key             *string
		ws, plan, email string
	}{{&b.acme, "acme", "business", "a@acme.test"}, {&b.mate, "acme", "business", "b@acme.test"}, {&b.pro, "pro", "pro", "p@pro.test"}, {&b.other, "other", "business", "o@other.test"}} {
		if *k.key, err = auth.CreateKey(ctx, st, k.ws, k.plan, k.email); err != nil {
			t.Fatal(err)
		}
	}
	ws, u, _ := st.EnsureWorkspaceUser(ctx, "acme", "business", "a@acme.test")
	b.acmeP = auth.Principal{WorkspaceID: ws.ID, UserID: u.ID, Plan: "business", WorkspaceName: "acme", Via: auth.ViaAPIKey}

	writer, err := traffic.NewWriter(context.Background(), st, traffic.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(writer.Close)
	if b.traffic, err = traffic.New(traffic.Deps{Store: st, Writer: writer, BaseURL: "http://herald.test"}); err != nil {
		t.Fatal(err)
	}
	b.queue, err = jobs.New(jobs.Options{Store: st, PollInterval: time.Hour, Lease: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	caps := quota.New(st, config.Limits{}).Follow(plans.New(nil))
	dests, err := destination.New(destination.Deps{Store: st, Plugins: destinations(t), Plans: plans.New(nil), Quota: caps})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := schedule.New(schedule.Deps{Store: st, Queue: b.queue, Destinations: destinations(t), Credentials: dests, Plans: plans.New(nil), Quota: caps})
	if err != nil {
		t.Fatal(err)
	}
	voices, err := voice.New(voice.Deps{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	models := newOpenAIModels(t, b.fake)
	blobs, err := blob.NewFS(t.TempDir(), "http://blobs.test")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := generate.New(generate.Deps{Models: imageModels{models}, Queue: b.queue, Store: st, Quota: quota.New(st, config.Limits{}).Follow(plans.New(nil)), Blobs: blobs})
	if err != nil {
		t.Fatal(err)
	}
	if b.tune, err = finetune.New(finetune.Deps{Store: st}); err != nil {
		t.Fatal(err)
	}
	deps := agent.Deps{Store: st, Quota: b.quota, Plans: b.plans, Models: models, Traffic: b.traffic, Scheduler: sched, Jobs: b.queue, Voices: voices,
		FineTune: b.tune, Registerer: b.registry}
	if opt.images {
		deps.Images = gen
	}
	if opt.gapBrief {
		deps.GapBrief = fakeGapBrief
	}
	deps.GapDraft = opt.gapDraft
	b.svc, err = agent.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	b.srv = apitest.Start(t, api.Deps{
		Store: st, Registry: b.registry, MaxBodyBytes: 1 << 20,
		Voices: voice.NewHandler(voices), Jobs: jobs.NewAPIHandler(b.queue), Scheduler: schedule.NewHandler(sched), Agent: agent.NewHandler(b.svc),
		Generate: generate.NewHandler(gen),
	})
	b.url = b.srv.URL
	return b
}

// chat sends one agent message and returns the response.
func (b *bundle) chat(t testing.TB, key, body string) apitest.Response {
	t.Helper()
	return b.srv.Do(t, "POST", "/v1/ai/generate/chat", key, body)
}

func blocks(t testing.TB, v any) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("blocks are not a list: %v", v)
	}
	out := make([]map[string]any, len(list))
	for i, b := range list {
		out[i] = b.(map[string]any)
	}
	return out
}

func types(bs []map[string]any) string {
	var s []string
	for _, b := range bs {
		s = append(s, fmt.Sprintf("%s/%s", b["role"], b["type"]))
	}
	return strings.Join(s, " ")
}
