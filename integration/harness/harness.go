// Package harness builds the herald binary and runs it as real processes
// for black-box tests: start `herald serve` on a free loopback port, learn
// its URL and first API key from its output, stop it with SIGTERM or kill it
// with SIGKILL, and restart it on the same data.
//
// The log rule: a test fails when the server it started logs a warning or
// an error it did not expect. When the test ends, every line of the
// process's output (all starts of it, the relayed plugin logs included) at
// WARN or ERROR level must match one entry of the test's allow list
// (Options.AllowLog, or Proc.AllowLog for what a later step provokes), and
// each entry says why that line is expected. A judge that fails silently,
// a plugin that refuses an option, a job that retries: they all log, and
// now they all fail the test that caused them. Allow only what the test
// provokes on purpose (a crash it causes, a fake that answers 500), with
// the narrowest pattern that names it.
package harness

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Root returns the repository root (the directory of go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Binary builds ./host once per test process and returns the executable.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "herald-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "herald")
		// -buildvcs=auto: stamp the revision when built from a clone, even
		// where GOFLAGS turns stamping off (herald version prints it).
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, "./host")
		cmd.Dir = Root()
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./host: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Options configure a herald process.
type Options struct {
	// DataDir is HERALD_DATA_DIR; empty means a new t.TempDir().
	DataDir string
	// Env adds or overrides environment variables (HERALD_*, OPENAI_*...).
	Env map[string]string
	// Key is the API key of a previous start on the same store; the first
	// start against an empty store prints one and Start records it.
	Key string
	// AllowLog lists the WARN and ERROR lines this test expects (see the
	// package doc); any other such line fails the test when it ends.
	AllowLog []Allow
}

// Allow is one expected WARN or ERROR log line: Match is a regular
// expression searched in the line, Why the reason the test provokes it.
type Allow struct {
	Match string
	Why   string
}

// Proc is a running `herald serve`.
type Proc struct {
	// URL is the base URL it serves, such as http://127.0.0.1:41234.
	URL string
	// Key is the default workspace's API key.
	Key string
	// DataDir is its data dir, for restarts.
	DataDir string

	t    testing.TB
	bin  string
	opts Options
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error

	logMu   sync.Mutex
	outputs []*syncBuffer // one per start, for the log rule
	allowed []allowRule
}

type allowRule struct {
	re  *regexp.Regexp
	why string
}

var urlLine = regexp.MustCompile(`serving: url=(\S+)`)

// Start runs `herald serve` listening on a free loopback port and waits
// until /healthz answers. The process is killed when the test ends.
func Start(t testing.TB, opts Options) *Proc {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	p := &Proc{t: t, bin: Binary(t), opts: opts, DataDir: opts.DataDir, Key: opts.Key}
	for _, a := range opts.AllowLog {
		p.AllowLog(a.Match, a.Why)
	}
	// Registered before the first start's Kill, so it runs after the
	// process has exited and written everything.
	t.Cleanup(p.checkLog)
	p.start()
	return p
}

// AllowLog adds an expected WARN or ERROR line (match is a regular
// expression, why the reason) for the rest of the test: for a step that
// provokes it, such as killing a plugin.
func (p *Proc) AllowLog(match, why string) {
	p.t.Helper()
	if strings.TrimSpace(why) == "" {
		p.t.Fatalf("harness: AllowLog(%q) needs the reason the test expects it", match)
	}
	re, err := regexp.Compile(match)
	if err != nil {
		p.t.Fatalf("harness: AllowLog(%q): %v", match, err)
	}
	p.logMu.Lock()
	p.allowed = append(p.allowed, allowRule{re: re, why: why})
	p.logMu.Unlock()
}

// levelLine finds a WARN or ERROR line of hclog's text format ("[WARN] ",
// "[ERROR]") or its JSON format ("@level":"warn").
var levelLine = regexp.MustCompile(`\[(WARN|ERROR)\]|"@level":\s*"(warn|error)"`)

// UnexpectedLog returns the WARN and ERROR lines of every start's output
// that no allow entry matches.
func (p *Proc) UnexpectedLog() []string {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	var bad []string
	for _, out := range p.outputs {
		for _, line := range strings.Split(out.String(), "\n") {
			if !levelLine.MatchString(line) {
				continue
			}
			ok := false
			for _, a := range p.allowed {
				if a.re.MatchString(line) {
					ok = true
					break
				}
			}
			if !ok {
				bad = append(bad, line)
			}
		}
	}
	return bad
}

func (p *Proc) checkLog() {
	if bad := p.UnexpectedLog(); len(bad) > 0 {
		p.t.Errorf("herald logged %d unexpected WARN/ERROR line(s); fix the cause, or allow them with harness.Allow{Match, Why} when the test provokes them:\n%s",
			len(bad), strings.Join(bad, "\n"))
	}
}

func (p *Proc) start() {
	t := p.t
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"HERALD_LISTEN=127.0.0.1:0", "HERALD_DATA_DIR=" + p.opts.DataDir}
	for k, v := range p.opts.Env {
		env = append(env, k+"="+v)
	}
	p.out = &syncBuffer{}
	p.logMu.Lock()
	p.outputs = append(p.outputs, p.out)
	p.logMu.Unlock()
	p.cmd = exec.Command(p.bin, "serve")
	p.cmd.Env = env
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start herald: %v", err)
	}
	p.done = make(chan struct{})
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.Kill)

	deadline := time.Now().Add(60 * time.Second)
	for p.URL == "" {
		if m := urlLine.FindStringSubmatch(p.out.String()); m != nil {
			p.URL = m[1]
			break
		}
		select {
		case <-p.done:
			t.Fatalf("herald exited before serving: %v\n%s", p.err, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("herald did not serve within 60s:\n%s", p.out.String())
		}
	}
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.HasPrefix(line, "hk_") {
			p.Key = strings.TrimSpace(line)
		}
	}
	for {
		res, err := http.Get(p.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("herald /healthz not ready: %v\n%s", err, p.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Restart starts the process again on the same data dir and key after a
// Stop or Kill; the URL changes.
func (p *Proc) Restart() {
	p.t.Helper()
	p.opts.Key = p.Key
	p.URL = ""
	p.start()
}

// Kill sends SIGKILL and waits for the process to exit.
func (p *Proc) Kill() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// Stop sends SIGTERM and waits up to timeout; it returns the exit error
// (nil for exit status 0).
func (p *Proc) Stop(timeout time.Duration) error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("herald did not exit within %s of SIGTERM", timeout)
	}
}

// Signal sends sig to the process (SIGHUP reloads its config).
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// PID returns the process id of the running herald.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Output returns everything the process wrote so far.
func (p *Proc) Output() string { return p.out.String() }

// Run executes a one-shot herald command (keys, migrate...) with the same
// data dir and env and returns its stdout.
func (p *Proc) Run(ctx context.Context, args ...string) (string, error) {
	return RunCommand(ctx, p.t, p.opts.DataDir, p.opts.Env, args...)
}

// RunCommand executes herald with args, HERALD_DATA_DIR=dataDir and env.
func RunCommand(ctx context.Context, t testing.TB, dataDir string, env map[string]string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, Binary(t), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "HERALD_DATA_DIR=" + dataDir}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("herald %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// LastLine returns the last non-empty line of s (herald keys create prints
// the key there).
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
