package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

func TestVersionFlag(t *testing.T) {
	dir := t.TempDir()
	code, flag, _ := runIn(t, dir, "--version")
	code2, cmd, _ := runIn(t, dir, "version")
	if code != 0 || code2 != 0 || flag != cmd || !strings.HasPrefix(flag, "leadsync ") {
		t.Errorf("--version: exit %d %q; version: exit %d %q", code, flag, code2, cmd)
	}
}

func TestHelpTopics(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		out  string // in stdout (code 0) or stderr
	}{
		{[]string{"help"}, 0, "leadsync keeps lead-list definitions"},
		{[]string{"help", "state", "rm"}, 0, "Rm removes records from the state"},
		{[]string{"help", "nosuch"}, 1, `unknown help topic "nosuch"`},
		{[]string{"help", "stat"}, 1, `did you mean "state"?`},
		{[]string{"help", "state", "nosuch"}, 1, `unknown help topic "state nosuch"`},
	} {
		code, out, errOut := runIn(t, dir, tc.args...)
		text := out
		if tc.code != 0 {
			text = errOut
		}
		if code != tc.code || !strings.Contains(text, tc.out) {
			t.Errorf("%q: exit %d, want %d; output lacks %q:\n%s%s", tc.args, code, tc.code, tc.out, out, errOut)
		}
	}
}

func TestCompletionOffersAddresses(t *testing.T) {
	dir, _ := stateTestDir(t)
	// The state's configuration, with an enrich and an export block.
	write(t, dir, "more.leads.hcl", "enrich \"contacts\" {\n  from = [search.cto]\n}\nexport \"x\" {\n  path = \"x.csv\"\n  sheet \"A\" {\n    from = [search.cto]\n  }\n}\n")
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"__complete", "plan", "--target", ""}, []string{`search.cto`, `search.cto["Berlin"]`, "profile.founder", "enrich.contacts", "export.x"}, nil},
		{[]string{"__complete", "apply", "--target", "enr"}, []string{"enrich.contacts"}, []string{"search.cto"}},
		{[]string{"__complete", "plan", "--replace", ""}, []string{`search.cto["Hamburg"]`, "profile.founder"}, []string{"enrich.contacts"}},
		{[]string{"__complete", "state", "show", ""}, []string{`search.cto["Berlin"]`, "profile.founder"}, []string{"person."}},
		{[]string{"__complete", "state", "show", "person."}, []string{"person.101.aa", "person.102.bb"}, nil},
		{[]string{"__complete", "state", "rm", `search.cto["Berlin"]`, "search"}, []string{`search.cto["Hamburg"]`}, []string{`search.cto["Berlin"]`}},
		{[]string{"__complete", "state", "show", `search.cto["Berlin"]`, ""}, nil, []string{"search", "profile"}},
	} {
		code, out, errOut := runIn(t, dir, tc.args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", tc.args, code, errOut)
			continue
		}
		lines := strings.Split(out, "\n")
		has := func(s string) bool {
			for _, l := range lines {
				if l == s || (strings.HasSuffix(s, ".") && strings.HasPrefix(l, s)) {
					return true
				}
			}
			return false
		}
		for _, w := range tc.want {
			if !has(w) {
				t.Errorf("%q: no %q in:\n%s", tc.args, w, out)
			}
		}
		for _, n := range tc.not {
			if has(n) {
				t.Errorf("%q: offers %q:\n%s", tc.args, n, out)
			}
		}
	}
}

// TestCompletionOffersModulesAndWorkspaces: --target completes modules
// and the addresses inside them, state mv the state's addresses, and
// --workspace, workspace select and delete the workspaces there are.
func TestCompletionOffersModulesAndWorkspaces(t *testing.T) {
	dir, _ := stateTestDir(t)
	write(t, dir, "more.leads.hcl", "module \"dach\" {\n  for_each = toset([\"de\"])\n  source = \"./persona\"\n}\n")
	if err := os.MkdirAll(filepath.Join(dir, "persona"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "persona/main.leads.hcl", "search \"cto\" {\n  keywords = \"CTO\"\n}\n")
	if code, _, errOut := runIn(t, dir, "workspace", "new", "uk"); code != 0 {
		t.Fatalf("workspace new: %s", errOut)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "plan", "--target", "mod"}, []string{"module.dach", `module.dach["de"]`, `module.dach["de"].search.cto`}},
		{[]string{"__complete", "plan", "--replace", "module.dach["}, []string{`module.dach["de"]`, `module.dach["de"].search.cto`}},
		{[]string{"__complete", "state", "mv", ""}, []string{`search.cto["Berlin"]`, "profile.founder"}},
		{[]string{"__complete", "workspace", "select", ""}, []string{"default", "uk"}},
		{[]string{"__complete", "workspace", "delete", "u"}, []string{"uk"}},
		{[]string{"__complete", "plan", "--workspace", ""}, []string{"default", "uk"}},
	} {
		code, out, errOut := runIn(t, dir, tc.args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", tc.args, code, errOut)
			continue
		}
		lines := strings.Split(out, "\n")
		for _, w := range tc.want {
			found := false
			for _, l := range lines {
				found = found || l == w
			}
			if !found {
				t.Errorf("%q: no %q in:\n%s", tc.args, w, out)
			}
		}
	}
	// state mv completes FROM only: TO is a new address.
	if _, out, _ := runIn(t, dir, "__complete", "state", "mv", "profile.founder", ""); strings.Contains(out, "search.cto") {
		t.Errorf("state mv completes TO:\n%s", out)
	}
}

// TestSavedPlanWithNoChanges: apply of a saved plan with nothing to do
// says so like a plain apply, and makes no call.
func TestSavedPlanWithNoChanges(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.leads.hcl", "api {\n  sandbox = true\n}\n")
	if code, _, errOut := runIn(t, dir, "plan", "--offline", "--out", "empty.plan"); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errOut)
	}
	code, out, errOut := runIn(t, dir, "apply", "empty.plan")
	if code != 0 || !strings.Contains(out, "No changes") || strings.Contains(out+errOut, "Applying") {
		t.Errorf("apply of an empty saved plan: exit %d\n%s%s", code, out, errOut)
	}
	code, plain, _ := runIn(t, dir, "apply")
	if code != 0 || !strings.Contains(plain, "No changes") {
		t.Errorf("plain apply: exit %d\n%s", code, plain)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "state.json.journal")); err == nil {
		t.Error("a journal was opened for a plan with nothing to do")
	}
	_ = state.PeopleAddress
}

func TestSuffixHint(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.hcl", "api {\n  sandbox = true\n}\n")
	code, _, errOut := runIn(t, dir, "validate")
	if code != 1 || !strings.Contains(errOut, "has main.hcl, but leadsync reads only files whose names end in .leads.hcl") || !strings.Contains(errOut, "mv main.hcl main.leads.hcl") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
