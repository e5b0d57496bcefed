//go:build linux

package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/integration/harness"
	"github.com/heraldhq/herald/internal/testwait"
)

// children returns the pids of the live processes whose parent is ppid,
// read from /proc.
func children(t *testing.T, ppid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parens.
		rest := string(raw[strings.LastIndexByte(string(raw), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if parent, _ := strconv.Atoi(f[1]); parent == ppid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid runs (a zombie waiting to be reaped has ended).
func alive(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// waitGone polls /proc until every pid has ended, or fails after within.
func waitGone(t *testing.T, pids []int, within time.Duration, what string) {
	t.Helper()
	var left []int
	gone := func() bool {
		left = left[:0]
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		return len(left) == 0
	}
	if testwait.Until(within, gone) != nil {
		for _, pid := range left {
			st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Logf("%d %q\n%s", pid, cmd, st)
		}
		t.Fatalf("%s: plugin processes %v still run after %s", what, left, within)
	}
}

// Plugin processes must not outlive their host: a plugin exits 0 on
// SIGTERM, and when the host is killed with SIGKILL every plugin it started
// ends within seconds instead of living on under init.
func TestPluginProcessesEndWithTheirHost(t *testing.T) {
	t.Parallel()
	openai := newFakeOpenAI(t, "sk-test")
	p := harness.Start(t, harness.Options{Env: map[string]string{
		"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": openai.URL + "/v1",
	}})
	// Start the openai plugin and, by describing them, every destination.
	if status, body := call(t, "POST", p.URL+"/v1/ai/generate/text", p.Key, `{"model":"gpt-4o","text":"hello"}`); status != 200 {
		t.Fatalf("generate: %d %v\n%s", status, body, p.Output())
	}
	if status, body := call(t, "GET", p.URL+"/v1/destinations", p.Key, ""); status != 200 {
		t.Fatalf("destinations: %d %v", status, body)
	}
	plugins := children(t, p.PID())
	if len(plugins) < 6 {
		t.Fatalf("host %d has %d child processes %v, want the 6 first-party plugins\n%s", p.PID(), len(plugins), plugins, p.Output())
	}

	// SIGTERM ends a plugin, with exit status 0 (go-plugin logs the exit
	// without an error).
	victim := plugins[0]
	if err := syscall.Kill(victim, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, []int{victim}, 5*time.Second, "SIGTERM")
	exitLine := ""
	testwait.Until(5*time.Second, func() bool { // no line is reported below
		for _, line := range strings.Split(p.Output(), "\n") {
			if strings.Contains(line, "plugin process exited") && strings.Contains(line, fmt.Sprintf("id=%d", victim)) {
				exitLine = line
			}
		}
		return exitLine != ""
	})
	if exitLine == "" || strings.Contains(exitLine, "error=") {
		t.Fatalf("exit of plugin %d after SIGTERM: %q, want an exit without error\n%s", victim, exitLine, p.Output())
	}

	// SIGKILL of the host: the other plugins end too.
	p.Kill()
	waitGone(t, plugins[1:], 10*time.Second, "host killed")
}
