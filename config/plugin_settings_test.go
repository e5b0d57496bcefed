package config_test

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/heraldhq/herald/config"
)

func TestPluginSettingsTakeLiteralsAndEnvironmentReferences(t *testing.T) {
	t.Parallel()
	p := write(t, `
plugin "local-llm" {
  kind    = "provider"
  command = "/usr/local/bin/herald"
  args    = ["plugin", "openai"]
  settings = {
    api_key    = env("LOCAL_LLM_KEY")
    base_url   = "http://10.0.0.5:8000/v1"
    "org-id"   = "org-${env("ORG")}"
    max_tokens = 512
    streaming  = true
  }
}
plugin "openai" {
  kind     = "provider"
  settings = {}
}
`)
	c, err := config.Load(p, env(map[string]string{"LOCAL_LLM_KEY": "sk-local-0123456789", "ORG": "acme"}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Settings{"api_key": "sk-local-0123456789", "base_url": "http://10.0.0.5:8000/v1", "org-id": "org-acme", "max_tokens": "512", "streaming": "true"}
	got := c.Plugins["local-llm"].Settings
	if !maps.Equal(got, want) {
		t.Fatalf("settings = %v, want %v", map[string]string(got), map[string]string(want))
	}
	if s := c.Plugins["openai"].Settings; s != nil {
		t.Errorf("empty settings = %v, want none", map[string]string(s))
	}
	if s := c.Plugins["webhook"].Settings; s != nil {
		t.Errorf("a default plugin has settings %v", map[string]string(s))
	}
	// Printing the config (or a plugin) shows the keys, never the values.
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		out := fmt.Sprintf(verb, c.Plugins["local-llm"])
		if strings.Contains(out, "sk-local-0123456789") || strings.Contains(out, "org-acme") || !strings.Contains(out, "api_key") {
			t.Errorf("%s of the plugin shows %q, want its keys without values", verb, out)
		}
	}
}

func TestASettingsErrorNamesThePluginAndKeyButNoValue(t *testing.T) {
	t.Parallel()
	const literal = "sk-literal-secret-42"
	cases := []struct {
		name, settings string
		want           []string
	}{
		{"a missing environment variable", `{
    base_url = "` + literal + `"
    api_key  = env("OPENAI_API_KEY")
  }`, []string{":5: plugin.openai.settings.api_key:", "OPENAI_API_KEY", "not set"}},
		{"an empty environment variable", `{
    base_url = "` + literal + `"
    api_key  = "Bearer ${env("EMPTY_KEY")}"
  }`, []string{":5: plugin.openai.settings.api_key:", "EMPTY_KEY", "not set"}},
		{"a list value", `{
    api_key = ["` + literal + `"]
  }`, []string{":4: plugin.openai.settings.api_key:", "must be a string"}},
		{"an unknown function", `{
    api_key = getenv("` + literal + `")
  }`, []string{":4: plugin.openai.settings.api_key:", "getenv"}},
		{"a string instead of a map", `"` + literal + `"`, []string{":3: plugin.openai.settings:", "must be a map"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := write(t, "plugin \"openai\" {\n  kind = \"provider\"\n  settings = "+c.settings+"\n}\n")
			_, err := config.Load(p, env(map[string]string{"EMPTY_KEY": ""}))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v (%T), want a *config.Error", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), literal) || strings.Contains(err.Error(), "secret-42") {
				t.Errorf("%q shows a setting's value", err)
			}
		})
	}
}
