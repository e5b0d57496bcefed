package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// bootstrap creates workspace "default" (plan business) on the first start
// against an empty store and hands its API key over once: to keyFile
// (mode 0600) when set, else to stderr, never into the stdout log stream
// that log shippers collect.
func bootstrap(ctx context.Context, st *store.Store, stderr io.Writer, keyFile string) error {
	n, err := st.CountWorkspaces(ctx)
	if err != nil || n > 0 {
		return err
	}
	key, err := auth.CreateKey(ctx, st, "default", "business", "owner@default")
	if err != nil {
		return fmt.Errorf("create default workspace: %w", err)
	}
	if keyFile != "" {
		if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
			return fmt.Errorf("write --key-file: %w", err)
		}
		fmt.Fprintf(stderr, "Created workspace \"default\" (plan business); its API key is in %s\n", keyFile)
		return nil
	}
	fmt.Fprintf(stderr, "Created workspace \"default\" (plan business). Its API key is shown once, keep it:\n%s\n", key)
	return nil
}
