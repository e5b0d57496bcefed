package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Mutant schemata: every comparison and increment the package has is
// rewritten into code that runs the original or one of its mutants,
// chosen by MUTANT_ID when the test binary starts, so one build serves
// them all. A comparison is a bool whatever its operands, so it becomes a
// closure without knowing their types; arithmetic would need the types,
// so its mutants are still built one by one.

const schemaEnv = "MUTANT_ID"

// buildSchemata builds the package's test binary with every site it can
// rewrite. Files whose rewrite does not compile keep their mutants to be
// built alone. It returns "" when nothing could be rewritten or the binary
// does not pass the mapped tests with no mutant chosen.
func buildSchemata(ctx context.Context, o *options, ps *pkgSource, tm *testMap, work string) (string, error) {
	dir := filepath.Join(work, "schemata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	sort.SliceStable(ps.sites, func(i, j int) bool {
		a, b := ps.sites[i], ps.sites[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.start != b.start {
			return a.start < b.start
		}
		return a.end > b.end
	})
	// Nested sites (an increment inside a function literal that is a
	// comparison's operand) stay with their outer site's text.
	lastFile, lastEnd := "", -1
	for i, s := range ps.sites {
		if s.file == lastFile && s.start < lastEnd {
			continue
		}
		lastFile, lastEnd = s.file, s.end
		for _, m := range s.mutants {
			m.Site = i
		}
	}
	dropped := map[string]bool{}
	bin := filepath.Join(dir, "schemata.test")
	errLine := regexp.MustCompile(`(?m)([A-Za-z0-9_.-]+\.go):\d+:\d+: `)
	for attempt := 0; attempt < 6; attempt++ {
		replace := map[string]string{}
		for file := range ps.files {
			if dropped[file] {
				continue
			}
			text, n := ps.rewrite(file)
			if n == 0 {
				continue
			}
			path := filepath.Join(dir, file)
			if err := os.WriteFile(path, text, 0o644); err != nil {
				return "", err
			}
			replace[filepath.Join(o.dir, file)] = path
		}
		if len(replace) == 0 {
			return "", nil
		}
		chooser := fmt.Sprintf("package %s\n\nimport (\n\t\"os\"\n\t\"strconv\"\n)\n\nvar mutantID__, _ = strconv.Atoi(os.Getenv(%q))\n\nfunc mutantOn__(id int) bool { return mutantID__ == id }\n", ps.pkgName, schemaEnv)
		chooserPath := filepath.Join(dir, "zz_mutant_chooser.go")
		if err := os.WriteFile(chooserPath, []byte(chooser), 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(o.dir, "zz_mutant_chooser.go")] = chooserPath
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
		ovPath := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
			return "", err
		}
		build := exec.CommandContext(ctx, "go", "test", "-c", "-vet=off", "-ldflags=-s -w", "-overlay", ovPath, "-o", bin, o.pkg)
		build.Dir = o.modRoot
		out, err := build.CombinedOutput()
		if err == nil {
			break
		}
		bad := errLine.FindAllStringSubmatch(string(out), -1)
		progress := false
		for _, b := range bad {
			if _, ok := ps.files[b[1]]; ok && !dropped[b[1]] {
				dropped[b[1]] = true
				progress = true
				fmt.Fprintf(os.Stderr, "mutate: schemata of %s do not compile; its mutants are built one by one:\n%s\n", b[1], tail(string(out), 6))
			}
		}
		if !progress {
			return "", fmt.Errorf("schemata do not compile:\n%s", tail(string(out), 20))
		}
	}
	for _, m := range ps.sitesMutants() {
		if dropped[m.File] {
			m.Site = -1
		}
	}
	// With no mutant chosen the binary must pass what the original passes.
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^("+strings.Join(tm.all, "|")+")$", "-test.count", "1")
	cmd.Dir = o.dir
	cmd.Env = append(os.Environ(), schemaEnv+"=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("the schemata binary fails with no mutant chosen:\n%s", tail(string(out), 20))
	}
	return bin, nil
}

func (ps *pkgSource) sitesMutants() []*mutant {
	var out []*mutant
	for _, s := range ps.sites {
		out = append(out, s.mutants...)
	}
	return out
}

// rewrite returns file's source with its kept sites rewritten, and how
// many there were.
func (ps *pkgSource) rewrite(file string) ([]byte, int) {
	src := ps.files[file]
	var kept []*site
	for i, s := range ps.sites {
		if s.file == file && len(s.mutants) > 0 && s.mutants[0].Site == i {
			kept = append(kept, s)
		}
	}
	out := append([]byte(nil), src...)
	for i := len(kept) - 1; i >= 0; i-- {
		s := kept[i]
		var b strings.Builder
		x := string(src[s.x[0]:s.x[1]])
		if s.cmp {
			y := string(src[s.y[0]:s.y[1]])
			b.WriteString("func() bool {")
			for _, m := range s.mutants {
				fmt.Fprintf(&b, " if mutantOn__(%d) { return %s %s %s };", m.ID, x, m.To, y)
			}
			fmt.Fprintf(&b, " return %s %s %s }()", x, s.op, y)
		} else {
			m := s.mutants[0]
			fmt.Fprintf(&b, "if mutantOn__(%d) { %s%s } else { %s%s }", m.ID, x, m.To, x, s.op)
		}
		out = append(out[:s.start:s.start], append([]byte(b.String()), out[s.end:]...)...)
	}
	return out, len(kept)
}
