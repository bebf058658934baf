package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandLineErrors checks that a wrong command line gets one message that
// says what is wrong and what was expected, the usage line and a pointer to
// --help, with exit code 1 and nothing on standard output.
func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string // substrings of stderr, in order
	}{
		{[]string{"--bogus"}, []string{"Error: unknown flag: --bogus", "Usage: leadsync [flags]", "Run 'leadsync --help'"}},
		{[]string{"apply", "--auto-aprove"}, []string{"unknown flag: --auto-aprove (did you mean --auto-approve?)", "Usage: leadsync apply [PLANFILE] [flags]"}},
		{[]string{"state", "list", "--nopeople"}, []string{"(did you mean --no-people?)"}},
		{[]string{"plan", "--chdirr", "x"}, []string{"(did you mean --chdir?)"}},
		{[]string{"plan", "-oot=x"}, []string{"unknown flag: --oot (did you mean --out?)", "Usage: leadsync plan [flags]"}},
		{[]string{"plan", "--zzzzzz"}, []string{"unknown flag: --zzzzzz\n"}},
		{[]string{"validate", "extra"}, []string{`leadsync validate takes no arguments, got "extra"`, "Usage: leadsync validate [flags]"}},
		{[]string{"state", "show"}, []string{"leadsync state show takes exactly 1 argument (ADDRESS), got none", "Run 'leadsync state show --help'"}},
		{[]string{"state", "show", "a", "b"}, []string{`takes exactly 1 argument (ADDRESS), got "a" "b"`}},
		{[]string{"state", "rm"}, []string{"leadsync state rm takes at least 1 argument (ADDRESS...), got none"}},
		{[]string{"force-unlock"}, []string{"takes exactly 1 argument (LOCK_ID), got none"}},
		{[]string{"apply", "a.plan", "b.plan"}, []string{`takes at most 1 argument ([PLANFILE]), got "a.plan" "b.plan"`}},
		{[]string{"completion", "tcsh"}, []string{`leadsync completion: "tcsh" is not one of bash, fish, powershell, zsh`}},
		{[]string{"import", "search.cto", "x"}, []string{"leadsync has no import command: people another tool exported", `import "evaboot" {`, "leadsync state mv"}},
		{[]string{"nosuchcmd"}, []string{`unknown command "nosuchcmd" for "leadsync"`, "Run 'leadsync --help' for the list of commands."}},
		{[]string{"state", "bogus"}, []string{`unknown command "bogus" for "leadsync state"`, "Run 'leadsync state --help' for the list of commands."}},
		{[]string{"--chdir", "missing", "validate"}, []string{"--chdir missing: no such directory"}},
		{[]string{"--chdir", "file.txt", "validate"}, []string{"--chdir file.txt: is a file, not a directory"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runIn(t, dir, tt.args...)
			if code != ExitError {
				t.Errorf("exit code %d, want %d", code, ExitError)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if n := strings.Count(errOut, "Error:"); n != 1 {
				t.Errorf("%d errors in stderr, want 1:\n%s", n, errOut)
			}
			rest := errOut
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stderr lacks %q (in order):\n%s", w, errOut)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestEveryCommandHasHelp: every command says in one line what it does and
// shows examples, and every flag has a description.
func TestEveryCommandHasHelp(t *testing.T) {
	f, _, _ := configTestFactory(t.TempDir())
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if c.Short == "" {
			t.Errorf("%s: no Short", c.CommandPath())
		}
		if c.Example == "" {
			t.Errorf("%s: no Example", c.CommandPath())
		}
		// A flag without a description shows as its name alone.
		for _, line := range strings.Split(c.LocalFlags().FlagUsages(), "\n") {
			if line != "" && len(strings.Fields(line)) < 2 {
				t.Errorf("%s: flag without a description: %q", c.CommandPath(), line)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmd(f))
}

// TestCommandLineMistakes: flags that cannot go together are one line
// saying so (no usage: the shape of the command line is right), found
// before anything else: before --chdir is applied, before the
// configuration is read.
func TestCommandLineMistakes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--json", "--markdown"}, "Error: --markdown and --json cannot be used together: choose one form\n"},
		{[]string{"--chdir", "missing", "plan", "--compare-to", "b.json"}, "Error: --compare-to needs --markdown: the difference is shown in the pull-request comment\n"},
		{[]string{"apply", "--parallelism", "0"}, "Error: --parallelism must be at least 1, got 0\n"},
		{[]string{"apply", "--target", "search.a", "leads.plan"}, "Error: --target and --replace cannot be used with a saved plan: they were fixed when the plan was made\n"},
		{[]string{"show", "--markdown"}, "Error: --markdown shows a saved plan: leadsync show --markdown PLANFILE\n"},
		{[]string{"state", "rm", "--lock-timeout", "-1s", "search.a"}, "Error: --lock-timeout -1s: want a duration of 0 or more, like 5m (0: do not wait)\n"},
		{[]string{"forget", "x", ""}, "Error: forget: a PERSON is empty; give a network ID, a page name or a profile URL\n"},
	} {
		// (--json and --markdown still print their document of the failure)
		code, _, errOut := runIn(t, dir, c.args...)
		if code != ExitError || errOut != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errOut, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the mistakes wrote %v", entries)
	}
}
