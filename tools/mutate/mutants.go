package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A mutant is one operator of one file changed: the source bytes at
// [Off, Off+len(From)) become To.
type mutant struct {
	ID     int     `json:"id"`
	File   string  `json:"file"` // base name within the package directory
	Line   int     `json:"line"`
	Col    int     `json:"col"`
	Kind   string  `json:"kind"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Off    int     `json:"-"`
	Func   string  `json:"func"` // enclosing function, "" at package level
	Status string  `json:"status"`
	Tests  int     `json:"tests"` // tests run against it
	Secs   float64 `json:"secs"`
	Output string  `json:"output,omitempty"`
	// Site is the index of the expression or statement the mutant changes
	// in its file's schemata sites, -1 when it has to be compiled alone.
	Site int `json:"-"`
}

// A site is an expression or statement rewritten, for mutant schemata,
// into code that runs the original or one of its mutants depending on the
// mutant chosen when the test binary starts.
type site struct {
	file       string
	start, end int  // offsets of the text replaced
	cmp        bool // a comparison (else an increment or decrement)
	x, y       [2]int
	op         string
	mutants    []*mutant
}

// The mutators gremlins enables by default, so scores compare with its:
// conditionals boundary and negation, arithmetic base, increment and
// decrement, and inverted negatives.
var binary = map[token.Token][]struct{ kind, to string }{
	token.LSS: {{"CONDITIONALS_BOUNDARY", "<="}, {"CONDITIONALS_NEGATION", ">="}},
	token.LEQ: {{"CONDITIONALS_BOUNDARY", "<"}, {"CONDITIONALS_NEGATION", ">"}},
	token.GTR: {{"CONDITIONALS_BOUNDARY", ">="}, {"CONDITIONALS_NEGATION", "<="}},
	token.GEQ: {{"CONDITIONALS_BOUNDARY", ">"}, {"CONDITIONALS_NEGATION", "<"}},
	token.EQL: {{"CONDITIONALS_NEGATION", "!="}},
	token.NEQ: {{"CONDITIONALS_NEGATION", "=="}},
	token.ADD: {{"ARITHMETIC_BASE", "-"}},
	token.SUB: {{"ARITHMETIC_BASE", "+"}},
	token.MUL: {{"ARITHMETIC_BASE", "/"}},
	token.QUO: {{"ARITHMETIC_BASE", "*"}},
	token.REM: {{"ARITHMETIC_BASE", "*"}},
}

// funcRange is a top-level function's extent, for mapping coverage blocks
// and mutants to the tests that run them.
type funcRange struct {
	file       string
	name       string
	start, end int // lines
}

type pkgSource struct {
	dir     string
	files   map[string][]byte // base name → source
	funcs   []funcRange
	pkgName string
	sites   []*site
}

// findMutants parses the package's non-test, non-generated files (only
// those named in only, when it is not empty) and lists their mutants.
func findMutants(dir string, only map[string]bool) (*pkgSource, []*mutant, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	ps := &pkgSource{dir: dir, files: map[string][]byte{}}
	var ms []*mutant
	fset := token.NewFileSet()
	for _, path := range names {
		base := filepath.Base(path)
		if strings.HasSuffix(base, "_test.go") || (len(only) > 0 && !only[base]) {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		if ast.IsGenerated(f) {
			continue
		}
		ps.files[base] = src
		ps.pkgName = f.Name.Name
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		forPost := map[ast.Stmt]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if fs, ok := n.(*ast.ForStmt); ok && fs.Post != nil {
				forPost[fs.Post] = true
			}
			return true
		})
		var stack []ast.Node
		inCmp := func() bool {
			for _, n := range stack {
				if b, ok := n.(*ast.BinaryExpr); ok && isComparison(b.Op) {
					return true
				}
			}
			return false
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				name := fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) > 0 {
					name = recvName(fd.Recv.List[0].Type) + "." + name
				}
				ps.funcs = append(ps.funcs, funcRange{base, name, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line})
			}
		}
		add := func(pos token.Pos, kind, from, to string, st *site) {
			p := fset.Position(pos)
			if !bytes.Equal(src[p.Offset:p.Offset+len(from)], []byte(from)) {
				panic(fmt.Sprintf("%s:%d:%d: want %q", base, p.Line, p.Column, from))
			}
			m := &mutant{File: base, Line: p.Line, Col: p.Column, Kind: kind, From: from, To: to, Off: p.Offset, Site: -1}
			if st != nil {
				st.mutants = append(st.mutants, m)
			}
			ms = append(ms, m)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			defer func() { stack = append(stack, n) }()
			switch n := n.(type) {
			case *ast.GenDecl:
				// Constants are not mutated (gremlins does not either):
				// their values are pinned by tests that state the number.
				if n.Tok == token.CONST {
					return false
				}
			case *ast.BinaryExpr:
				if (n.Op == token.ADD) && (isString(n.X) || isString(n.Y)) {
					break
				}
				var st *site
				// A comparison is always a bool, so it can become a
				// closure that picks the operator at run time, unless
				// it sits inside another comparison's operand.
				if isComparison(n.Op) && !inCmp() && !hasComparison(n.X) && !hasComparison(n.Y) {
					st = &site{file: base, start: off(n.Pos()), end: off(n.End()), cmp: true,
						x: [2]int{off(n.X.Pos()), off(n.X.End())}, y: [2]int{off(n.Y.Pos()), off(n.Y.End())}, op: n.Op.String()}
					ps.sites = append(ps.sites, st)
				}
				for _, m := range binary[n.Op] {
					add(n.OpPos, m.kind, n.Op.String(), m.to, st)
				}
			case *ast.IncDecStmt:
				to := "--"
				if n.Tok == token.DEC {
					to = "++"
				}
				var st *site
				if !forPost[n] {
					st = &site{file: base, start: off(n.Pos()), end: off(n.End()), x: [2]int{off(n.X.Pos()), off(n.X.End())}, op: n.Tok.String()}
					ps.sites = append(ps.sites, st)
				}
				add(n.TokPos, "INCREMENT_DECREMENT", n.Tok.String(), to, st)
			case *ast.UnaryExpr:
				if n.Op == token.SUB {
					add(n.OpPos, "INVERT_NEGATIVES", "-", " ", nil)
				}
			}
			return true
		})
	}
	for _, m := range ms {
		m.Func = ps.funcAt(m.File, m.Line)
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].File != ms[j].File {
			return ms[i].File < ms[j].File
		}
		return ms[i].Off < ms[j].Off
	})
	for i, m := range ms {
		m.ID = i + 1
	}
	return ps, ms, nil
}

func isComparison(op token.Token) bool {
	switch op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
		return true
	}
	return false
}

// hasComparison reports whether e holds a comparison (outside function
// literals, whose comparisons are sites of their own).
func hasComparison(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BinaryExpr:
			if isComparison(n.Op) {
				found = true
			}
		}
		return !found
	})
	return found
}

// isString reports whether e is a string literal: `+` on it is a
// concatenation, which has no `-`.
func isString(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func (ps *pkgSource) funcAt(file string, line int) string {
	for _, f := range ps.funcs {
		if f.file == file && line >= f.start && line <= f.end {
			return f.name
		}
	}
	return ""
}

// mutated returns the file's source with m applied.
func (ps *pkgSource) mutated(m *mutant) []byte {
	src := ps.files[m.File]
	out := make([]byte, 0, len(src)+2)
	out = append(out, src[:m.Off]...)
	out = append(out, m.To...)
	return append(out, src[m.Off+len(m.From):]...)
}
