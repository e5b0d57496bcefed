package sdk_test

// The SDK must be usable by a third party: a module outside this checkout
// that requires github.com/heraldhq/herald/sdk (replaced by this directory,
// as docs/PLUGINS.md tells authors working against a checkout) and gets
// everything else through the Go module proxy. These tests fail if the SDK
// imports Herald's host module, relies on a replace of its own, or if a
// snippet of docs/PLUGINS.md does not build and pass.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/sdk"
	"github.com/heraldhq/herald/sdk/plugintest"
)

// authorModule makes a module example.com/myplugin of files in a new
// temporary directory outside the checkout, with the commands
// docs/PLUGINS.md gives for working against a checkout (go mod init, go mod
// edit -replace, go mod tidy), and returns the directory.
func authorModule(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("go toolchain not found: %v", err)
	}
	sdkDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if rel, err := filepath.Rel(filepath.Dir(sdkDir), dir); err == nil && !strings.HasPrefix(rel, "..") {
		t.Fatalf("temporary directory %s is inside the checkout %s", dir, filepath.Dir(sdkDir))
	}
	goIn(t, dir, "mod", "init", "example.com/myplugin")
	goIn(t, dir, "mod", "edit", "-replace", "github.com/heraldhq/herald/sdk="+sdkDir)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goIn(t, dir, "mod", "tidy")
	return dir
}

// goIn runs the go command in dir as an author would: outside any
// workspace, resolving and recording dependencies (-mod=mod). The
// environment is inherited, so plugintest.Build in the module's own tests
// runs the same way.
func goIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

const authorProvider = `package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/heraldhq/herald/sdk"
)

type echo struct{}

func (echo) Info(context.Context) (sdk.ProviderInfo, error) {
	return sdk.ProviderInfo{Name: "echo", DisplayName: "Echo", Models: []sdk.Model{
		{ID: "echo-1", Capabilities: []sdk.Capability{sdk.CapabilityText, sdk.CapabilityChat}},
	}}, nil
}

func (echo) GenerateText(_ context.Context, req sdk.TextRequest) (sdk.TextResponse, error) {
	if req.Model != "echo-1" {
		return sdk.TextResponse{}, sdk.Errorf(sdk.CodeInvalidArgument, "unknown model %q", req.Model)
	}
	return sdk.TextResponse{Text: strings.ToUpper(req.Prompt), Model: req.Model, FinishReason: "stop"}, nil
}

func (echo) Chat(_ context.Context, req sdk.ChatRequest, stream sdk.ChatStream) error {
	if err := stream.Send(sdk.ChatEvent{TextDelta: "HI"}); err != nil {
		return err
	}
	return stream.Send(sdk.ChatEvent{Finish: &sdk.ChatFinish{FinishReason: "stop", Model: req.Model}})
}

func main() {
	if err := sdk.ServeProvider(echo{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`

// TestPluginAuthorPath builds a provider plugin in an empty module outside
// the checkout and runs the executable through the conformance checks as a
// go-plugin subprocess, the way the host starts plugins.
func TestPluginAuthorPath(t *testing.T) {
	dir := authorModule(t, map[string]string{"main.go": authorProvider})
	bin := filepath.Join(dir, "myplugin")
	goIn(t, dir, "build", "-o", bin, ".")

	// Only the SDK of Herald's packages is built into a plugin.
	for _, pkg := range strings.Fields(goIn(t, dir, "list", "-deps", "-f", "{{.ImportPath}}", ".")) {
		if strings.HasPrefix(pkg, "github.com/heraldhq/herald/") && !strings.HasPrefix(pkg, "github.com/heraldhq/herald/sdk") {
			t.Errorf("the plugin depends on %s, outside the SDK module", pkg)
		}
	}

	p := plugintest.Start(t, bin).Provider(t)
	res, err := p.GenerateText(context.Background(), sdk.TextRequest{Model: "echo-1", Prompt: "hello"})
	if err != nil || res.Text != "HELLO" {
		t.Fatalf("GenerateText through the subprocess = %+v, %v; want HELLO", res, err)
	}
	plugintest.CheckProvider(t, p, plugintest.ProviderChecks{
		Text: &sdk.TextRequest{Model: "echo-1", Prompt: "hello"},
		Chat: &sdk.ChatRequest{Model: "echo-1", Messages: []sdk.Message{{Role: sdk.RoleUser, Content: "hi"}}},
		Failures: []plugintest.TextFailure{{
			Name:    "an unknown model is invalid_argument",
			Request: sdk.TextRequest{Model: "whisper-1", Prompt: "hello"},
			Want:    sdk.Error{Code: sdk.CodeInvalidArgument},
		}},
	})
}

var goFence = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestPluginsDocSnippets builds every ```go block of docs/PLUGINS.md as a
// file of one module outside the checkout (a block with the "testing"
// import as a _test.go file), vets it and runs its tests: the snippets
// are a plugin and its conformance tests, and must work as written.
func TestPluginsDocSnippets(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "PLUGINS.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goFence.FindAllSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("docs/PLUGINS.md has %d go blocks, want the plugin and its test", len(blocks))
	}
	files := map[string]string{}
	for i, b := range blocks {
		src := string(b[1])
		if !strings.HasPrefix(src, "package ") {
			t.Fatalf("go block %d of docs/PLUGINS.md is not a complete file (starts %q): give it its package clause and imports", i+1, firstLine(src))
		}
		name := "snippet" + string(rune('a'+i))
		if strings.Contains(src, "\t\"testing\"\n") {
			name += "_test"
		}
		files[name+".go"] = src
	}
	dir := authorModule(t, files)
	goIn(t, dir, "vet", "./...")
	goIn(t, dir, "test", "-count=1", "./...")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
