package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/config"
)

func TestLimitsComeFromTheFileThenTheEnvironment(t *testing.T) {
	t.Parallel()
	c, err := config.Load("", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits != config.DefaultLimits() || c.Limits.MaxConnections != 1024 || c.Limits.MetricsToken != "" {
		t.Fatalf("default limits: %+v", c.Limits)
	}
	path := write(t, `limits {
  max_connections = 50
  body_read_timeout = "3s"
  max_webhooks = 2
  metrics_token = "from-file"
}
`)
	c, err = config.Load(path, env(map[string]string{"HERALD_LIMITS_MAX_WEBHOOKS": "7", "HERALD_LIMITS_UPLOAD_READ_TIMEOUT": "2m"}))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	if l.MaxConnections != 50 || l.BodyReadTimeout != 3*time.Second || l.MaxWebhooks != 7 || l.UploadReadTimeout != 2*time.Minute || l.MetricsToken != "from-file" || l.MaxVoices != 500 {
		t.Fatalf("limits: %+v", l)
	}
	for name, tc := range map[string]struct{ file, env, want string }{
		"zero connections":     {file: "limits {\n max_connections = 0\n}\n", want: "limits.max_connections"},
		"a bad duration":       {file: "limits {\n body_read_timeout = \"soon\"\n}\n", want: "limits.body_read_timeout"},
		"a bad env integer":    {env: "x", want: "HERALD_LIMITS_MAX_SITES"},
		"a negative count cap": {file: "limits {\n max_sites = -1\n}\n", want: "limits.max_sites"},
	} {
		var p string
		if tc.file != "" {
			p = write(t, tc.file)
		}
		_, err := config.Load(p, env(map[string]string{"HERALD_LIMITS_MAX_SITES": tc.env}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", name, err, tc.want)
		}
	}
}
