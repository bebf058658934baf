package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateRecoverDropsLeadIDsOfNobody: a state.db whose lead lists name
// a person it no longer holds (Bob, in two lists, removed without his
// found_by) pulls into JSON that state push refuses, with the count and
// the command to run; state recover drops those IDs, says how many, and
// the state pulled after it pushes. The others stay, in their order.
func TestStateRecoverDropsLeadIDsOfNobody(t *testing.T) {
	dir, db := stateTestDir(t)
	s, err := db.Load()
	if err != nil {
		t.Fatal(err)
	}
	s.People["102.bb"].FoundBy = nil // so that removing him cuts no list
	if !s.RemovePerson("102.bb") {
		t.Fatal("no Bob to remove")
	}
	if err := db.Commit(s); err != nil {
		t.Fatal(err)
	}

	pulled := pullInto(t, dir)
	scratch := t.TempDir()
	if err := os.WriteFile(filepath.Join(scratch, "main.leads.hcl"), []byte(stateTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runIn(t, scratch, "state", "push", "--from", pulled)
	if code == 0 || !strings.Contains(stderr, `person "102.bb" is not in people (2 lead IDs of 2 searches name nobody)`) ||
		!strings.Contains(stderr, "leadsync state recover") {
		t.Fatalf("push of a state whose lead lists name nobody: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = runIn(t, dir, "state", "recover")
	if code != 0 || !strings.Contains(stdout, "Dropped 2 lead IDs from the lead lists of 2 searches") {
		t.Fatalf("state recover: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := db.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(); err != nil {
		t.Errorf("the state after recover: %v", err)
	}
	if ids := got.Searches[`search.cto["Berlin"]`].LeadIDs; strings.Join(ids, ",") != "101.aa" {
		t.Errorf("Berlin's lead list after recover: %v, want Ann's alone", ids)
	}
	code, stdout, stderr = runIn(t, scratch, "state", "push", "--from", pullInto(t, dir))
	if code != 0 {
		t.Fatalf("push after recover: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, _ = runIn(t, dir, "state", "recover")
	if code != 0 || strings.Contains(stdout, "Dropped") {
		t.Errorf("a second recover: exit %d\n%s", code, stdout)
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
