package store

import (
	"context"
	"strings"
	"testing"
)

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

func TestMaskDisplayURLKeepsTheLastFourOfLongPaths(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://h.test":                   "https://h.test",
		"https://h.test/":                  "https://h.test",
		"https://h.test/abcdefghijklmn":    "https://h.test/****",     // 15 characters
		"https://h.test/abcdefghijklmno":   "https://h.test/****lmno", // 16
		"https://h.test/abcdefghijklmnop/": "https://h.test/****mnop",
		"https://h.test/****wxyz":          "https://h.test/****wxyz",
		"not a url":                        "(hidden)",
	} {
		if got := maskDisplayURL(raw); got != want {
			t.Errorf("maskDisplayURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
