package integration_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/heraldhq/herald/integration/harness"
	apiv1 "github.com/heraldhq/herald/proto/herald/api/v1"
	"github.com/heraldhq/herald/proto/herald/api/v1/apiv1connect"
)

func keyed[T any](msg *T, key string) *connect.Request[T] {
	req := connect.NewRequest(msg)
	if key != "" {
		req.Header().Set("api-key", key)
	}
	return req
}

// TestSchedulerOnTheConnectFace drives the scheduler, webhooks and plan rule
// through generated Connect clients against a real herald serve.
func TestSchedulerOnTheConnectFace(t *testing.T) {
	t.Parallel()
	p := harness.Start(t, harness.Options{})
	ctx := context.Background()
	hooks := apiv1connect.NewWebhookServiceClient(http.DefaultClient, p.URL)
	sched := apiv1connect.NewSchedulerServiceClient(http.DefaultClient, p.URL)

	hook, err := hooks.CreateWebhook(ctx, keyed(&apiv1.CreateWebhookRequest{Url: "https://hooks.example.com/in?token=abc"}, p.Key))
	if err != nil || !strings.HasPrefix(hook.Msg.Secret, "whsec_") {
		t.Fatalf("create webhook: %v %v", hook, err)
	}
	if strings.Contains(hook.Msg.Webhook.Url, "token") {
		t.Fatalf("the webhook URL's query string leaked: %s", hook.Msg.Webhook.Url)
	}
	id := hook.Msg.Webhook.Id
	created, err := sched.CreateSchedule(ctx, keyed(&apiv1.CreateScheduleRequest{ExportTo: "webhook", WebhookId: &id, Status: "draft", Title: ptr("Launch"), Text: ptr("We launched.")}, p.Key))
	if err != nil || created.Msg.Schedule.Status != "draft" || created.Msg.Schedule.ContentToExport.AsMap()["title"] != "Launch" {
		t.Fatalf("create draft: %v %v", created, err)
	}
	list, err := sched.ListSchedules(ctx, keyed(&apiv1.ListSchedulesRequest{}, p.Key))
	if err != nil || list.Msg.Total != 1 || len(list.Msg.Schedulers) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	if _, err := sched.CreateSchedule(ctx, keyed(&apiv1.CreateScheduleRequest{ExportTo: "webhook", WebhookId: &id, Title: ptr("x"), WhenToExport: "tomorrow"}, p.Key)); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("a bad whenToExport: %v", err)
	}
	if _, err := sched.ListSchedules(ctx, keyed(&apiv1.ListSchedulesRequest{}, "")); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("no credentials: %v", err)
	}
	out, err := p.Run(ctx, "keys", "create", "--workspace", "small", "--plan", "pro")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sched.ListSchedules(ctx, keyed(&apiv1.ListSchedulesRequest{}, harness.LastLine(out)))
	if connect.CodeOf(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), "business") {
		t.Fatalf("an api-key on the pro plan: %v", err)
	}
	if _, err := sched.GetSchedule(ctx, keyed(&apiv1.GetScheduleRequest{Id: created.Msg.Schedule.Id}, p.Key)); err != nil {
		t.Fatalf("get: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
