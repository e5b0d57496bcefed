package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/generate"
	"github.com/heraldhq/herald/host/internal/plans"
	"github.com/heraldhq/herald/host/internal/quota"
	"github.com/heraldhq/herald/host/internal/schedule"
	"github.com/heraldhq/herald/host/internal/store/storetest"
	"github.com/heraldhq/herald/host/internal/traffic"
	"github.com/heraldhq/herald/host/internal/voice"
	"github.com/heraldhq/herald/sdk"
)

type noModels struct{}

func (noModels) Models() []string { return nil }
func (noModels) Chat(context.Context, string, sdk.ChatRequest, sdk.ChatStream) error {
	return nil
}

func TestEveryToolIsRegisteredOnlyWithItsDependencyAndCrossesThePluginProtocol(t *testing.T) {
	t.Parallel()
	st := storetest.SQLite(t)
	credits := quota.New(st, config.Limits{}).Follow(plans.New(nil))
	bare, err := New(Deps{Store: st, Quota: credits, Models: noModels{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bare.ToolNames()) != 0 {
		t.Fatalf("tools without dependencies: %v", bare.ToolNames())
	}
	full, err := New(Deps{Store: st, Quota: credits, Models: noModels{},
		Traffic: (*traffic.Service)(nil), Scheduler: (*schedule.Service)(nil), Voices: (*voice.Service)(nil), Images: (*generate.Service)(nil),
		Visibility: func(context.Context, auth.Principal) (*VisibilitySnapshot, error) { return nil, nil },
		SEOScore:   func(context.Context, auth.Principal, SEOInput) (any, error) { return nil, nil },
		Events:     true,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"get_visibility_report", "get_ai_traffic_stats", "list_schedules", "list_brand_voices", "calculate_seo_score", "generate_image", "schedule_content", "list_recent_events"}
	if got := full.ToolNames(); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	for _, tl := range full.toolDef {
		// The plugin protocol carries parameters as a google.protobuf.Struct.
		if _, err := structpb.NewStruct(tl.Parameters); err != nil {
			t.Errorf("%s parameters cannot cross the plugin protocol: %v", tl.Name, err)
		}
	}
}

func TestNewNamesEachMissingRequiredDependency(t *testing.T) {
	t.Parallel()
	_, err := New(Deps{})
	if err == nil {
		t.Fatal("New without dependencies succeeded")
	}
	for _, name := range []string{"Deps.Store", "Deps.Quota", "Deps.Models"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%v does not name %s", err, name)
		}
	}
}
