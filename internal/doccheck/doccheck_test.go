package doccheck

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's top directory (the one with go.mod).
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no repository root above the working directory")
		}
		dir = parent
	}
}

// skipDir are directories that hold no project text: build output,
// installed packages, vendored bundles.
func skipDir(name string) bool {
	return name == ".git" || name == "bin" || name == "node_modules" || name == "testdata" || name == "dist"
}

// vendored are third-party files kept as they were shipped.
func vendored(path string) bool {
	base := filepath.Base(path)
	return strings.Contains(base, ".standalone.") || strings.Contains(base, ".min.") ||
		strings.Contains(filepath.ToSlash(path), "/vendor/")
}

func walk(t *testing.T, top string, keep func(path string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != top && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if keep(path) && !vendored(path) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// outsideRef is what a comment must not say: a document that is not in
// the repository, or an issue number ("issue 12", "#12").
var outsideRef = regexp.MustCompile(`(VISIBILITY|DESIGN|SPEC|STYLE)\.md|\b[Ii]ssues? [0-9]+|(^|[\s(])#[0-9]+\b`)

// comments returns the comment lines of a .go, .js or .proto file.
func comments(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".go") {
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []string
		for _, g := range f.Comments {
			for _, c := range g.List {
				out = append(out, strings.Split(c.Text, "\n")...)
			}
		}
		return out
	}
	// .js and .proto: // line comments and /* */ blocks.
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(src), "\n") {
		if inBlock {
			out = append(out, line)
			if strings.Contains(line, "*/") {
				inBlock = false
			}
			continue
		}
		if i := strings.Index(line, "/*"); i >= 0 {
			out = append(out, line[i:])
			inBlock = !strings.Contains(line[i:], "*/")
			continue
		}
		if i := strings.Index(line, "//"); i >= 0 && !strings.Contains(line[:i], "://") && !strings.HasSuffix(strings.TrimSpace(line[:i]), ":") {
			out = append(out, line[i:])
		}
	}
	return out
}

func TestNoCommentPointsOutsideTheRepository(t *testing.T) {
	t.Parallel()
	top := root(t)
	files := walk(t, top, func(path string) bool {
		if strings.HasSuffix(path, "_test.go") {
			return false
		}
		ext := filepath.Ext(path)
		return ext == ".go" || ext == ".js" || ext == ".proto"
	})
	if len(files) < 100 {
		t.Fatalf("found %d source files under %s; the walk is broken", len(files), top)
	}
	for _, path := range files {
		for _, line := range comments(t, path) {
			if m := outsideRef.FindString(line); m != "" {
				rel, _ := filepath.Rel(top, path)
				t.Errorf("%s: comment mentions %q (say the rule itself, or point at a file in docs/): %s", rel, strings.TrimSpace(m), strings.TrimSpace(line))
			}
		}
	}
}

func TestTheCommentCheckSeesAReference(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"// see VISIBILITY.md", "// (issue 23)", "// Issue 18: x", "// fixed in #12", "// SPEC.md's order"} {
		if !outsideRef.MatchString(bad) {
			t.Errorf("%q is not caught", bad)
		}
	}
	for _, good := range []string{"// see docs/METRICS.md", "// color #fff", "// step 3 of 4", "// an issue with 3 fields"} {
		if outsideRef.MatchString(good) {
			t.Errorf("%q is caught", good)
		}
	}
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	fence    = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	inlineCd = regexp.MustCompile("`[^`\n]*`")
	htmlID   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces to hyphens.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors are the link targets inside a Markdown file.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	body := fence.ReplaceAllString(text, "")
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(body, -1) {
		h := strings.ReplaceAll(m[1], "`", "")
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	for _, m := range htmlID.FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	return out
}

func TestEveryDocumentationLinkResolves(t *testing.T) {
	t.Parallel()
	top := root(t)
	pages := []string{filepath.Join(top, "README.md"), filepath.Join(top, "CHANGELOG.md")}
	pages = append(pages, walk(t, filepath.Join(top, "docs"), func(p string) bool { return strings.HasSuffix(p, ".md") })...)
	pages = append(pages, walk(t, filepath.Join(top, "clients"), func(p string) bool { return strings.HasSuffix(p, ".md") })...)
	cache := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := cache[path]; ok {
			return a
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		cache[path] = anchors(string(raw))
		return cache[path]
	}
	links := 0
	for _, page := range pages {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := inlineCd.ReplaceAllString(fence.ReplaceAllString(string(raw), ""), "")
		rel, _ := filepath.Rel(top, page)
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %s does not exist", rel, target, file)
					continue
				}
			}
			if anchor != "" {
				if !strings.HasSuffix(dest, ".md") {
					continue // a line anchor of a source file
				}
				if !anchorsOf(dest)[anchor] {
					t.Errorf("%s: link %q: no heading #%s in %s", rel, target, anchor, filepath.Base(dest))
				}
			}
		}
	}
	if links < 10 {
		t.Fatalf("found %d relative links in %d pages; the parser is broken", links, len(pages))
	}
}
