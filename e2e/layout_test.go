package e2e

// The code: every production function fits on a screen, or says why not.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxFuncLines is the longest a production function may be without a doc
// comment saying why ("long because ..."): about a screen, which a reader
// can hold in mind.
const maxFuncLines = 80

// TestFunctionsFitOnAScreen checks every function of the repository's
// production code (not tests, not testdata, not generated files).
func TestFunctionsFitOnAScreen(t *testing.T) {
	root := repoFile()
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(file) {
			return nil
		}
		checked++
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines && (fn.Doc == nil || !strings.Contains(fn.Doc.Text(), "long because")) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: %s is %d lines (at most %d, or a doc comment that says why it is long because ...)",
					rel, fset.Position(fn.Pos()).Line, fn.Name.Name, lines, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d production files found under %s: the walk is wrong", checked, root)
	}
}

// repoPath is a path of the repository written in code in the docs:
// `internal/state/fold.go`, `e2e/testdata/script/`.
var repoPath = regexp.MustCompile("`((?:internal|e2e|bench|examples|testdata|docs|\\.ci)/[A-Za-z0-9_./-]*)`")

// TestDocsNameFilesThatExist: every file or folder of the repository that
// the "where a change goes" sections of docs/architecture.md and
// CONTRIBUTING.md name exists, so that a reader who follows them finds
// what they say.
func TestDocsNameFilesThatExist(t *testing.T) {
	for _, doc := range []string{"docs/architecture.md", "CONTRIBUTING.md"} {
		b, err := os.ReadFile(repoFile(doc))
		if err != nil {
			t.Fatal(err)
		}
		in, named := false, 0
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "## ") {
				in = line == "## Where a change goes"
				continue
			}
			if !in {
				continue
			}
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				named++
				if _, err := os.Stat(repoFile(filepath.FromSlash(strings.TrimSuffix(m[1], "/")))); err != nil {
					t.Errorf("%s:%d names %s, which does not exist", doc, i+1, m[1])
				}
			}
		}
		if named < 5 {
			t.Errorf("%s: its \"Where a change goes\" section names %d files; the test reads the wrong section", doc, named)
		}
	}
}

// TestSkipsGoThroughTestenv: every test that skips says so through
// internal/testenv, which turns a skip into a failure under CI=true, so
// that CI never passes a test it did not run.
func TestSkipsGoThroughTestenv(t *testing.T) {
	skip := regexp.MustCompile(`\b(t|b|tb)\.(Skip|Skipf|SkipNow)\(`)
	root := repoFile()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && rel != "." || rel == filepath.Join("internal", "testenv")) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if skip.MatchString(line) {
				t.Errorf("%s:%d: skips without internal/testenv (a skip CI would not see): %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// leaves are the packages that import nothing of the repository, only the
// standard library, so that every other package can share them without
// taking in the client, the state or each other: the person model and the
// one table of person fields (the client, the state, its codec and the
// writers all read it), the one table of block kinds (config, address,
// plan, state, run and views read it), and the sandbox's knobs (its
// defaults and faults, which both the sandbox and the parser of the
// sandbox command's line read).
var leaves = []string{"internal/person", "internal/kind", "internal/sandbox/knobs"}

// TestLeavesImportOnlyTheStandardLibrary: a production file of a leaf
// that imports a package of leadsync or of another module fails here.
func TestLeavesImportOnlyTheStandardLibrary(t *testing.T) {
	for _, leaf := range leaves {
		files, err := filepath.Glob(repoFile(filepath.FromSlash(leaf), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, imp := range file.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
					t.Errorf("%s/%s imports %s: a leaf imports only the standard library", leaf, filepath.Base(path), p)
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s has no production files: the leaf moved or the test reads the wrong folder", leaf)
		}
	}
}

// kindFromText are the production files that may read the kind of a
// block from an address written as text (address.Kind), and how many
// times: where an address enters as text and no typed address exists
// yet. Everywhere else a block's kind is asked of its typed address (a
// configuration block's Addr, config.Config.Addr, a target read once) or
// of what holds it (a state record, a drift's call). The list only
// shrinks: an entry with fewer calls than it allows fails too.
var kindFromText = map[string]int{
	// --replace as typed on the command line (it may be no address), and
	// a failure the state keeps by address alone, of any kind.
	"internal/plan/targets.go": 2,
	// A move's destination: a state.Move, text of the state's events.
	"internal/plan/moved.go": 1,
	// state.IsImport: an enrichment's By and an event's address, text of
	// the state.
	"internal/state/imports.go": 1,
	// What a store holds at an address given to state list or show.
	"internal/state/base.go": 1,
	// State.Kind: an address from the command line (state show, state rm).
	"internal/state/edit.go": 1,
	// The message for an address the state does not hold, as typed.
	"internal/run/staterm.go": 1,
}

// TestAddressKindOnlyWhereTextEnters: a call of address.Kind outside
// kindFromText (or more of them than it allows) fails here: an address is
// parsed once where it enters, and its kind asked of the typed value.
func TestAddressKindOnlyWhereTextEnters(t *testing.T) {
	root := repoFile()
	found := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(repoFile("internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Kind" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "address" {
					found[rel]++
					if found[rel] > kindFromText[rel] {
						t.Errorf("%s:%d: address.Kind reads a kind from text: ask the typed address (a block's Addr, config.Config.Addr) or what holds it; a place where text enters goes in kindFromText with its reason",
							rel, fset.Position(call.Pos()).Line)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file, n := range kindFromText {
		if found[file] < n {
			t.Errorf("%s: kindFromText allows %d calls of address.Kind, it has %d: lower its entry", file, n, found[file])
		}
	}
}
