package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// TestStateRecoverDropsLeadIDsOfNobody: a state.db whose lead lists name
// a person it no longer holds (Bob, in three lists, removed without his
// found_by) pulls into JSON that state push refuses, with the count and
// the command to run; state recover drops those IDs, says how many (no
// word of a journal: a database has none) and the serial it wrote, and
// the state pulled after it pushes. The others stay, in their order. A
// second recover has nothing to repair and writes nothing.
func TestStateRecoverDropsLeadIDsOfNobody(t *testing.T) {
	dir, db := stateWithLeadsOfNobody(t)
	pulled := pullInto(t, dir)
	scratch := t.TempDir()
	if err := os.WriteFile(filepath.Join(scratch, "main.leads.hcl"), []byte(stateTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runIn(t, scratch, "state", "push", "--from", pulled)
	if code == 0 || !strings.Contains(stderr, `person "102.bb" is not in people (3 lead IDs of 3 searches name nobody)`) ||
		!strings.Contains(stderr, "leadsync state recover") {
		t.Fatalf("push of a state whose lead lists name nobody: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = runIn(t, dir, "state", "recover")
	if code != 0 || !strings.HasPrefix(stdout, "Dropped 3 lead IDs from the lead lists of 3 searches") {
		t.Fatalf("state recover: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := db.Load()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("Wrote the state: serial %d.\n", got.Serial); !strings.HasSuffix(stdout, want) {
		t.Errorf("state recover said\n%s\nwant it to end with %q", stdout, want)
	}
	if err := got.Check(); err != nil {
		t.Errorf("the state after recover: %v", err)
	}
	checkListsAfterRecover(t, got)
	code, stdout, stderr = runIn(t, scratch, "state", "push", "--from", pullInto(t, dir))
	if code != 0 {
		t.Fatalf("push after recover: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, _ = runIn(t, dir, "state", "recover")
	if want := "Nothing to repair: every ID names someone (the state was not written).\n"; code != 0 || stdout != want {
		t.Errorf("a second recover: exit %d\n%s\nwant\n%s", code, stdout, want)
	}
}

// pullInto writes the state pull of dir's state to a file and returns its
// path.
func pullInto(t *testing.T, dir string) string {
	t.Helper()
	code, stdout, stderr := runIn(t, dir, "state", "pull")
	if code != 0 {
		t.Fatalf("state pull: exit %d\n%s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "pulled.json")
	if err := os.WriteFile(path, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// stateWithLeadsOfNobody is stateTestDir's state with a third search
// (Carl, Bob, Ann, in that order) and Bob removed without his found_by:
// three lead lists name him, one keeps two others.
func stateWithLeadsOfNobody(t *testing.T) (string, *local.Store) {
	t.Helper()
	dir, db := stateTestDir(t)
	leaveLeadsOfNobody(t, db)
	return dir, db
}

// committer is a store of a state: local.Store, a backend.Backend.
type committer interface {
	Load() (*state.State, error)
	Commit(s *state.State) error
}

// leaveLeadsOfNobody adds to the state of b a third search (Carl, Bob,
// Ann, in that order) and removes Bob without his found_by: three lead
// lists name him, one keeps two others.
func leaveLeadsOfNobody(t *testing.T, b committer) {
	t.Helper()
	s, err := b.Load()
	if err != nil {
		t.Fatal(err)
	}
	leads := []person.Lead{
		{FullName: "Carl Cord", NetworkID: "103.cc", PageName: "carl"},
		{FullName: "Bob Brandt", NetworkID: "102.bb", PageName: "bob"},
		{FullName: "Ann Albers", NetworkID: "101.aa", PageName: "ann"},
	}
	err = s.Fold(state.Event{At: time.Date(2025, 12, 30, 12, 0, 0, 0, time.UTC), Kind: state.EventSearch, Address: `search.cto["Munich"]`,
		Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"city":"Munich","keywords":"CTO"}`), Leads: leads}})
	if err != nil {
		t.Fatal(err)
	}
	s.People["102.bb"].FoundBy = nil // so that removing him cuts no list
	if !s.RemovePerson("102.bb") {
		t.Fatal("no Bob to remove")
	}
	if err := b.Commit(s); err != nil {
		t.Fatal(err)
	}
}

// checkListsAfterRecover checks the lead lists of stateWithLeadsOfNobody
// after recover: Bob gone, the others there in their order.
func checkListsAfterRecover(t *testing.T, s *state.State) {
	t.Helper()
	want := map[string]string{`search.cto["Berlin"]`: "101.aa", `search.cto["Hamburg"]`: "", `search.cto["Munich"]`: "103.cc,101.aa"}
	for addr, w := range want {
		if got := strings.Join(s.Searches[addr].LeadIDs, ","); got != w {
			t.Errorf("%s's lead list after recover: %q, want %q", addr, got, w)
		}
	}
}

// TestStateRecoverDropsLeadIDsOfNobodyFromAFile: a state file whose lead
// lists name nobody is refused by every command, each sending the user to
// state recover (and saying there is no backup, as there is none); recover
// reads it all the same, drops those IDs, and the file reads again.
func TestStateRecoverDropsLeadIDsOfNobodyFromAFile(t *testing.T) {
	dir, _ := stateWithLeadsOfNobody(t)
	pulled := pullInto(t, dir)
	code, stdout, stderr := runIn(t, dir, "state", "list", "--state", pulled)
	if code == 0 || !strings.Contains(stderr, "(3 lead IDs of 3 searches name nobody)") ||
		!strings.Contains(stderr, "leadsync state recover") || !strings.Contains(stderr, "There is no backup") {
		t.Fatalf("state list of a file whose lead lists name nobody: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runIn(t, dir, "state", "recover", "--state", pulled)
	if code != 0 || !strings.Contains(stdout, "Dropped 3 lead IDs from the lead lists of 3 searches") {
		t.Fatalf("state recover --state: exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(pulled)
	if err != nil {
		t.Fatal(err)
	}
	got, err := statefile.Decode(pulled, b)
	if err != nil {
		t.Fatalf("the file after recover: %v", err)
	}
	checkListsAfterRecover(t, got)
}

// TestStateRecoverOfADamagedFileNamesNoMissingBackup: a state file damaged
// otherwise (a null search) is refused by recover with what is wrong, and
// a backup is named only when there is one.
func TestStateRecoverOfADamagedFileNamesNoMissingBackup(t *testing.T) {
	dir, _ := stateTestDir(t)
	path := filepath.Join(t.TempDir(), "state.json")
	b, err := os.ReadFile(pullInto(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), `"searches": {`, `"searches": {"search.zz": null,`, 1))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runIn(t, dir, "state", "recover", "--state", path)
	if code == 0 || !strings.Contains(stderr, `search "search.zz" is null`) || !strings.Contains(stderr, "There is no backup") ||
		strings.Contains(stderr, "Restore the last good copy") {
		t.Fatalf("state recover of a file with a null search: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestStateRecoverDropsLeadIDsOfNobodyOnPg: on the pg backend, recover
// asks the store, finds the lead IDs naming nobody, and drops them.
func TestStateRecoverDropsLeadIDsOfNobodyOnPg(t *testing.T) {
	cs, schema := pgTestSchema(t)
	_, db := stateTestDir(t)
	s, err := db.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := stateTestConfig + "leadsync {\n  backend \"pg\" {\n    schema_name = \"" + schema + "\"\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"LEADSYNC_PG_CONN_STR=" + cs}
	f, _, _ := configTestFactory(dir, env...)
	src, err := openStateSource(f, arguments.State{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	pusher, ok := backend.PusherOf(src.backend)
	if !ok {
		t.Fatal("the pg backend takes no push")
	}
	if err := pusher.Push(s, false); err != nil {
		t.Fatal(err)
	}
	leaveLeadsOfNobody(t, src.backend)

	code, stdout, stderr := runEnv(t, dir, env, "state", "recover")
	if code != 0 || !strings.Contains(stdout, "Dropped 3 lead IDs from the lead lists of 3 searches") {
		t.Fatalf("state recover on pg: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := src.backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	checkListsAfterRecover(t, got)
}
