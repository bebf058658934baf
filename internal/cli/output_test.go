package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// printsLeft are the files of cli that still write texts themselves, at
// most that many fmt.Fprint* calls each, and why they were not moved to a
// view yet. The list only shrinks: move a file's texts into
// internal/views and remove its line.
var printsLeft = map[string]struct {
	calls  int
	reason string
}{}

// TestOutputThroughViews: cli parses, picks a view and sets the exit
// code; the texts a command prints are a view's (internal/views), as
// terraform's commands print only through views. A file that calls
// fmt.Fprint, Fprintf or Fprintln fails here unless printsLeft lists it.
func TestOutputThroughViews(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		ast.Inspect(file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Fprint") {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fmt" {
					calls = append(calls, fset.Position(sel.Pos()).String())
				}
			}
			return true
		})
		left, listed := printsLeft[name]
		switch {
		case !listed && len(calls) > 0:
			t.Errorf("%s writes texts itself (%s): print through a view of internal/views", name, strings.Join(calls, ", "))
		case listed && len(calls) > left.calls:
			t.Errorf("%s: %d fmt.Fprint* calls, more than the %d left (%s): print new texts through a view", name, len(calls), left.calls, strings.Join(calls, ", "))
		case listed && len(calls) == 0:
			t.Errorf("%s prints through views now: remove it from printsLeft", name)
		}
	}
	for name := range printsLeft {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("printsLeft names %s, which is gone: remove its line", name)
		}
	}
}
