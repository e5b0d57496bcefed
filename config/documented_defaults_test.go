package config_test

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
)

// The defaults the README's configuration table promises.
func TestTheDocumentedDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load("", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		setting   string
		got, want any
	}{
		{"max_body_bytes", c.MaxBodyBytes, int64(1 << 20)},
		{"shutdown_timeout", c.ShutdownTimeout, 15 * time.Second},
		{"job_retention", c.JobRetention, 168 * time.Hour},
		{"traffic_retention", c.TrafficRetention, 9600 * time.Hour},
	} {
		if tc.got != tc.want {
			t.Errorf("%s defaults to %v, the README says %v", tc.setting, tc.got, tc.want)
		}
	}
}
