package main

import (
	"bytes"
	"context"
	"github.com/heraldhq/herald/host/internal/store/adminstore"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/auth"
	"github.com/heraldhq/herald/host/internal/store"
)

// herald runs the command in-process against dataDir.
func herald(t *testing.T, dataDir string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := func(k string) string {
		if k == "HERALD_DATA_DIR" {
			return dataDir
		}
		return ""
	}
	err := run(context.Background(), append([]string{"herald"}, args...), env, &out, &errb)
	return out.String(), errb.String(), err
}

var keyRe = regexp.MustCompile(`(?m)^hk_\S+$`)

func openTestStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

func valid(t *testing.T, st *store.Store, key string) bool {
	t.Helper()
	_, _, err := st.PrincipalByKeyHash(context.Background(), auth.HashKey(key))
	return err == nil
}

func TestKeysCreateKeepsPlanUnlessSetPlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, _, err := herald(t, dir, "keys", "create", "--workspace", "acme", "--plan", "pro"); err != nil {
		t.Fatal(err)
	}
	_, _, err := herald(t, dir, "keys", "create", "--workspace", "acme", "--plan", "free")
	if err == nil || !strings.Contains(err.Error(), "--set-plan") || !strings.Contains(err.Error(), "pro") {
		t.Fatalf("a different --plan on an existing workspace: got %v, want an error naming its plan and --set-plan", err)
	}
	// No key was created by the refused command.
	out, _, err := herald(t, dir, "keys", "list", "--workspace", "acme")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, " active"); n != 1 {
		t.Fatalf("keys list after a refused create: %d active keys, want 1:\n%s", n, out)
	}
	// Without --plan the existing plan stays; with --set-plan it changes.
	if out, _, err = herald(t, dir, "keys", "create", "--workspace", "acme", "--user", "b@acme.test"); err != nil || !strings.Contains(out, "plan pro") {
		t.Fatalf("create without --plan: %v\n%s", err, out)
	}
	if out, _, err = herald(t, dir, "keys", "create", "--workspace", "acme", "--plan", "free", "--set-plan"); err != nil || !strings.Contains(out, "plan free") {
		t.Fatalf("create with --set-plan: %v\n%s", err, out)
	}
	out, _, err = herald(t, dir, "workspaces", "list")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\S+\s+acme\s+free\s+2\s+3\s`).MatchString(out) {
		t.Fatalf("workspaces list: want acme, plan free, 2 users, 3 keys:\n%s", out)
	}
}

func TestKeysRevokeAndRotate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, _, err := herald(t, dir, "keys", "create", "--workspace", "acme")
	if err != nil {
		t.Fatal(err)
	}
	first := keyRe.FindString(out)
	out, _, err = herald(t, dir, "keys", "create", "--workspace", "acme", "--user", "b@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	second := keyRe.FindString(out)
	st := openTestStore(t, dir)
	ws, err := adminstore.New(st).WorkspaceByName(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := adminstore.New(st).ListAPIKeys(context.Background(), ws.ID)
	if err != nil || len(keys) != 2 {
		t.Fatalf("ListAPIKeys: %v %+v", err, keys)
	}
	out, _, err = herald(t, dir, "keys", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{keys[0].ID, keys[0].UserID, ws.ID} {
		if !strings.Contains(out, id) {
			t.Fatalf("keys list does not show id %s:\n%s", id, out)
		}
	}
	if strings.Contains(out, first) {
		t.Fatal("keys list shows a secret")
	}

	if _, _, err := herald(t, dir, "keys", "revoke", keys[0].ID); err != nil {
		t.Fatal(err)
	}
	if valid(t, st, first) || !valid(t, st, second) {
		t.Fatalf("after revoke: first valid=%v (want false), second valid=%v (want true)", valid(t, st, first), valid(t, st, second))
	}
	if _, _, err := herald(t, dir, "keys", "revoke", keys[0].ID); err == nil || !strings.Contains(err.Error(), "already revoked") {
		t.Fatalf("revoking twice: %v", err)
	}
	if _, _, err := herald(t, dir, "keys", "revoke", "nope"); err == nil || !strings.Contains(err.Error(), "no key") {
		t.Fatalf("revoking an unknown id: %v", err)
	}

	out, _, err = herald(t, dir, "keys", "rotate", keys[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	rotated := keyRe.FindString(out)
	if rotated == "" || rotated == second {
		t.Fatalf("rotate printed no new key:\n%s", out)
	}
	if valid(t, st, second) || !valid(t, st, rotated) {
		t.Fatal("after rotate the old key must be invalid and the new one valid")
	}
	p, _, err := st.PrincipalByKeyHash(context.Background(), auth.HashKey(rotated))
	if err != nil || p.UserID != keys[1].UserID || p.Workspace.ID != ws.ID {
		t.Fatalf("rotated key acts for %+v, want user %s of workspace %s", p, keys[1].UserID, ws.ID)
	}
}

func TestWorkspacesSetPlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, _, err := herald(t, dir, "keys", "create", "--workspace", "acme", "--plan", "pro"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := herald(t, dir, "workspaces", "set-plan", "--workspace", "acme", "--plan", "gold"); err == nil {
		t.Fatal("set-plan accepted an unknown plan")
	}
	if _, _, err := herald(t, dir, "workspaces", "set-plan", "--workspace", "nope", "--plan", "free"); err == nil {
		t.Fatal("set-plan accepted an unknown workspace")
	}
	if _, _, err := herald(t, dir, "workspaces", "set-plan", "--workspace", "acme", "--plan", "enterprise"); err != nil {
		t.Fatal(err)
	}
	ws, err := adminstore.New(openTestStore(t, dir)).WorkspaceByName(context.Background(), "acme")
	if err != nil || ws.Plan != "enterprise" {
		t.Fatalf("plan after set-plan: %+v %v", ws, err)
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, _, err := herald(t, dir, "serve", "--help"); err != nil {
		t.Fatalf("serve --help: %v, want success", err)
	}
	out, _, err := herald(t, dir, "version")
	if err != nil || !strings.HasPrefix(out, "herald ") || strings.TrimSpace(out) == "herald dev" {
		t.Fatalf("version: %q %v", out, err)
	}
}

func TestBootstrapKeyNotOnStdout(t *testing.T) {
	t.Parallel()
	st := openTestStore(t, t.TempDir())
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "key")
	var errb bytes.Buffer
	if err := bootstrap(context.Background(), st, &errb, file); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(b))
	if !valid(t, st, key) || strings.Contains(errb.String(), key) {
		t.Fatalf("--key-file: key valid=%v, stderr=%q", valid(t, st, key), errb.String())
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestPluginsFailsOnChecksumMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "herald.hcl")
	pin := strings.Repeat("0", 64)
	if err := os.WriteFile(cfg, []byte("plugin \"webhook\" {\n  kind = \"destination\"\n  sha256 = \""+pin+"\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := herald(t, dir, "plugins", "--config", cfg)
	if !strings.Contains(out, "MISMATCH") {
		t.Fatalf("plugins output has no MISMATCH:\n%s", out)
	}
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("plugins with a checksum mismatch: %v, want a failure", err)
	}
}

func TestServeRefusesAMalformedSecretKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"abc", "has a space in it but is long enough to pass the length rule"} {
		var out, errb bytes.Buffer
		env := func(k string) string {
			switch k {
			case "HERALD_SECRET_KEY":
				return key
			case "HERALD_LISTEN":
				return "127.0.0.1:0"
			}
			return ""
		}
		err := run(context.Background(), []string{"herald", "serve", "--data-dir", t.TempDir()}, env, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "HERALD_SECRET_KEY") {
			t.Fatalf("serve with secret key %q: %v, want an error naming HERALD_SECRET_KEY", key, err)
		}
	}
	if err := checkSecretKey(strings.Repeat("k", MinSecretKeyLen)); err != nil {
		t.Fatal(err)
	}
}

// keys create --mcp-unattended is stored on the key (and only that key),
// shown by keys list, and kept by a rotation.
func TestKeysCreateMCPUnattended(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ask, _, err := herald(t, dir, "keys", "create", "--workspace", "acme")
	if err != nil {
		t.Fatal(err)
	}
	free, _, err := herald(t, dir, "keys", "create", "--workspace", "acme", "--mcp-unattended")
	if err != nil {
		t.Fatal(err)
	}
	st := openTestStore(t, dir)
	flag := func(key string) bool {
		t.Helper()
		p, _, err := st.PrincipalByKeyHash(context.Background(), auth.HashKey(key))
		if err != nil {
			t.Fatal(err)
		}
		return p.MCPUnattended
	}
	askKey, freeKey := keyRe.FindString(ask), keyRe.FindString(free)
	if flag(askKey) || !flag(freeKey) {
		t.Fatalf("mcp_unattended: default key %v, --mcp-unattended key %v", flag(askKey), flag(freeKey))
	}
	out, _, err := herald(t, dir, "keys", "list", "--workspace", "acme")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "MCP_WRITES") || strings.Count(out, " ask") != 1 || strings.Count(out, "unattended") != 1 {
		t.Fatalf("keys list:\n%s", out)
	}
	var freeID string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(strings.TrimSpace(line), "unattended") {
			freeID = strings.Fields(line)[0]
		}
	}
	rot, _, err := herald(t, dir, "keys", "rotate", freeID)
	if err != nil {
		t.Fatal(err)
	}
	if next := keyRe.FindString(rot); next == "" || !flag(next) {
		t.Fatalf("rotation dropped the flag: %q", rot)
	}
}
