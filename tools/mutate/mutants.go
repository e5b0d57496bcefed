package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
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
	start, end int    // offsets of the text replaced
	kind       string // "expr" (binary), "neg" (unary minus) or "stmt" (++, --)
	typ        string // the expression's type as the file can spell it
	x, y       [2]int // operand offsets (y unused for neg and stmt)
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

// findMutants parses the package's files (those `go list` says it builds;
// only those named in only are mutated, when it is not empty), type-checks
// them when it can, and lists their mutants and schemata sites.
func findMutants(o *options) (*pkgSource, []*mutant, error) {
	dir, only := o.dir, o.files
	list, err := goList(dir, `{{join .GoFiles " "}}`)
	if err != nil {
		return nil, nil, err
	}
	names := strings.Fields(list)
	sort.Strings(names)
	ps := &pkgSource{dir: dir, files: map[string][]byte{}}
	fset := token.NewFileSet()
	var parsed []*ast.File
	srcs := map[*ast.File][]byte{}
	for _, base := range names {
		src, err := os.ReadFile(filepath.Join(dir, base))
		if err != nil {
			return nil, nil, err
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, base), src, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		parsed = append(parsed, f)
		srcs[f] = src
		ps.pkgName = f.Name.Name
	}
	info := typeCheck(o, fset, parsed)
	var ms []*mutant
	for _, f := range parsed {
		base := filepath.Base(fset.Position(f.Pos()).Filename)
		if ast.IsGenerated(f) || (len(only) > 0 && !only[base]) {
			continue
		}
		src := srcs[f]
		ps.files[base] = src
		ms = append(ms, ps.fileMutants(fset, f, base, src, info)...)
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

func (ps *pkgSource) fileMutants(fset *token.FileSet, f *ast.File, base string, src []byte, info *types.Info) []*mutant {
	var ms []*mutant
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	// Statements of a list can become an if; an increment in a for
	// loop's post or an if's init cannot.
	inList := map[ast.Stmt]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		}
		for _, st := range list {
			inList[st] = true
		}
		return true
	})
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = recvName(fd.Recv.List[0].Type) + "." + name
			}
			ps.funcs = append(ps.funcs, funcRange{base, name, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line})
		}
	}
	spell := typeSpeller(f, info)
	// typeOf is how the file spells e's type when e is not a constant
	// (a constant may sit where only a constant can), "" when unknown.
	typeOf := func(e ast.Expr) string {
		if info == nil {
			return ""
		}
		tv, ok := info.Types[e]
		if !ok || tv.Value != nil || tv.Type == nil {
			return ""
		}
		return spell(tv.Type)
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
	newSite := func(n ast.Node, kind, typ, op string, x, y ast.Node) *site {
		st := &site{file: base, start: off(n.Pos()), end: off(n.End()), kind: kind, typ: typ, op: op,
			x: [2]int{off(x.Pos()), off(x.End())}}
		if y != nil {
			st.y = [2]int{off(y.Pos()), off(y.End())}
		}
		ps.sites = append(ps.sites, st)
		return st
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			// Constants are not mutated (gremlins does not either):
			// their values are pinned by tests that state the number.
			if n.Tok == token.CONST {
				return false
			}
		case *ast.BinaryExpr:
			muts := binary[n.Op]
			if len(muts) == 0 || (n.Op == token.ADD && (isString(n.X) || isString(n.Y) || isStringType(info, n))) {
				break
			}
			var st *site
			// A comparison is a bool whatever its operands; arithmetic
			// needs its type, spelled the way the file can.
			if isComparison(n.Op) {
				st = newSite(n, "expr", "bool", n.Op.String(), n.X, n.Y)
			} else if t := typeOf(n); t != "" {
				st = newSite(n, "expr", t, n.Op.String(), n.X, n.Y)
			}
			for _, m := range muts {
				add(n.OpPos, m.kind, n.Op.String(), m.to, st)
			}
		case *ast.IncDecStmt:
			to := "--"
			if n.Tok == token.DEC {
				to = "++"
			}
			var st *site
			if inList[n] {
				st = newSite(n, "stmt", "", n.Tok.String(), n.X, nil)
			}
			add(n.TokPos, "INCREMENT_DECREMENT", n.Tok.String(), to, st)
		case *ast.UnaryExpr:
			if n.Op == token.SUB {
				var st *site
				if t := typeOf(n); t != "" {
					st = newSite(n, "neg", t, "-", n.X, nil)
				}
				add(n.OpPos, "INVERT_NEGATIVES", "-", " ", st)
			}
		}
		return true
	})
	return ms
}

func isComparison(op token.Token) bool {
	switch op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
		return true
	}
	return false
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
