package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/heraldhq/herald/host/internal/store/adminstore"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/heraldhq/herald/config"
	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
	"github.com/heraldhq/herald/host/internal/traffic"
)

// The operator subcommands of API keys and workspaces, with the
// ids a session JWT needs (sub = user id, workspace = workspace id).

const keysUsage = `usage:
  herald keys create --workspace NAME [--plan PLAN [--set-plan]] [--user EMAIL] [--website URL] [--team-website URL] [--mcp-unattended]
  herald keys list [--workspace NAME]
  herald keys revoke KEY_ID
  herald keys rotate KEY_ID     (revokes KEY_ID and prints a new key for the same workspace and user)`

// keysCmd is `herald keys SUBCOMMAND`.
var keysCmd = verbs("keys", keysUsage, map[string]command{
	"create": keysCreate,
	"list":   keysList,
	"revoke": keysRevokeVerb("revoke"),
	"rotate": keysRevokeVerb("rotate"),
})

func keysCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("keys create", stderr, false)
	workspace := fs.String("workspace", "", "workspace name (created when missing)")
	plan := fs.String("plan", "", "plan of a new workspace (default business): "+strings.Join(config.PlanNames, ", "))
	setPlan := fs.Bool("set-plan", false, "change the plan of an existing workspace to --plan")
	user := fs.String("user", "", "user email (default owner@WORKSPACE); created in the workspace when missing")
	website := fs.String("website", "", "the user's own website (https://example.com); AI traffic's sites/ensure tracks it when the team has none")
	teamWebsite := fs.String("team-website", "", "the team (workspace) website; sites/ensure tracks it first")
	unattended := fs.Bool("mcp-unattended", false, "MCP write tools (schedule_content, cancel_schedule, generate_text, generate_image) run without asking the human through the client; for pipelines with nobody to ask")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *workspace == "" {
		return errors.New("keys create: --workspace is required")
	}
	if *plan != "" && !slices.Contains(config.PlanNames, *plan) {
		return fmt.Errorf("keys create: --plan must be one of %s", strings.Join(config.PlanNames, ", "))
	}
	if *setPlan && *plan == "" {
		return errors.New("keys create: --set-plan needs --plan")
	}
	if *user == "" {
		*user = "owner@" + *workspace
	}
	for flag, v := range map[string]string{"website": *website, "team-website": *teamWebsite} {
		if v == "" {
			continue
		}
		if _, err := traffic.NormalizeDomain(v); err != nil {
			return fmt.Errorf("keys create: --%s: %w", flag, err)
		}
	}
	st, _, err := f.open(ctx, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	// An existing workspace keeps its plan unless told otherwise: a --plan
	// that differs is an error, not silently ignored.
	newPlan := *plan
	switch ws, err := adminstore.New(st).WorkspaceByName(ctx, *workspace); {
	case errors.Is(err, store.ErrNotFound):
		if newPlan == "" {
			newPlan = "business"
		}
	case err != nil:
		return err
	default:
		if newPlan != "" && newPlan != ws.Plan {
			if !*setPlan {
				return fmt.Errorf("keys create: workspace %q has plan %s, not %s: add --set-plan to change it, or omit --plan", ws.Name, ws.Plan, newPlan)
			}
			if err := st.SetWorkspacePlan(ctx, ws.ID, newPlan); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "workspace %q: plan changed from %s to %s\n", ws.Name, ws.Plan, newPlan)
		}
		if !*setPlan {
			newPlan = ws.Plan
		}
	}
	key, err := auth.CreateKeyWith(ctx, st, *workspace, newPlan, *user, auth.KeyOptions{MCPUnattended: *unattended})
	if err != nil {
		return err
	}
	if *website != "" || *teamWebsite != "" {
		if err := setWebsites(ctx, st, *workspace, newPlan, *user, *website, *teamWebsite); err != nil {
			return err
		}
	}
	ws, u, err := st.EnsureWorkspaceUser(ctx, *workspace, newPlan, *user)
	if err != nil {
		return err
	}
	if *unattended {
		fmt.Fprintln(stderr, "this key's MCP write tools run without asking a human (--mcp-unattended)")
	}
	fmt.Fprintf(stdout, "API key for workspace %q (id %s, plan %s), user %s (id %s), shown once:\n%s\n", ws.Name, ws.ID, ws.Plan, u.Email, u.ID, key)
	return nil
}

func keysList(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("keys list", stderr, false)
	workspace := fs.String("workspace", "", "only this workspace's keys")
	st, err := adminStore(ctx, fs, f, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	wsID, err := workspaceFilter(ctx, st, "keys list", *workspace)
	if err != nil {
		return err
	}
	keys, err := adminstore.New(st).ListAPIKeys(ctx, wsID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY_ID\tPREFIX\tWORKSPACE\tWORKSPACE_ID\tUSER\tUSER_ID\tCREATED\tSTATUS\tMCP_WRITES")
	for _, k := range keys {
		status := "active"
		if k.RevokedAt != 0 {
			status = "revoked " + ms(k.RevokedAt)
		}
		writes := "ask"
		if k.MCPUnattended {
			writes = "unattended"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.WorkspaceName, k.WorkspaceID, k.UserEmail, k.UserID, ms(k.CreatedAt), status, writes)
	}
	return tw.Flush()
}

// keysRevokeVerb is keysRevoke as the command `keys VERB`.
func keysRevokeVerb(verb string) command {
	return func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
		return keysRevoke(ctx, verb, args, getenv, stdout, stderr)
	}
}

// keysRevoke is `keys revoke ID` and `keys rotate ID`.
func keysRevoke(ctx context.Context, verb string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := newFlagSet("keys "+verb, stderr, false)
	// Flags may come before or after the id.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	st, err := adminStore(ctx, fs, f, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	if id == "" && fs.NArg() == 1 {
		id = fs.Arg(0)
	}
	if id == "" || (fs.NArg() > 0 && fs.Arg(0) != id) {
		return fmt.Errorf("usage: herald keys %s KEY_ID (see herald keys list)", verb)
	}
	k, err := adminstore.New(st).GetAPIKey(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("keys %s: no key with id %q (see herald keys list)", verb, id)
	} else if err != nil {
		return err
	}
	if k.RevokedAt != 0 {
		return fmt.Errorf("keys %s: key %s is already revoked", verb, id)
	}
	var next *store.APIKey
	var secret string
	if verb == "rotate" {
		var hash string
		secret, hash = auth.GenerateKey()
		next = &store.APIKey{Prefix: secret[:7], Hash: hash}
	}
	if err := adminstore.New(st).RevokeAPIKey(ctx, id, next); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("keys %s: key %s is already revoked", verb, id)
	} else if err != nil {
		return err
	}
	if next == nil {
		fmt.Fprintf(stdout, "revoked key %s (%s…) of workspace %q, user %s\n", k.ID, k.Prefix, k.WorkspaceName, k.UserEmail)
		return nil
	}
	fmt.Fprintf(stdout, "revoked key %s; new key %s for workspace %q, user %s (shown once):\n%s\n", k.ID, next.ID, k.WorkspaceName, k.UserEmail, secret)
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
