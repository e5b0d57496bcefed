package store

import (
	"context"
	"strings"
	"testing"
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
		if got := MaskWebhookURL(raw); got != want {
			t.Errorf("MaskWebhookURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestWebhookDisplayURLMigration saves webhooks as 00005 did (the whole
// path in display_url) and checks that migration 10 masks them.
func TestWebhookDisplayURLMigration(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := ""
			if dialect == "postgres" {
				url = testSchemaURL(t)
			}
			s, err := Open(ctx, url, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			if err := s.b.migrate(ctx, 7); err != nil {
				t.Fatal(err)
			}
			if _, err := s.exec(ctx, `INSERT INTO webhooks (id, workspace_id, name, display_url, sealed, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
				"w1", "ws", "slack", "https://hooks.slack.com/services/T0/B0/TOPSECRETTOKEN99", "sealed", int64(1)); err != nil {
				t.Fatal(err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			list, err := s.ListWebhooks(ctx, "ws")
			if err != nil || len(list) != 1 {
				t.Fatalf("list %v %v", list, err)
			}
			if got := list[0].DisplayURL; strings.Contains(got, "TOPSECRET") || got != "https://hooks.slack.com/****EN99" {
				t.Errorf("display_url after the migration: %q", got)
			}
		})
	}
}
