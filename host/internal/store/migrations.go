package store

import (
	"context"
	"embed"
	"io/fs"

	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

func migrationsFS() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err)
	}
	return sub
}

// gooseUp applies the migrations up to version upTo, or all of them when
// upTo is 0 (tests stop at a version to write data in an older layout).
func gooseUp(ctx context.Context, p *goose.Provider, upTo int64) error {
	var err error
	if upTo > 0 {
		_, err = p.UpTo(ctx, upTo)
	} else {
		_, err = p.Up(ctx)
	}
	return err
}

// goMigrations are the migrations written in Go, numbered among the SQL
// files (00010: mask webhook display URLs; 00052: the pages view's
// page_days, from the block tables; 00061: page_day_deltas, and page_days'
// storage on PostgreSQL).
func goMigrations() goose.ProviderOption {
	return goose.WithGoMigrations(maskWebhookURLs, pageDaysMigration, pageDayDeltasMigration)
}
