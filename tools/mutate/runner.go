package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	killed     = "KILLED"
	lived      = "LIVED"
	notCovered = "NOT COVERED"
	timedOut   = "TIMED OUT"
	notViable  = "NOT VIABLE"
)

// runAll tests every mutant, o.workers at a time, printing each result.
func runAll(ctx context.Context, o *options, ps *pkgSource, tm *testMap, ms []*mutant, work, schemata string) {
	jobs := make(chan *mutant)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < o.workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for m := range jobs {
				test(ctx, o, ps, tm, m, filepath.Join(work, fmt.Sprintf("w%d", w)), schemata)
				mu.Lock()
				fmt.Printf("%-11s %s:%d:%d %s %s → %s (%s, %d tests, %.0fs)\n", m.Status, m.File, m.Line, m.Col,
					m.Kind, m.From, strings.TrimSpace(m.To), m.Func, m.Tests, m.Secs)
				mu.Unlock()
			}
		}(w)
	}
	for _, m := range ms {
		jobs <- m
	}
	close(jobs)
	wg.Wait()
}

// test builds and runs m's tests with the mutated file laid over the
// original.
func test(ctx context.Context, o *options, ps *pkgSource, tm *testMap, m *mutant, dir, schemata string) {
	tests := tm.testsFor(m)
	m.Tests = len(tests)
	if len(tests) == 0 {
		m.Status = notCovered
		return
	}
	start := time.Now()
	defer func() { m.Secs = time.Since(start).Seconds() }()
	limit := o.timeoutMin + time.Duration(o.factor*tm.seconds(tests)*float64(time.Second))
	if m.Site >= 0 && schemata != "" {
		runTests(o, m, schemata, tests, limit, schemaEnv+"="+fmt.Sprint(m.ID))
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		m.Status, m.Output = notViable, err.Error()
		return
	}
	src := filepath.Join(dir, m.File)
	if err := os.WriteFile(src, ps.mutated(m), 0o644); err != nil {
		m.Status, m.Output = notViable, err.Error()
		return
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(o.dir, m.File): src}})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		m.Status, m.Output = notViable, err.Error()
		return
	}
	bin := filepath.Join(dir, "pkg.test")
	os.Remove(bin)
	build := exec.CommandContext(ctx, "go", "test", "-c", "-vet=off", "-ldflags=-s -w", "-overlay", ov, "-o", bin, o.pkg)
	build.Dir = o.modRoot
	if out, err := build.CombinedOutput(); err != nil {
		m.Status, m.Output = notViable, tail(string(out), 10)
		return
	}
	runTests(o, m, bin, tests, limit, schemaEnv+"=0")
}

// runTests runs tests in bin and records what became of m.
func runTests(o *options, m *mutant, bin string, tests []string, limit time.Duration, env string) {
	cmd := exec.Command(bin, "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.count", "1", "-test.failfast")
	cmd.Dir = o.dir
	cmd.Env = append(os.Environ(), env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		m.Status, m.Output = notViable, err.Error()
		return
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		switch {
		case err == nil:
			m.Status = lived
		case errors.As(err, &exit):
			m.Status = killed
			m.Output = tail(out.String(), 8)
		default:
			m.Status, m.Output = notViable, err.Error()
		}
	case <-time.After(limit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		m.Status = timedOut
	}
}
