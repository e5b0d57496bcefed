package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/heraldhq/herald/host/internal/store"
)

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("migrate", stderr, false)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := f.load(getenv)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	st.Close()
	fmt.Fprintf(stdout, "migrations applied (%s)\n", st.Dialect)
	return nil
}

// setWebsites records the user's and the team's websites given to keys
// create (either may be empty: left as is).
func setWebsites(ctx context.Context, st *store.Store, workspace, plan, user, website, teamWebsite string) error {
	withScheme := func(w string) string {
		if !strings.Contains(w, "://") {
			return "https://" + w
		}
		return w
	}
	ws, u, err := st.EnsureWorkspaceUser(ctx, workspace, plan, user)
	if err != nil {
		return err
	}
	if website != "" {
		if err := st.SetUserWebsite(ctx, u.ID, withScheme(website)); err != nil {
			return err
		}
	}
	if teamWebsite != "" {
		return st.SetWorkspaceWebsite(ctx, ws.ID, withScheme(teamWebsite))
	}
	return nil
}
