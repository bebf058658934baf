package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/golden"
)

// configTestFactory is a factory over buffers, in dir, with env as the
// environment.
func configTestFactory(dir string, env ...string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	io, _, out, errOut := TestStreams()
	return &Factory{
		IO: io,
		Getenv: func(k string) string {
			for _, kv := range env {
				if name, v, _ := strings.Cut(kv, "="); name == k {
					return v
				}
			}
			return ""
		},
		Environ: func() []string { return env },
		Now:     func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Dir:     dir,
	}, out, errOut
}

func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := configTestFactory(dir)
	code := Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

var errorMarker = regexp.MustCompile(`#\s*ERROR:`)

// TestValidateInvalidFixtures runs `validate` on every invalid fixture: exit
// 1, each marked line named in the output, and the rendering as in the
// golden file.
func TestValidateInvalidFixtures(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/invalid")
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	if len(dirs) < 40 {
		t.Fatalf("only %d fixtures", len(dirs))
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runIn(t, root, "validate", "--chdir", name)
			if code != ExitError || out != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", code, out)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
			for _, p := range files {
				fh, _ := os.Open(p)
				sc := bufio.NewScanner(fh)
				for line := 1; sc.Scan(); line++ {
					if errorMarker.MatchString(sc.Text()) {
						want := "on " + filepath.Base(p) + " line " + strconv.Itoa(line)
						if !strings.Contains(errOut, want) {
							t.Errorf("output lacks %q:\n%s", want, errOut)
						}
					}
				}
				fh.Close()
			}
			// Paths of this machine would make the golden files unportable.
			errOut = strings.ReplaceAll(errOut, root, "$FIXTURES")
			golden.Check(t, filepath.Join("../../testdata/golden/validate", name+".txt"), []byte(errOut))
		})
	}
}

// TestValidateWarnings: warnings are shown, and validate still succeeds.
func TestValidateWarnings(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/warnings")
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runIn(t, root, "validate", "--chdir", name)
			if code != 0 || !strings.HasPrefix(out, "Success!") || !strings.HasPrefix(errOut, "Warning: ") {
				t.Errorf("exit %d\n%s%s", code, out, errOut)
			}
			golden.Check(t, filepath.Join("../../testdata/golden/validate", name+".txt"), []byte(errOut))
		})
	}
}

func TestValidateJSON(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/invalid")
	for _, name := range []string{"array_filter_typo", "../warnings/api_key_literal", "no_configuration", "locals_cycle"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			code, out, errOut := runIn(t, root, "validate", "--json", "--chdir", name)
			if errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
			var doc jsonDiagnostics
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if doc.FormatVersion != "1" || doc.Valid != (code == 0) || doc.ErrorCount+doc.WarningCount != len(doc.Diagnostics) {
				t.Errorf("inconsistent document (exit %d): %+v", code, doc)
			}
			out = strings.ReplaceAll(out, root, "$FIXTURES")
			golden.Check(t, filepath.Join("../../testdata/golden/validate-json", filepath.Base(name)+".json"), []byte(out))
		})
	}
	// A valid configuration: valid true and an empty list, never null.
	code, out, _ := runIn(t, "../../examples/quickstart", "validate", "--json")
	if code != 0 || !strings.Contains(out, `"diagnostics": []`) || !strings.Contains(out, `"valid": true`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestValidateExamples(t *testing.T) {
	for _, dir := range []string{"../../examples/quickstart", "../../examples/team"} {
		code, out, errOut := runIn(t, dir, "validate")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Success! The configuration is valid") {
			t.Errorf("%s: exit %d\n%s%s", dir, code, out, errOut)
		}
		code, out, errOut = runIn(t, dir, "fmt", "--check")
		if code != 0 || out != "" || errOut != "" {
			t.Errorf("%s: fmt --check exit %d\n%s%s", dir, code, out, errOut)
		}
	}
}

func TestValidateVarFlagsAndEnv(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "main.leads.hcl", "api {\n  sandbox = true\n}\nvariable \"kw\" {\n  type = string\n}\nsearch \"s\" {\n  keywords = var.kw\n}\n")
	writeTestFile(t, dir, "v.leadvars.hcl", "kw = \"CTO\"\n")
	if code, _, errOut := runIn(t, dir, "validate"); code != 1 || !strings.Contains(errOut, "No value for required variable") {
		t.Errorf("no value: exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{{"--var", "kw=CTO"}, {"--var-file", "v.leadvars.hcl"}} {
		if code, _, errOut := runIn(t, dir, append([]string{"validate"}, args...)...); code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	f, _, errOut := configTestFactory(dir, "LEADSYNC_VAR_kw=CTO")
	if code := Run(context.Background(), f, []string{"validate"}); code != 0 {
		t.Errorf("env: exit %d\n%s", code, errOut)
	}
}

func TestValidateUsesCachedCatalog(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "main.leads.hcl", "api {\n  sandbox = true\n}\nsearch \"s\" {\n  keywords = \"x\"\n  zip_code = \"10115\"\n}\n")
	if code, _, errOut := runIn(t, dir, "validate"); code != 1 || !strings.Contains(errOut, `no argument "zip_code"`) {
		t.Fatalf("built-in catalog: exit %d\n%s", code, errOut)
	}
	fields := append(catalog.Default().Fields, api.Field{FieldName: "Zip", SearchParameter: "zipCode", Type: api.FieldText})
	if err := catalog.SaveCache(filepath.Join(dir, catalog.CachePath), fields, time.Now()); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runIn(t, dir, "validate"); code != 0 {
		t.Errorf("cached catalog: exit %d\n%s", code, errOut)
	}
	writeTestFile(t, dir, catalog.CachePath, "{broken")
	if code, _, errOut := runIn(t, dir, "validate"); code != 1 || !strings.Contains(errOut, "Invalid field catalog cache") {
		t.Errorf("corrupt cache: exit %d\n%s", code, errOut)
	}
}

func TestDiagnosticsColour(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/invalid")
	f, _, errOut := configTestFactory(root)
	f.IO.ErrTTY = true
	Run(context.Background(), f, []string{"validate", "--chdir", "array_filter_typo"})
	golden.Check(t, "../../testdata/golden/validate-color/array_filter_typo.txt", errOut.Bytes())
	if !strings.Contains(errOut.String(), "\x1b[4m") {
		t.Error("no underline on a terminal")
	}
	for _, args := range [][]string{{"--no-color"}, {}} {
		f, _, errOut := configTestFactory(root, "NO_COLOR=1")
		f.IO.ErrTTY = true
		Run(context.Background(), f, append([]string{"validate", "--chdir", "array_filter_typo"}, args...))
		if strings.Contains(errOut.String(), "\x1b[") {
			t.Errorf("%v: colour despite NO_COLOR/--no-color", args)
		}
	}
}

func TestDiagnosticsHideSecrets(t *testing.T) {
	const secret = "sk-live-abcdef123456"
	dir := t.TempDir()
	writeTestFile(t, dir, "main.leads.hcl", `api {
  base_url = "http://api.example.com"
  api_key  = var.key
}
variable "key" {
  type      = string
  sensitive = true
}
search "s" {
  keywords       = "x"
  country_filter = [var.key]
}
`)
	writeTestFile(t, dir, "k.auto.leadvars.hcl", "key = \""+secret+"\" # not a country\n")
	for _, args := range [][]string{{"validate"}, {"validate", "--json"}, {"validate", "--var", "key=" + secret}} {
		code, out, errOut := runIn(t, dir, args...)
		if code != 1 {
			t.Errorf("%v: exit %d", args, code)
		}
		if strings.Contains(out+errOut, secret) {
			t.Errorf("%v shows the secret:\n%s%s", args, out, errOut)
		}
	}
}

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	ugly := "search \"s\" {\nkeywords = \"x\"\n  max_results= 5\n}\n"
	pretty := "search \"s\" {\n  keywords    = \"x\"\n  max_results = 5\n}\n"
	writeTestFile(t, dir, "a.leads.hcl", ugly)
	writeTestFile(t, dir, "b.leads.hcl", pretty)
	writeTestFile(t, dir, "sub/c.leads.hcl", ugly)
	writeTestFile(t, dir, "x.auto.leadvars.hcl", "a=1\nbb = 2\n")
	writeTestFile(t, dir, "notes.hcl", ugly) // not a leadsync file

	code, out, _ := runIn(t, dir, "fmt", "--check", "--diff")
	wantDiff := `a.leads.hcl
--- old/a.leads.hcl
+++ new/a.leads.hcl
@@ -1,4 +1,4 @@
 search "s" {
-keywords = "x"
-  max_results= 5
+  keywords    = "x"
+  max_results = 5
 }
x.auto.leadvars.hcl
--- old/x.auto.leadvars.hcl
+++ new/x.auto.leadvars.hcl
@@ -1,2 +1,2 @@
-a=1
+a  = 1
 bb = 2
`
	if code != 1 || out != wantDiff {
		t.Errorf("fmt --check --diff: exit %d\n%s\nwant:\n%s", code, out, wantDiff)
	}
	if readTestFile(t, dir, "a.leads.hcl") != ugly {
		t.Error("--check wrote a file")
	}
	code, out, _ = runIn(t, dir, "fmt")
	if code != 0 || out != "a.leads.hcl\nx.auto.leadvars.hcl\n" || readTestFile(t, dir, "a.leads.hcl") != pretty {
		t.Errorf("fmt: exit %d, %q", code, out)
	}
	if readTestFile(t, dir, "sub/c.leads.hcl") != ugly || readTestFile(t, dir, "notes.hcl") != ugly {
		t.Error("fmt without --recursive touched a subdirectory or a foreign file")
	}
	code, out, _ = runIn(t, dir, "fmt", "--recursive")
	if code != 0 || out != filepath.Join("sub", "c.leads.hcl")+"\n" || readTestFile(t, dir, "sub/c.leads.hcl") != pretty {
		t.Errorf("fmt --recursive: exit %d, %q", code, out)
	}
	if code, out, _ := runIn(t, dir, "fmt", "--check", "--recursive"); code != 0 || out != "" {
		t.Errorf("second --check: exit %d, %q", code, out)
	}
	// Syntax errors: reported with the place, file left alone, exit 1.
	broken := "search \"s\" {\n  keywords = \n}\n"
	writeTestFile(t, dir, "a.leads.hcl", broken)
	code, _, errOut := runIn(t, dir, "fmt")
	if code != 1 || !strings.Contains(errOut, "on a.leads.hcl line 2") || readTestFile(t, dir, "a.leads.hcl") != broken {
		t.Errorf("broken file: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runIn(t, dir, "fmt", "missing.leads.hcl"); code != 1 || !strings.Contains(errOut, "missing.leads.hcl") {
		t.Errorf("missing path: exit %d %s", code, errOut)
	}
}

func TestFmtStdin(t *testing.T) {
	f, out, _ := configTestFactory(t.TempDir())
	f.IO.In = strings.NewReader("a=1\nbb=2\n")
	if code := Run(context.Background(), f, []string{"fmt", "-"}); code != 0 || out.String() != "a  = 1\nbb = 2\n" {
		t.Errorf("exit %d, %q", code, out)
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errOut := runIn(t, t.TempDir(), "completion", shell)
		if code != 0 || !strings.Contains(out, "leadsync") || errOut != "" {
			t.Errorf("%s: exit %d, %d bytes, %s", shell, code, len(out), errOut)
		}
	}
	if code, _, errOut := runIn(t, t.TempDir(), "completion", "tcsh"); code != 1 || !strings.Contains(errOut, "tcsh") {
		t.Errorf("tcsh: exit %d %s", code, errOut)
	}
}

func writeTestFile(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStateFolderIsAFile: a stray file named .leadsync is named as such, not
// reported as an invalid field catalog cache.
func TestStateFolderIsAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte("api {\n  sandbox = true\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".leadsync"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runIn(t, dir, "validate")
	want := filepath.Join(dir, ".leadsync") + " is a file, but leadsync keeps its field catalog cache"
	if code != 1 || !strings.Contains(errOut, "Error: Not a folder: .leadsync") || !strings.Contains(errOut, want) || strings.Contains(errOut, "Invalid field catalog cache") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestInvalidFixturesTextAndJSONAgree: for every invalid fixture, the
// text of validate and the JSON of validate and plan carry the same
// diagnostics, each once (a module's mistake that depends on the instance
// is one diagnostic naming the instances, in every form).
func TestInvalidFixturesTextAndJSONAgree(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/invalid")
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	header := regexp.MustCompile(`(?m)^(Error|Warning): (.*)$`)
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			_, _, text := runIn(t, root, "validate", "--chdir", name)
			var summaries []string
			for _, m := range header.FindAllStringSubmatch(text, -1) {
				summaries = append(summaries, strings.ToLower(m[1])+": "+m[2])
			}
			if len(summaries) == 0 {
				t.Fatalf("validate printed no diagnostic:\n%s", text)
			}
			for _, args := range [][]string{{"validate", "--json"}, {"plan", "--offline", "--json"}} {
				_, out, _ := runIn(t, root, append(args, "--chdir", name)...)
				var doc struct {
					Diagnostics []struct{ Severity, Summary, Detail string }
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
				var got []string
				for _, d := range doc.Diagnostics {
					got = append(got, d.Severity+": "+d.Summary)
					if !strings.Contains(text, d.Detail) {
						t.Errorf("%v: detail %q is not in the text:\n%s", args, d.Detail, text)
					}
				}
				if strings.Join(got, "\n") != strings.Join(summaries, "\n") {
					t.Errorf("%v gives\n%s\nthe text\n%s", args, strings.Join(got, "\n"), strings.Join(summaries, "\n"))
				}
			}
		})
	}
}
