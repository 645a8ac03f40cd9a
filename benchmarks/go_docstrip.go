// Doc comment removal with Go's own parser: `go run go_docstrip.go ROOT OUT` reads every .go file
// under ROOT (no _test.go, testdata, vendor or folder the go tool ignores: _x, .x), writes a copy under OUT with the doc comment of every
// func, method, type and interface method blanked (spaces, newlines kept: line numbers unchanged),
// and prints {"files": n, "docs": [{source, qualname, name, kind, start, end, doc}]}: each documented
// declaration with its line span (go/token positions of the declaration, its doc comment left out),
// its qualified name (a method is Recv.Method, the receiver's type without pointer or type
// parameters; an interface's method is Interface.Method) and its doc text (go/ast's
// CommentGroup.Text: comment markers and directives removed). A file that does not parse is left out.
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type target struct {
	Source   string `json:"source"`
	Qualname string `json:"qualname"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // function | method | type | interface_method
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Doc      string `json:"doc"`
}

// receiverType is the receiver's type name: *T, T[K, V] and *T[K] are all T.
func receiverType(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

func main() {
	root, _ := filepath.Abs(os.Args[1])
	out, _ := filepath.Abs(os.Args[2])
	var paths []string
	walked := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			paths = append(paths, p)
		}
		return nil
	})
	if walked != nil {
		panic(walked)
	}
	sort.Strings(paths)
	docs := []target{}
	files := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			panic(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			continue // not stripped reliably: left out
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		line := func(pos token.Pos) int { return fset.Position(pos).Line }
		var blank []*ast.CommentGroup
		add := func(doc *ast.CommentGroup, qualname, name, kind string, from, to token.Pos) {
			if doc == nil {
				return
			}
			blank = append(blank, doc)
			docs = append(docs, target{rel, qualname, name, kind, line(from), line(to), doc.Text()})
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				qualname, kind := d.Name.Name, "function"
				if d.Recv != nil && len(d.Recv.List) > 0 {
					if recv := receiverType(d.Recv.List[0].Type); recv != "" {
						qualname, kind = recv+"."+d.Name.Name, "method"
					}
				}
				add(d.Doc, qualname, d.Name.Name, kind, d.Pos(), d.End())
			case *ast.GenDecl:
				if d.Tok != token.TYPE {
					continue
				}
				for _, s := range d.Specs {
					spec := s.(*ast.TypeSpec)
					doc, from, to := spec.Doc, spec.Pos(), spec.End()
					if !d.Lparen.IsValid() { // `type T struct{...}`: the comment is the GenDecl's
						doc, from, to = d.Doc, d.Pos(), d.End()
					}
					add(doc, spec.Name.Name, spec.Name.Name, "type", from, to)
					if iface, ok := spec.Type.(*ast.InterfaceType); ok {
						for _, m := range iface.Methods.List {
							if _, isFunc := m.Type.(*ast.FuncType); isFunc && len(m.Names) == 1 {
								add(m.Doc, spec.Name.Name+"."+m.Names[0].Name, m.Names[0].Name, "interface_method", m.Pos(), m.End())
							}
						}
					}
				}
			}
		}
		stripped := append([]byte(nil), src...)
		for _, group := range blank {
			for _, c := range group.List {
				for i := fset.Position(c.Pos()).Offset; i < fset.Position(c.End()).Offset; i++ {
					if stripped[i] != '\n' && stripped[i] != '\r' {
						stripped[i] = ' '
					}
				}
			}
		}
		target := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(target, stripped, 0o644); err != nil {
			panic(err)
		}
		files++
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{"files": files, "docs": docs})
}
