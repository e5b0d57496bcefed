package config_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
)

// TestThePlanNumbersUsersSee pins each default plan's numbers (README's
// plan table, the 403 and 429 messages quote them), so that a changed
// constant shows up here as a changed number, not a silent shift.
func TestThePlanNumbersUsersSee(t *testing.T) {
	t.Parallel()
	want := map[string]config.Plan{
		"free":       {PromptsPerReport: 5, RefreshesPer24h: 0, MonthlyAICredits: 25, FreeAudits: 1, SchedulerAPIAccess: false, JobsRunning: 2, JobsQueued: 100, Trackers: 0, TrackerCadences: []string{}, ReportSamples: 1, TrackerSamples: 1, LogLinesPerDay: 20000, LogIPStorage: "truncated", PostDestinations: 2, RepeatHorizonDays: 31},
		"pro":        {PromptsPerReport: 25, RefreshesPer24h: 3, MonthlyAICredits: 500, FreeAudits: 0, SchedulerAPIAccess: false, JobsRunning: 4, JobsQueued: 500, Trackers: 3, TrackerCadences: []string{"weekly"}, ReportSamples: 3, TrackerSamples: 3, LogLinesPerDay: 200000, LogIPStorage: "truncated", PostDestinations: 3, RepeatHorizonDays: 92},
		"business":   {PromptsPerReport: 50, RefreshesPer24h: 10, MonthlyAICredits: 2000, FreeAudits: 0, SchedulerAPIAccess: true, JobsRunning: 8, JobsQueued: 2000, Trackers: 10, TrackerCadences: []string{"daily", "weekly"}, ReportSamples: 3, TrackerSamples: 3, LogLinesPerDay: 2000000, LogIPStorage: "truncated", PostDestinations: 10, RepeatHorizonDays: 366},
		"enterprise": {PromptsPerReport: 200, RefreshesPer24h: 50, MonthlyAICredits: 20000, FreeAudits: 0, SchedulerAPIAccess: true, JobsRunning: 16, JobsQueued: 10000, Trackers: 100, TrackerCadences: []string{"daily", "weekly"}, ReportSamples: 3, TrackerSamples: 3, LogLinesPerDay: 0, LogIPStorage: "truncated", PostDestinations: 25, RepeatHorizonDays: 731},
	}
	got := config.DefaultPlans()
	if len(got) != len(want) {
		t.Errorf("plans %v, want exactly free, pro, business, enterprise", got)
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || !reflect.DeepEqual(g, w) {
			t.Errorf("plan %s = %+v, want %+v", name, g, w)
		}
	}
}

// TestTheLimitNumbersUsersSee pins the default workspace and request
// limits (the 413 and 429 messages and README's configuration table).
func TestTheLimitNumbersUsersSee(t *testing.T) {
	t.Parallel()
	l := config.DefaultLimits()
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"max_connections", l.MaxConnections, 1024},
		{"body_read_timeout", l.BodyReadTimeout, 10 * time.Second},
		{"collect_read_timeout", l.CollectReadTimeout, 5 * time.Second},
		{"upload_read_timeout", l.UploadReadTimeout, 60 * time.Second},
		{"max_voices", l.MaxVoices, 500},
		{"max_webhooks", l.MaxWebhooks, 100},
		{"max_sites", l.MaxSites, 100},
		{"max_schedules", l.MaxSchedules, 10000},
		{"max_name_length", l.MaxNameLength, 200},
		{"blob_grace_period", l.BlobGracePeriod, 24 * time.Hour},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
