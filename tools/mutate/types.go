package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// typeCheck type-checks the package against its dependencies' export data
// (`go list -export`), so that arithmetic mutants can join the schemata:
// their closure must name the expression's type. Without types (a check
// that fails) those mutants are built one by one.
func typeCheck(o *options, fset *token.FileSet, files []*ast.File) *types.Info {
	cmd := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}", ".")
	cmd.Dir = o.dir
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate: no export data, arithmetic mutants are built one by one:", err)
		return nil
	}
	exports := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Implicits: map[ast.Node]types.Object{}}
	var first error
	conf := types.Config{Importer: imp, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	checkedPath = o.importPath
	conf.Check(o.importPath, fset, files, info)
	if first != nil {
		fmt.Fprintln(os.Stderr, "mutate: the type check failed, arithmetic mutants are built one by one:", first)
		return nil
	}
	return info
}

// typeSpeller returns how file f spells a type: other packages by the
// names f imports them under. It returns "" for a type f cannot spell
// (a package it does not import, an unexported type of another package,
// an untyped constant's type).
func typeSpeller(f *ast.File, info *types.Info) func(types.Type) string {
	if info == nil {
		return func(types.Type) string { return "" }
	}
	names := map[string]string{}
	for _, is := range f.Imports {
		path, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		switch {
		case is.Name != nil && (is.Name.Name == "_" || is.Name.Name == "."):
		case is.Name != nil:
			names[path] = is.Name.Name
		default:
			if pn, ok := info.Implicits[is].(*types.PkgName); ok {
				names[path] = pn.Imported().Name()
			}
		}
	}
	return func(t types.Type) string {
		if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			return ""
		}
		spellable := true
		s := types.TypeString(t, func(p *types.Package) string {
			if p.Path() == pkgPathOf(info) {
				return ""
			}
			n, ok := names[p.Path()]
			if !ok {
				spellable = false
			}
			return n
		})
		if n, ok := t.(interface{ Obj() *types.TypeName }); ok {
			if obj := n.Obj(); obj.Pkg() != nil && obj.Pkg().Path() != pkgPathOf(info) && !obj.Exported() {
				spellable = false
			}
		}
		if !spellable {
			return ""
		}
		return s
	}
}

// pkgPathOf is the checked package's path.
func pkgPathOf(*types.Info) string { return checkedPath }

// checkedPath is the import path of the package being mutated.
var checkedPath string

// isStringType reports whether e is a string (or a type based on one):
// its `+` is a concatenation, which has no `-`.
func isStringType(info *types.Info, e ast.Expr) bool {
	if info == nil {
		return false
	}
	tv, ok := info.Types[e]
	if !ok || tv.Type == nil {
		return false
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}
