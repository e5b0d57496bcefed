package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/heraldhq/herald/config"
)

func TestVisibilityBlock(t *testing.T) {
	t.Parallel()
	p := write(t, "visibility {\n  engines = [\"gpt\", \"claude\"]\n  judge_model = \"gpt\"\n  concurrency = 3\n}\n"+
		"model \"gpt\" {\n  deployment {\n    provider = \"openai\"\n  }\n}\nmodel \"claude\" {\n  deployment {\n    provider = \"openai\"\n  }\n}\n")
	c, err := config.Load(p, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Visibility.Engines, []string{"gpt", "claude"}) || c.Visibility.JudgeModel != "gpt" || c.Visibility.Concurrency != 3 {
		t.Fatalf("visibility = %+v", c.Visibility)
	}
	if d := config.Default().Visibility; d.Concurrency != 16 || len(d.Engines) != 0 {
		t.Fatalf("default visibility = %+v", d)
	}
	for body, want := range map[string]string{
		"visibility {\n  engines = [\"ghost\"]\n}\n":   "visibility: model \"ghost\" is not a configured model route",
		"visibility {\n  concurrency = 0\n}\n":         "visibility.concurrency: must be between 1 and 256",
		"visibility {\n  engines = [\"copilot\"]\n}\n": "visibility: engine \"copilot\" is off: Microsoft offers no API that returns Copilot's consumer answers",
	} {
		if _, err := config.Load(write(t, body), env(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
}
