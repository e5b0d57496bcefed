package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heraldhq/herald/integration/harness"
)

// tsClient is the TypeScript client's directory, when its pinned npm
// packages are installed (npm ci; .ci/run does it).
func tsClient(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(harness.Root(), "clients", "typescript")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "tsc")); err != nil {
		if os.Getenv("HERALD_REQUIRE_INTEGRATION") != "" {
			t.Fatalf("clients/typescript has no node_modules: run npm ci there (%v)", err)
		}
		t.Skip("clients/typescript has no node_modules (npm ci)")
	}
	return dir
}

func npx(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	bin := args[0]
	if bin != "node" {
		bin = filepath.Join(dir, "node_modules", ".bin", bin)
	}
	cmd := exec.Command(bin, args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The TypeScript client compiles (every @ts-expect-error of its contract
// test is a call the generated types refuse), and its tests pass against
// a running Herald.
func TestTheTypeScriptClientAgainstARunningHerald(t *testing.T) {
	t.Parallel()
	dir := tsClient(t)
	p := harness.Start(t, harness.Options{Env: withEnv(nil)})
	if out, err := npx(t, dir, nil, "tsc", "-p", "."); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	out, err := npx(t, dir, []string{"HERALD_URL=" + p.URL, "HERALD_KEY=" + p.Key}, "node", "--test", "dist/test/")
	if err != nil || !strings.Contains(out, "# fail 0") || strings.Contains(out, "# pass 0") {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

// The compile check is real: the same calls without their
// @ts-expect-error compile-time guards fail to compile, one per rule.
func TestTheTypeScriptClientRefusesCallsThatBreakARule(t *testing.T) {
	t.Parallel()
	dir := tsClient(t)
	src, err := os.ReadFile(filepath.Join(dir, "test", "contract.test.ts"))
	if err != nil {
		t.Fatal(err)
	}
	guards := strings.Count(string(src), "// @ts-expect-error")
	if guards < 15 {
		t.Fatalf("contract.test.ts has %d @ts-expect-error calls", guards)
	}
	tmp, err := os.MkdirTemp(dir, ".broken-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	broken := strings.ReplaceAll(string(src), "// @ts-expect-error", "// expected error:")
	if err := os.WriteFile(filepath.Join(tmp, "contract.ts"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `{"extends": "../tsconfig.json", "compilerOptions": {"noEmit": true, "rootDir": ".."}, "include": ["contract.ts", "../src"]}`
	if err := os.WriteFile(filepath.Join(tmp, "tsconfig.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := npx(t, dir, nil, "tsc", "-p", tmp)
	if err == nil {
		t.Fatal("tsc compiled the calls that break the document's rules")
	}
	errorsSeen := strings.Count(out, "error TS")
	if errorsSeen < guards {
		t.Fatalf("tsc found %d errors for %d rule-breaking calls:\n%s", errorsSeen, guards, out)
	}
}
