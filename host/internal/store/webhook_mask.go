package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/pressly/goose/v3"
)

// maskDisplayURL is the display rule of webhook URLs as migration 10
// applied it to older rows. The rule itself belongs to package destination
// (destination.MaskWebhookURL, which masks every new webhook); a migration
// keeps the rule of its day, so that it does the same on every database
// whatever the rule becomes.
func maskDisplayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(hidden)"
	}
	out := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	switch {
	case path == "":
		return out
	case strings.HasPrefix(path, "/****"):
		return out + path // already masked
	case len(path) >= 16:
		return out + "/****" + path[len(path)-4:]
	default:
		return out + "/****"
	}
}

// maskWebhookURLs is migration 10: webhooks saved before it kept their
// unmasked path in display_url.
var maskWebhookURLs = goose.NewGoMigration(10, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, display_url FROM webhooks`)
	if err != nil {
		return fmt.Errorf("read webhooks: %w", err)
	}
	masked := map[string]string{}
	for rows.Next() {
		var id, display string
		if err := rows.Scan(&id, &display); err != nil {
			rows.Close()
			return err
		}
		if m := maskDisplayURL(display); m != display {
			masked[id] = m
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, m := range masked {
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET display_url = $1 WHERE id = $2`, m, id); err != nil {
			return fmt.Errorf("mask webhook %s: %w", id, err)
		}
	}
	return nil
}}, &goose.GoFunc{Mode: goose.TransactionEnabled})
