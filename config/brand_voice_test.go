package config_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/config"
)

func TestBrandVoiceModel(t *testing.T) {
	t.Parallel()
	c, err := config.Load(write(t, "brand_voice {\n  model = \"gpt-4o\"\n}\n"), env(nil))
	if err != nil || c.BrandVoice.Model != "gpt-4o" {
		t.Fatalf("got %+v, %v", c.BrandVoice, err)
	}
	if c, err := config.Load("", env(nil)); err != nil || c.BrandVoice.Model != "" {
		t.Fatalf("default: %+v, %v", c.BrandVoice, err)
	}
	if _, err := config.Load(write(t, "brand_voice {\n  model = \"none\"\n}\n"), env(nil)); err != nil {
		t.Fatalf("none: %v", err)
	}
	_, err = config.Load(write(t, "brand_voice {\n  model = \"gpt-99\"\n}\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "brand_voice.model") || !strings.Contains(err.Error(), "gpt-99") {
		t.Fatalf("unknown model: %v", err)
	}
}
