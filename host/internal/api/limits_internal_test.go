package api

import (
	"testing"
	"time"
)

func TestImageRoutesGetTheLongerBodyTimeout(t *testing.T) {
	t.Parallel()
	s := &server{bodyReadTimeout: time.Second, collectReadTimeout: 2 * time.Second, uploadReadTimeout: time.Minute}
	for path, want := range map[string]time.Duration{
		"/v1/scheduler/create":                             time.Minute,
		"/herald.api.v1.SchedulerService/CreateSchedule":   time.Minute,
		"/v1/ai-traffic/collect":                           2 * time.Second,
		"/herald.api.v1.AITrafficService/Collect":          2 * time.Second,
		"/v1/webhooks":                                     time.Second,
		"/herald.api.v1.BrandVoiceService/ListBrandVoices": time.Second,
	} {
		if got := s.bodyTimeout(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}
