package arguments

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// parseLine parses a command line as cobra does (flags anywhere, then the
// positional arguments) with the flags register declares, and checks it
// with parse.
func parseLine[F any, A any](register func(*F, *pflag.FlagSet), parse func(F, []string) (A, error), line []string) (A, error) {
	var fl F
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	register(&fl, fs)
	if err := fs.Parse(line); err != nil {
		var zero A
		return zero, err
	}
	return parse(fl, fs.Args())
}

// parseCase is one row of a parser's table: a command line and either the
// struct it gives or the error it gives (exactly).
type parseCase[A any] struct {
	line []string
	want A
	err  string
	// usage says that err is a *UsageError (shown with the usage line).
	usage bool
}

// checkParse runs a parser's table.
func checkParse[F any, A any](t *testing.T, register func(*F, *pflag.FlagSet), parse func(F, []string) (*A, error), cases []parseCase[*A]) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.Join(c.line, " "), func(t *testing.T) {
			got, err := parseLine(register, parse, c.line)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				if _, isUsage := err.(*UsageError); isUsage != c.usage {
					t.Errorf("error %T, want a *UsageError: %v", err, c.usage)
				}
				if got != nil {
					t.Errorf("a struct with the error: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestViewTypeString(t *testing.T) {
	for v, want := range map[ViewType]string{ViewHuman: "human", ViewJSON: "json", ViewMarkdown: "markdown"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", v, v.String(), want)
		}
	}
}

// TestNoIO: the parsers are pure. The package imports only what cannot
// reach a file, the environment, a stream, the clock or the network, and
// of the packages that can it uses only the pure functions named here. Of
// leadsync it imports only leaves: internal/sandbox/knobs for the
// sandbox's defaults and faults, not the sandbox (a server, thousands of
// lines).
func TestNoIO(t *testing.T) {
	allowed := map[string]map[string]bool{ // nil: any identifier
		"errors": nil, "fmt": nil, "slices": nil, "strconv": nil, "strings": nil,
		"github.com/spf13/pflag": nil,
		"time":                   {"Duration": true, "ParseDuration": true, "Second": true, "Millisecond": true, "Minute": true},
		"net":                    {"SplitHostPort": true, "ParseIP": true},
		"net/http":               {"ParseTime": true},
		// The sandbox's knobs, a leaf (e2e's TestLeavesImportOnlyTheStandardLibrary),
		// never the sandbox itself.
		"github.com/leadsync/leadsync/internal/sandbox/knobs": {"Faults": true, "ParseFaults": true,
			"DefaultKey": true, "DefaultPeople": true, "DefaultCredits": true, "DefaultQuota": true,
			"CheckDrift": true}, // pure: a range check of the drift and the epoch
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]string{} // the name a file uses -> import path
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if _, ok := allowed[path]; !ok {
				t.Errorf("%s imports %s", name, path)
				continue
			}
			use := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				use = imp.Name.Name
			}
			local[use] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if path, ok := local[id.Name]; ok {
				if ids := allowed[path]; ids != nil && !ids[sel.Sel.Name] {
					t.Errorf("%s: %s uses %s.%s", fset.Position(sel.Pos()), name, path, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
