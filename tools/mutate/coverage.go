package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// block is a coverage block of one file: the lines and columns it spans
// and the tests that ran it.
type block struct {
	file           string
	sl, sc, el, ec int
	tests          map[string]bool
}

func (b *block) contains(line, col int) bool {
	if line < b.sl || line > b.el {
		return false
	}
	if line == b.sl && col < b.sc {
		return false
	}
	if line == b.el && col >= b.ec {
		return false
	}
	return true
}

// testMap says which tests run which code of the package.
type testMap struct {
	all    []string
	blocks map[string][]*block // file → blocks (run or not)
	funcs  map[string]map[string]bool
	secs   map[string]float64 // each test's time alone
}

// mapTests builds the package's test binary with coverage of the package
// only, runs each top-level test alone, and records which blocks each
// test ran. Tests that fail alone are left out (they would kill every
// mutant) and reported.
func mapTests(ctx context.Context, o *options, ps *pkgSource, work string) (*testMap, error) {
	bin := filepath.Join(work, "cover.test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-vet=off", "-cover", "-covermode=set", "-coverpkg="+o.importPath, "-o", bin, o.pkg)
	build.Dir = o.modRoot
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the covered test binary: %v\n%s", err, out)
	}
	list := exec.CommandContext(ctx, bin, "-test.list", ".")
	list.Dir = o.dir
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("list tests: %v", err)
	}
	tm := &testMap{blocks: map[string][]*block{}, funcs: map[string]map[string]bool{}, secs: map[string]float64{}}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Test") && (o.run == nil || o.run.MatchString(l)) {
			names = append(names, l)
		}
	}
	var mu sync.Mutex
	jobs := make(chan string)
	var wg sync.WaitGroup
	var failed []string
	for w := 0; w < o.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range jobs {
				prof := filepath.Join(work, "cover-"+name+".out")
				cmd := exec.CommandContext(ctx, bin, "-test.run", "^"+name+"$", "-test.count", "1", "-test.coverprofile", prof)
				cmd.Dir = o.dir
				start := time.Now()
				out, err := cmd.CombinedOutput()
				secs := time.Since(start).Seconds()
				mu.Lock()
				if err != nil {
					failed = append(failed, name)
					fmt.Fprintf(os.Stderr, "mutate: %s fails alone, left out:\n%s\n", name, tail(string(out), 20))
				} else {
					tm.secs[name] = secs
					tm.all = append(tm.all, name)
					if err := tm.add(name, prof, ps); err != nil {
						fmt.Fprintln(os.Stderr, "mutate:", err)
					}
				}
				mu.Unlock()
				os.Remove(prof)
			}
		}()
	}
	for _, n := range names {
		jobs <- n
	}
	close(jobs)
	wg.Wait()
	sort.Strings(tm.all)
	if len(tm.all) == 0 {
		return nil, fmt.Errorf("no test of %s passes alone", o.pkg)
	}
	return tm, nil
}

// add reads one test's coverage profile.
func (tm *testMap) add(test, prof string, ps *pkgSource) error {
	f, err := os.Open(prof)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		// importpath/file.go:SL.SC,EL.EC N COUNT
		colon := strings.LastIndex(line, ".go:")
		if colon < 0 {
			continue
		}
		file := filepath.Base(line[:colon+3])
		if _, ok := ps.files[file]; !ok {
			continue
		}
		var sl, sc2, el, ec, n, count int
		if _, err := fmt.Sscanf(line[colon+4:], "%d.%d,%d.%d %d %d", &sl, &sc2, &el, &ec, &n, &count); err != nil {
			return fmt.Errorf("%s: %q: %v", prof, line, err)
		}
		b := tm.block(file, sl, sc2, el, ec)
		if count > 0 {
			b.tests[test] = true
			fn := ps.funcAt(file, sl)
			if tm.funcs[fn] == nil {
				tm.funcs[fn] = map[string]bool{}
			}
			tm.funcs[fn][test] = true
		}
	}
	return sc.Err()
}

func (tm *testMap) block(file string, sl, sc, el, ec int) *block {
	for _, b := range tm.blocks[file] {
		if b.sl == sl && b.sc == sc && b.el == el && b.ec == ec {
			return b
		}
	}
	b := &block{file: file, sl: sl, sc: sc, el: el, ec: ec, tests: map[string]bool{}}
	tm.blocks[file] = append(tm.blocks[file], b)
	return b
}

// testsFor returns the tests that run m's code: those that ran its
// coverage block, or, when it lies in no block (the condition of a
// switch case, which Go's coverage starts after), those that ran any
// block of its function. Package-level code is run by every test.
func (tm *testMap) testsFor(m *mutant) []string {
	var set map[string]bool
	for _, b := range tm.blocks[m.File] {
		if b.contains(m.Line, m.Col) {
			set = b.tests
			break
		}
	}
	if set == nil {
		if m.Func == "" {
			return tm.all
		}
		set = tm.funcs[m.Func]
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (tm *testMap) seconds(tests []string) float64 {
	s := 0.0
	for _, t := range tests {
		s += tm.secs[t]
	}
	return s
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
