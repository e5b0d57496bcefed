package main

import (
	"context"
	"fmt"
	"io"
)

// migrate is `herald migrate`: it applies the embedded migrations to the
// configured store (serve and every store-using command do it too).
func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("migrate", stderr, false)
	st, err := adminStore(ctx, fs, f, args, getenv)
	if err != nil {
		return err
	}
	st.Close()
	fmt.Fprintf(stdout, "migrations applied (%s)\n", st.Dialect)
	return nil
}
