package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasItsFiles: each command lives in one file named after
// it (cmd_state_rm.go for leadsync state rm), and each that runs has its
// parser in arguments/ (arguments/state_rm.go). A new command is those
// two files and a line that adds it.
func TestEveryCommandHasItsFiles(t *testing.T) {
	f, _, _ := configTestFactory(t.TempDir())
	root := NewRootCmd(f)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root || c.Hidden || strings.HasPrefix(c.Name(), "__") {
			return
		}
		name := strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "leadsync "), " ", "_"), "-", "_")
		if _, err := os.Stat("cmd_" + name + ".go"); err != nil {
			t.Errorf("%s: no file cmd_%s.go", c.CommandPath(), name)
		}
		if c.HasSubCommands() {
			return // a group: it only lists its commands
		}
		if _, err := os.Stat(filepath.Join("arguments", name+".go")); err != nil {
			t.Errorf("%s: no parser arguments/%s.go", c.CommandPath(), name)
		}
	}
	walk(root)
}

// TestFunctionsFitOnAScreen: no function of cli or its arguments is longer
// than maxFuncLines unless its doc comment says why it is long ("long
// because ..."). A function a reader can hold in mind is one they can see
// at once.
func TestFunctionsFitOnAScreen(t *testing.T) {
	const maxFuncLines = 80
	for _, dir := range []string{".", "arguments"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				if lines > maxFuncLines && (fn.Doc == nil || !strings.Contains(fn.Doc.Text(), "long because")) {
					t.Errorf("%s: %s is %d lines (at most %d, or a doc comment saying why it is long because ...)",
						fset.Position(fn.Pos()), fn.Name.Name, lines, maxFuncLines)
				}
			}
		}
	}
}
