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
	// Sites nest (an operand holding another comparison): each is
	// rendered with the sites inside its operands rendered in turn.
	for i, s := range ps.sites {
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

// rewrite returns file's source with its sites rewritten, and how many
// there were.
func (ps *pkgSource) rewrite(file string) ([]byte, int) {
	src := ps.files[file]
	var sites []*site // sorted by start, outer before inner
	for i, s := range ps.sites {
		if s.file == file && len(s.mutants) > 0 && s.mutants[0].Site == i {
			sites = append(sites, s)
		}
	}
	return []byte(ps.render(src, 0, len(src), sites)), len(sites)
}

// render returns src[start:end] with the sites within it (sorted, outer
// first) rewritten.
func (ps *pkgSource) render(src []byte, start, end int, inner []*site) string {
	var b strings.Builder
	pos := start
	for i := 0; i < len(inner); {
		s := inner[i]
		j := i + 1
		for j < len(inner) && inner[j].start < s.end {
			j++
		}
		b.Write(src[pos:s.start])
		b.WriteString(ps.renderSite(src, s, inner[i+1:j]))
		pos, i = s.end, j
	}
	b.Write(src[pos:end])
	return b.String()
}

func within(sites []*site, r [2]int) []*site {
	var out []*site
	for _, s := range sites {
		if s.start >= r[0] && s.end <= r[1] {
			out = append(out, s)
		}
	}
	return out
}

func (ps *pkgSource) renderSite(src []byte, s *site, children []*site) string {
	x := ps.render(src, s.x[0], s.x[1], within(children, s.x))
	var b strings.Builder
	switch s.kind {
	case "expr":
		y := ps.render(src, s.y[0], s.y[1], within(children, s.y))
		fmt.Fprintf(&b, "func() %s {", s.typ)
		for _, m := range s.mutants {
			fmt.Fprintf(&b, " if mutantOn__(%d) { return %s %s %s };", m.ID, x, m.To, y)
		}
		fmt.Fprintf(&b, " return %s %s %s }()", x, s.op, y)
	case "neg":
		m := s.mutants[0]
		fmt.Fprintf(&b, "func() %s { if mutantOn__(%d) { return %s }; return -%s }()", s.typ, m.ID, x, x)
	default:
		m := s.mutants[0]
		fmt.Fprintf(&b, "if mutantOn__(%d) { %s%s } else { %s%s }", m.ID, x, m.To, x, s.op)
	}
	return b.String()
}
