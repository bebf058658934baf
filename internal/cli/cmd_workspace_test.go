package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// runEnv runs the command in dir with env as the environment.
func runEnv(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := configTestFactory(dir, env...)
	code := Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// Every command that reads or writes the state refuses a local workspace
// that was never made, with the pg backend's words, and makes nothing.
func TestLocalWorkspaceNeverMade(t *testing.T) {
	dir, _ := stateTestDir(t)
	for _, args := range [][]string{
		{"plan", "--offline"},
		{"apply", "--auto-approve"},
		{"show"},
		{"show", "--json"},
		{"export"},
		{"state", "list"},
		{"state", "show", "profile.founder"},
		{"state", "rm", "profile.founder"},
		{"state", "recover"},
		{"state", "push"},
		{"state", "pull"},
		{"forget", "--auto-approve", "ann"},
		{"force-unlock", "--force", "0f8fad5b-d9cb-469f-a165-70867728950e"},
	} {
		for _, how := range []struct {
			args []string
			env  []string
		}{{append([]string{"--workspace", "uk"}, args...), nil}, {args, []string{EnvWorkspace + "=uk"}}} {
			t.Run(strings.Join(how.args, " ")+" "+strings.Join(how.env, " "), func(t *testing.T) {
				code, out, errOut := runEnv(t, dir, how.env, how.args...)
				if code != ExitError || !strings.Contains(errOut, `workspace "uk" does not exist; create it with`) || !strings.Contains(errOut, "leadsync workspace new uk") {
					t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
				}
				if _, err := os.Stat(filepath.Join(dir, ".leadsync", "workspaces")); err == nil {
					t.Error("a workspace folder was made")
				}
			})
		}
	}
	code, _, errOut := runIn(t, dir, "--workspace", "../x", "state", "list")
	if code != ExitError || !strings.Contains(errOut, `workspace name "../x" is not valid`) {
		t.Errorf("bad name: exit %d, %s", code, errOut)
	}
}

// The workspace commands on the local backend: new, list (golden), the
// workspace in use, push from the default one, pull, delete rules.
func TestLocalWorkspaceCommands(t *testing.T) {
	dir, store := stateTestDir(t)
	def, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	must := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := runIn(t, dir, args...)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out + errOut
	}
	if out := must(0, "workspace", "new", "uk"); out != "Created workspace \"uk\". Use it with --workspace uk or LEADSYNC_WORKSPACE=uk.\n" {
		t.Errorf("new: %q", out)
	}
	if out := must(ExitError, "workspace", "new", "uk"); !strings.Contains(out, `workspace "uk" already exists`) {
		t.Errorf("second new: %s", out)
	}
	if out := must(0, "--workspace", "uk", "show"); !strings.Contains(out, "No state yet at .leadsync/workspaces/uk/state.db") {
		t.Errorf("show of the new workspace: %s", out)
	}
	if out := must(0, "--workspace", "uk", "state", "list"); out != "" {
		t.Errorf("state list of the new workspace: %q", out)
	}
	// Its own state file is not pushed onto itself.
	if out := must(ExitError, "state", "push"); !strings.Contains(out, `.leadsync/state.db is the state file of workspace "default", the one in use: nothing to push`) {
		t.Errorf("push of the default state into itself: %s", out)
	}
	out := must(0, "--workspace", "uk", "state", "push")
	if want := "Pushed .leadsync/state.db (3 search and profile records, 3 people) into workspace \"uk\" (.leadsync/workspaces/uk/state.db).\n"; out != want {
		t.Errorf("push: %q, want %q", out, want)
	}
	if out := must(ExitError, "--workspace", "uk", "state", "push"); !strings.Contains(out, `workspace "uk" (.leadsync/workspaces/uk/state.db) is not empty (3 searches and profiles, 3 people); nothing was copied. Use --force`) {
		t.Errorf("second push: %s", out)
	}
	// pull prints the state file's JSON: the default one's content, with
	// its lineage and a higher serial.
	pulled := must(0, "--workspace", "uk", "state", "pull")
	uk, err := statefile.Decode("pulled", []byte(pulled))
	if err != nil {
		t.Fatal(err)
	}
	if uk.Lineage != def.Lineage || uk.Serial != def.Serial+1 || !cmp.Equal(uk.Addresses(true), def.Addresses(true)) {
		t.Errorf("pulled lineage %s serial %d %v; default %s %d %v", uk.Lineage, uk.Serial, uk.Addresses(true), def.Lineage, def.Serial, def.Addresses(true))
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "workspaces", "uk", "state.db")); err != nil {
		t.Errorf("the workspace has no state database: %v", err)
	}
	// The database keeps no copy of each write: state rm names none.
	if out := must(0, "--workspace", "uk", "state", "rm", "profile.founder"); !strings.Contains(out, "Removed") || strings.Contains(out, "The state before is kept") {
		t.Errorf("state rm in uk: %s", out)
	}
	must(0, "workspace", "new", "empty")
	code, list, errOut := runEnv(t, dir, []string{EnvWorkspace + "=uk"}, "workspace", "list")
	if code != 0 || errOut != "" {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "state", "workspace-list.golden"), []byte(list))
	// The default one is untouched by all that.
	again, err := store.Load()
	if err != nil || again.Serial != def.Serial || !cmp.Equal(again.Addresses(true), def.Addresses(true)) {
		t.Errorf("default workspace changed: serial %d (was %d), %v", again.Serial, def.Serial, err)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"workspace", "delete", "default", "--force"}, `the workspace "default" cannot be deleted`},
		{[]string{"--workspace", "uk", "workspace", "delete", "uk", "--force"}, `workspace "uk" is the one in use`},
		{[]string{"workspace", "delete", "uk"}, `workspace "uk" is not empty (2 searches and profiles, 3 people); nothing was deleted. Use --force`},
		// Nothing to make: the workspaces there are, no hint to create it.
		{[]string{"workspace", "delete", "nope"}, `workspace "nope" does not exist; nothing was deleted. The workspaces are: default, empty, uk`},
	} {
		if out := must(ExitError, tt.args...); !strings.Contains(out, tt.want) || strings.Contains(out, "workspace new") {
			t.Errorf("%s: %s", strings.Join(tt.args, " "), out)
		}
	}
	if out := must(0, "workspace", "delete", "empty"); out != "Deleted workspace \"empty\".\n" {
		t.Errorf("delete of an empty workspace: %q", out)
	}
	must(0, "workspace", "delete", "uk", "--force")
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "workspaces", "uk")); err == nil {
		t.Error("deleted workspace's folder is still there")
	}
	if out := must(ExitError, "--workspace", "uk", "show"); !strings.Contains(out, `workspace "uk" does not exist`) {
		t.Errorf("show of a deleted workspace: %s", out)
	}
}

// A run's lock in a workspace is that workspace's: show names the holder
// there and not in the default one, and force-unlock works with
// --workspace.
func TestLocalWorkspaceLock(t *testing.T) {
	dir, _ := stateTestDir(t)
	for _, args := range [][]string{{"workspace", "new", "uk"}, {"--workspace", "uk", "state", "push"}} {
		if code, _, errOut := runIn(t, dir, args...); code != 0 {
			t.Fatal(errOut)
		}
	}
	lw := local.NewWorkspaces(filepath.Join(dir, ".leadsync", "state.db"), nil)
	uk, err := lw.Open("uk")
	if err != nil {
		t.Fatal(err)
	}
	l, err := uk.Store.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runIn(t, dir, "--workspace", "uk", "show", "--json")
	if code != 0 || !strings.Contains(out, l.Info.ID) {
		t.Errorf("show of the locked workspace: exit %d\n%s", code, out)
	}
	if code, out, _ := runIn(t, dir, "show", "--json"); code != 0 || strings.Contains(out, l.Info.ID) {
		t.Errorf("show of the default workspace names uk's lock: exit %d\n%s", code, out)
	}
	code, _, errOut := runIn(t, dir, "--workspace", "uk", "state", "rm", "profile.founder")
	if code != ExitError || !strings.Contains(errOut, "leadsync --workspace uk force-unlock "+l.Info.ID) {
		t.Errorf("state rm in the locked workspace: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runIn(t, dir, "workspace", "delete", "uk"); code != ExitError || !strings.Contains(errOut, "is locked by") {
		t.Errorf("delete of the locked workspace: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runIn(t, dir, "--workspace", "uk", "force-unlock", "--force", l.Info.ID); code != 0 {
		t.Errorf("force-unlock in uk: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(uk.Store.LockPath()); err == nil {
		t.Error("the lock is still there")
	}
	if code, _, errOut := runIn(t, dir, "workspace", "delete", "uk", "--force"); code != 0 {
		t.Errorf("delete after force-unlock: exit %d: %s", code, errOut)
	}
}
