package destination_test

import (
	"testing"

	"github.com/heraldhq/herald/host/internal/destination"
)

func TestMaskWebhookURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://hooks.slack.com/services/T000/B000/XXXXSECRETXXXXabcd": "https://hooks.slack.com/****abcd",
		"https://discord.com/api/webhooks/123/tok3n-zzzz":               "https://discord.com/****zzzz",
		"https://user:pass@hooks.test:8443/x?token=abc":                 "https://hooks.test:8443/****",
		"https://hooks.test/":              "https://hooks.test",
		"https://hooks.test":               "https://hooks.test",
		"https://hooks.slack.com/****abcd": "https://hooks.slack.com/****abcd",
	} {
		if got := destination.MaskWebhookURL(raw); got != want {
			t.Errorf("MaskWebhookURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
