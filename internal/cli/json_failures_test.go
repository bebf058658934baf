package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestJSONOnEveryFailure runs every command that accepts --json in each
// way it can fail (and a few ways it succeeds) and decodes stdout: always
// exactly one JSON document (apply: one event per line), with the error
// in it when the command failed.
func TestJSONOnEveryFailure(t *testing.T) {
	const sandboxCfg = "api {\n  sandbox = true\n}\nsearch \"cto\" {\n  keywords = \"CTO\"\n}\n"
	modes := map[string]func(t *testing.T, dir string){
		"invalid config": func(t *testing.T, dir string) {
			write(t, dir, "main.leads.hcl", "api {\n  sandbox = true\n}\nsearch \"cto\" {\n  keywords = \"CTO\"\n  level_filter = [\"Chief\"]\n}\n")
		},
		"missing key": func(t *testing.T, dir string) {
			// A loopback address nothing listens on: no call may leave the machine.
			write(t, dir, "main.leads.hcl", "api {\n  base_url = \"https://127.0.0.1:1\"\n}\nsearch \"cto\" {\n  keywords = \"CTO\"\n}\n")
		},
		"locked state": func(t *testing.T, dir string) {
			write(t, dir, "main.leads.hcl", sandboxCfg)
			st := local.NewStore(filepath.Join(dir, ".leadsync", "state.db"))
			if err := st.Save(state.New()); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Lock("apply"); err != nil {
				t.Fatal(err)
			}
		},
		"no state": func(t *testing.T, dir string) {
			write(t, dir, "main.leads.hcl", sandboxCfg)
		},
		"no configuration": func(t *testing.T, dir string) {},
	}
	commands := [][]string{
		{"plan", "--json"},
		{"plan", "--json", "--offline"},
		{"plan", "--json", "--offline", "--bogus"},
		{"apply", "--json", "--auto-approve"},
		{"apply", "--json"},
		{"apply", "--json", "missing.plan"},
		{"export", "--json"},
		{"fields", "--json"},
		{"fields", "--json", "--refresh"},
		{"show", "--json"},
		{"show", "--json", "missing.plan"},
		{"state", "show", "--json", "search.cto"},
		{"usage", "--json"},
		{"validate", "--json"},
		{"validate", "--json", "--bogus"},
	}
	for mode, setup := range modes {
		for _, args := range commands {
			t.Run(mode+"/"+strings.Join(args, " "), func(t *testing.T) {
				dir := t.TempDir()
				setup(t, dir)
				f, out, errOut := configTestFactory(dir)
				f.Service = nil
				code := Run(context.Background(), f, args)
				if code != 0 && code != 1 {
					t.Errorf("exit %d", code)
				}
				docs := decodeAll(t, out.Bytes(), args[0] == "apply")
				if t.Failed() {
					t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
					return
				}
				if code == 0 {
					return
				}
				last := docs[len(docs)-1]
				switch {
				case args[0] == "plan":
					if _, ok := last["changes"]; !ok || len(asList(last["diagnostics"])) == 0 {
						t.Errorf("plan --json failed without the plan's schema and diagnostics: %v", last)
					}
				case args[0] == "apply":
					if last["message_type"] != "error" && last["error"] == nil {
						t.Errorf("apply --json failed; last event %v has no error", last)
					}
				case args[0] == "validate":
					if last["valid"] != false && last["error"] == nil {
						t.Errorf("validate --json failed; document %v says nothing", last)
					}
				default:
					if s, _ := last["error"].(string); s == "" {
						t.Errorf("%s --json failed; document %v has no error", args[0], last)
					}
				}
				if t.Failed() {
					t.Logf("stderr:\n%s", errOut)
				}
			})
		}
	}
}

// decodeAll decodes stdout: one JSON object, or (lines) one per line.
func decodeAll(t *testing.T, b []byte, lines bool) []map[string]any {
	t.Helper()
	if len(bytes.TrimSpace(b)) == 0 {
		t.Error("nothing on stdout")
		return nil
	}
	var docs []map[string]any
	if lines {
		for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Errorf("line %d is not a JSON object: %v: %q", i+1, err, l)
			}
			docs = append(docs, m)
		}
		return docs
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Errorf("stdout is not a JSON object: %v", err)
		return nil
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Errorf("more than one JSON document on stdout (%v)", err)
	}
	return append(docs, m)
}

func asList(v any) []any { l, _ := v.([]any); return l }

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestApplyJSONSummaryListsFiles: the summary event is the last line and
// lists the files written; an apply with nothing to do ends with one too.
func TestApplyJSONSummaryListsFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.leads.hcl", `api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  city        = "Berlin"
  max_results = 3
}
export "leads" {
  path = "out/leads.csv"
  sheet "CTOs" {
    from = [search.cto]
  }
}
`)
	for i, wantNoChanges := range []bool{false, true} {
		f, out, errOut := configTestFactory(dir)
		if code := Run(context.Background(), f, []string{"apply", "--json", "--auto-approve"}); code != 0 {
			t.Fatalf("apply %d: exit %d: %s", i+1, code, errOut)
		}
		docs := decodeAll(t, out.Bytes(), true)
		last := docs[len(docs)-1]
		if last["message_type"] != "summary" {
			t.Fatalf("apply %d: last event %v, want the summary", i+1, last)
		}
		if nc, _ := last["no_changes"].(bool); nc != wantNoChanges {
			t.Errorf("apply %d: no_changes = %v, want %v", i+1, last["no_changes"], wantNoChanges)
		}
		files := asList(last["files"])
		if wantNoChanges {
			if files == nil {
				t.Errorf("apply %d: no files list: %v", i+1, last)
			}
			continue
		}
		if len(files) != 2 {
			t.Fatalf("apply %d: files %v, want the sheet and its summary", i+1, last["files"])
		}
		if f0, _ := files[0].(map[string]any); f0["path"] != "out/leads.csv" || f0["export"] != "export.leads" {
			t.Errorf("apply %d: files[0] = %v", i+1, f0)
		}
	}
}

// TestPlanJSONDiagnosticsHaveRange: plan --json says where in the
// configuration a problem is (file and line), as validate --json does,
// both when the configuration is invalid (the failure document) and for
// a warning of a plan that is made.
func TestPlanJSONDiagnosticsHaveRange(t *testing.T) {
	for name, c := range map[string]struct {
		cfg      string
		line     float64
		severity string
	}{
		"invalid": {"api {\n  sandbox = true\n}\nsearch \"cto\" {\n  keywords = \"CTO\"\n  level_filter = [\"Chief\"]\n}\n", 6, "error"},
		"warning": {"api {\n  sandbox    = true\n  rate_limit = 20\n}\nsearch \"cto\" {\n  keywords = \"CTO\"\n}\n", 3, "warning"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "main.leads.hcl", c.cfg)
			f, out, errOut := configTestFactory(dir)
			f.Service = nil
			Run(context.Background(), f, []string{"plan", "--json", "--offline"})
			docs := decodeAll(t, out.Bytes(), false)
			if len(docs) != 1 {
				t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
			}
			diags := asList(docs[0]["diagnostics"])
			if len(diags) == 0 {
				t.Fatalf("no diagnostics in %v", docs[0])
			}
			d, _ := diags[0].(map[string]any)
			r, _ := d["range"].(map[string]any)
			start, _ := r["start"].(map[string]any)
			if d["severity"] != c.severity || r["filename"] != "main.leads.hcl" || start["line"] != c.line {
				t.Errorf("first diagnostic %v; want a %s with range main.leads.hcl line %v", d, c.severity, c.line)
			}
		})
	}
}
