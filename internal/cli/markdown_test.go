package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/golden"
)

const markdownTestConfig = `
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  city     = "Berlin"
}
enrich "contacts" {
  from  = [search.cto]
  limit = 5
}
`

func TestPlanAndShowMarkdown(t *testing.T) {
	dir := t.TempDir()
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(markdownTestConfig)
	code, base, errOut := runIn(t, dir, "plan", "--offline", "--json")
	if code != 0 {
		t.Fatalf("plan --json: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "base.json"), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	write(strings.Replace(markdownTestConfig, "limit = 5", "limit = 7", 1))

	code, out, errOut := runIn(t, dir, "plan", "--offline", "--markdown", "--compare-to", "base.json", "--out", "leads.plan")
	if code != 0 {
		t.Fatalf("plan --markdown: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"### leadsync plan\n",
		"**+2 calls, +2 credits** compared with the base.",
		"| ➕ | `enrich.contacts` | enrich | up to 7 | up to 7 | `people` up to 7 from searches that will run; limit 7, 0 used | +2 calls, +2 credits |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Saved the plan") {
		t.Errorf("the comment holds the terminal's note:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "leads.plan")); err != nil {
		t.Errorf("--out with --markdown saved no plan: %v", err)
	}

	code, shown, errOut := runIn(t, dir, "show", "--markdown", "--compare-to", "base.json", "leads.plan")
	if code != 0 || shown != out {
		t.Errorf("show --markdown: exit %d (%s); differs from plan --markdown:\n%s\n---\n%s", code, errOut, shown, out)
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"plan", "--offline", "--compare-to", "base.json"}, "--compare-to needs --markdown"},
		{[]string{"plan", "--offline", "--markdown", "--json"}, "cannot be used together"},
		{[]string{"plan", "--offline", "--markdown", "--compare-to", "nothing.json"}, "reading the base plan nothing.json"},
		{[]string{"plan", "--offline", "--markdown", "--compare-to", "main.leads.hcl"}, "not a plan"},
		{[]string{"show", "--markdown"}, "leadsync show --markdown PLANFILE"},
		{[]string{"show", "--compare-to", "base.json", "leads.plan"}, "--compare-to needs --markdown"},
	} {
		code, out, errOut := runIn(t, dir, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.err) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and %q (stdout %q)", tc.args, code, errOut, tc.err, out)
		}
	}
}

// TestPlanMarkdownFailureIsAComment: when plan --markdown fails (an
// invalid configuration, no API key), stdout still gets a comment that
// says so, with the diagnostics and where they are, as --json gets a JSON
// document; the CI example no longer posts an empty comment.
func TestPlanMarkdownFailureIsAComment(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		args         []string
	}{
		{"invalid-config", "api {\n  sandbox = true\n}\n\nsearch \"a\" {\n  keyword = \"CTO\"\n}\n", []string{"plan", "--markdown", "--out", "leads.plan"}},
		{"no-key", "api {\n  base_url = \"https://api.example.com\"\n}\n\nsearch \"a\" {\n  keywords = \"CTO\"\n}\n", []string{"plan", "--markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runIn(t, dir, tc.args...)
			if code != 1 || errOut == "" {
				t.Fatalf("exit %d, stderr %q; want 1 and the error on stderr", code, errOut)
			}
			golden.Check(t, filepath.Join("testdata", "markdown", tc.name+".md"), []byte(out))
		})
	}
}
