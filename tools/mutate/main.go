// Command mutate is the project's mutation tester. It changes one operator
// of a package at a time, the way gremlins' default mutators do
// (conditionals boundary and negation, arithmetic base, increment and
// decrement, inverted negatives), and runs against each mutant only the
// tests that run the mutated code, found beforehand from per-test coverage.
// Gremlins runs the package's whole suite per mutant, which for packages
// whose suites need PostgreSQL and Redis (store, visibility, jobs) takes
// hours; selecting tests makes a run minutes. Unlike gremlins it also
// mutates the conditions of switch cases (Go's coverage blocks begin after
// a case's colon, so gremlins calls them not covered), mapping them to the
// tests that ran their function.
//
// Mutants are applied with `go test -overlay`, so the checkout is never
// changed and workers run side by side. A mutant is KILLED when a selected
// test fails, LIVED when they all pass, NOT COVERED when no test runs its
// code, NOT VIABLE when it does not compile (`+` on strings), TIMED OUT when
// its tests run far longer than they did on the unchanged code.
//
// Usage, from the module root:
//
//	go run ./tools/mutate [-files a.go,b.go] [-run REGEXP] [-workers N] [-json out.jsonl] ./host/internal/store
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

type options struct {
	pkg          string // ./path as given
	dir          string // absolute package directory
	modRoot      string
	importPath   string
	files        map[string]bool
	run          *regexp.Regexp
	workers      int
	jsonOut      string
	timeoutMin   time.Duration
	factor       float64
	list         bool
	noSchemata   bool
	schemataOnly bool
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run() error {
	o := &options{}
	files := flag.String("files", "", "comma-separated files of the package to mutate (default: all)")
	runRE := flag.String("run", "", "only tests matching this regexp judge the mutants")
	flag.IntVar(&o.workers, "workers", 1, "mutants tested at once")
	flag.StringVar(&o.jsonOut, "json", "", "write one JSON line per mutant to this file")
	flag.DurationVar(&o.timeoutMin, "timeout", 30*time.Second, "the least time a mutant's tests get")
	flag.Float64Var(&o.factor, "timeout-factor", 4, "a mutant's tests get this many times their time on the unchanged code, on top of -timeout")
	flag.BoolVar(&o.list, "list", false, "list the mutants and the tests each would run, without running them")
	flag.BoolVar(&o.noSchemata, "no-schemata", false, "build every mutant alone")
	flag.BoolVar(&o.schemataOnly, "schemata", false, "build the schemata binary, say how many mutants it holds, and stop")
	ids := flag.String("ids", "", "only these mutants (comma-separated ids from -json), e.g. a first pass's survivors")
	count := flag.Bool("n", false, "count the mutants per file and stop")
	flag.Parse()
	if flag.NArg() != 1 {
		return fmt.Errorf("usage: mutate [flags] ./path/to/package")
	}
	o.pkg = flag.Arg(0)
	var err error
	if o.dir, err = filepath.Abs(o.pkg); err != nil {
		return err
	}
	if *files != "" {
		o.files = map[string]bool{}
		for _, f := range strings.Split(*files, ",") {
			o.files[strings.TrimSpace(f)] = true
		}
	}
	if *runRE != "" {
		if o.run, err = regexp.Compile(*runRE); err != nil {
			return err
		}
	}
	if o.modRoot, err = goList(o.dir, "{{.Module.Dir}}"); err != nil {
		return err
	}
	if o.importPath, err = goList(o.dir, "{{.ImportPath}}"); err != nil {
		return err
	}
	rel, err := filepath.Rel(o.modRoot, o.dir)
	if err != nil {
		return err
	}
	o.pkg = "./" + filepath.ToSlash(rel)

	ps, ms, err := findMutants(o)
	if err != nil {
		return err
	}
	if *ids != "" {
		want := map[string]bool{}
		for _, id := range strings.Split(*ids, ",") {
			want[strings.TrimSpace(id)] = true
		}
		var kept []*mutant
		for _, m := range ms {
			if want[fmt.Sprint(m.ID)] {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	if *count {
		per := map[string]int{}
		for _, m := range ms {
			per[m.File]++
		}
		for f, n := range per {
			fmt.Printf("%6d %s\n", n, f)
		}
		fmt.Printf("%6d %s\n", len(ms), o.pkg)
		return nil
	}
	work, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ctx := context.Background()
	start := time.Now()
	if o.schemataOnly {
		tm := &testMap{all: []string{"^$"}}
		bin, err := buildSchemata(ctx, o, ps, tm, work)
		n := 0
		for _, m := range ms {
			if m.Site >= 0 && bin != "" {
				n++
			}
		}
		fmt.Printf("%s: %d of %d mutants share one build (schemata); %v\n", o.pkg, n, len(ms), err)
		return err
	}
	tm, err := mapTests(ctx, o, ps, work)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d mutants, %d tests mapped in %s\n", o.pkg, len(ms), len(tm.all), time.Since(start).Round(time.Second))
	if o.list {
		for _, m := range ms {
			fmt.Printf("%s:%d:%d %s %s→%s (%s) tests=%d\n", m.File, m.Line, m.Col, m.Kind, m.From, strings.TrimSpace(m.To), m.Func, len(tm.testsFor(m)))
		}
		return nil
	}
	schemata := ""
	if !o.noSchemata {
		if schemata, err = buildSchemata(ctx, o, ps, tm, work); err != nil {
			fmt.Fprintln(os.Stderr, "mutate: every mutant is built alone:", err)
			for _, m := range ms {
				m.Site = -1
			}
			schemata = ""
		}
	}
	n := 0
	for _, m := range ms {
		if m.Site >= 0 && schemata != "" {
			n++
		}
	}
	fmt.Printf("%s: %d of %d mutants share one build (schemata), %s so far\n", o.pkg, n, len(ms), time.Since(start).Round(time.Second))
	runAll(ctx, o, ps, tm, ms, work, schemata)
	return report(o, ms, time.Since(start))
}

func goList(dir, format string) (string, error) {
	cmd := exec.Command("go", "list", "-f", format, ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list in %s: %v", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func report(o *options, ms []*mutant, took time.Duration) error {
	count := map[string]int{}
	for _, m := range ms {
		count[m.Status]++
	}
	if o.jsonOut != "" {
		f, err := os.Create(o.jsonOut)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		for _, m := range ms {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	k, l := count[killed], count[lived]
	eff := 0.0
	if k+l > 0 {
		eff = 100 * float64(k) / float64(k+l)
	}
	fmt.Printf("%s: killed %d, lived %d, not covered %d, timed out %d, not viable %d; efficacy %.1f%%; %s\n",
		o.pkg, k, l, count[notCovered], count[timedOut], count[notViable], eff, took.Round(time.Second))
	return nil
}
