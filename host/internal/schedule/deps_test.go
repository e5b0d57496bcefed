package schedule_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/schedule"
)

func TestNewNamesEachMissingDep(t *testing.T) {
	t.Parallel()
	_, err := schedule.New(schedule.Deps{})
	for _, dep := range []string{"Store", "Queue", "Quota", "Destinations", "Credentials"} {
		if err == nil || !strings.Contains(err.Error(), "schedule: Deps."+dep+" is required") {
			t.Errorf("New without deps: %v, want it to name Deps.%s", err, dep)
		}
	}
	_, err = schedule.NewPublisher(schedule.PublisherDeps{}, schedule.PublisherOptions{})
	if err == nil || !strings.Contains(err.Error(), "schedule publisher: Deps.Store is required") {
		t.Errorf("NewPublisher without deps: %v", err)
	}
}
