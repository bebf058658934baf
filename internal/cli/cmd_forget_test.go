package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

func TestForgetRespectsTheLock(t *testing.T) {
	dir, st := stateTestDir(t)
	l, err := st.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runIn(t, dir, "forget", "--auto-approve", "ann")
	if code != 1 || !strings.Contains(errOut, "locked by") || !strings.Contains(errOut, l.Info.ID) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	l.Unlock()
	s, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.People["101.aa"] == nil || len(s.Suppressed) != 0 {
		t.Error("a locked forget changed the state")
	}
}

func TestForget(t *testing.T) {
	tests := []struct {
		args []string
		out  []string
		gone []string // person IDs no longer in state
		n    int      // suppression entries
	}{
		{[]string{"ann"}, []string{"ann: removed Ann Albers (person.101.aa) from the state (found by search.cto[\"Berlin\"]; with their enrichment; with their profile; with their history); suppressed from now on.", "Forgot 1 person; 1 person is suppressed in .leadsync/state.db in total."}, []string{"101.aa"}, 1},
		{[]string{"102.bb"}, []string{"removed Bob Brandt (person.102.bb)", "found by search.cto[\"Berlin\"], search.cto[\"Hamburg\"]"}, []string{"102.bb"}, 1},
		{[]string{"https://network.example/profile/Max_Mustermann"}, []string{"removed Max Mustermann (person.page:Max_Mustermann)", "with their profile"}, []string{"page:Max_Mustermann"}, 1},
		{[]string{"Zed", "ann", "101.aa"}, []string{"Zed: not in the state", "the same person as above", "Forgot 1 person: removed from the state; 1 person not in it is suppressed from now on; 2 people are suppressed in .leadsync/state.db in total. Spreadsheets"}, []string{"101.aa"}, 2},
		{[]string{"Zed"}, []string{"Zed: not in the state; suppressed from now on", "Removed nobody from the state: 1 person not in it is suppressed from now on; 1 person is suppressed in .leadsync/state.db in total.\n"}, nil, 1},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir, st := stateTestDir(t)
			code, out, errOut := runIn(t, dir, append([]string{"forget", "--auto-approve"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			s, err := st.Load()
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range tc.gone {
				if s.People[id] != nil {
					t.Errorf("%s is still in the state", id)
				}
			}
			if len(s.Suppressed) != tc.n {
				t.Errorf("%d suppression entries, want %d", len(s.Suppressed), tc.n)
			}
			for _, a := range tc.args {
				if a != "Zed" && !s.IsSuppressed(person.Lead{PageName: a}) && !s.IsSuppressed(person.Lead{NetworkID: a}) && !strings.HasPrefix(a, "https://") {
					t.Errorf("%s is not suppressed", a)
				}
			}
		})
	}
}

func TestForgetNeedsAPerson(t *testing.T) {
	dir, _ := stateTestDir(t)
	if code, _, errOut := runIn(t, dir, "forget"); code != 1 || !strings.Contains(errOut, "PERSON") && !strings.Contains(errOut, "argument") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if code, _, errOut := runIn(t, dir, "forget", " "); code != 1 || !strings.Contains(errOut, "PERSON is empty") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestShowCountsSuppressed(t *testing.T) {
	dir, _ := stateTestDir(t)
	if code, _, errOut := runIn(t, dir, "forget", "--auto-approve", "ann"); code != 0 {
		t.Fatalf("forget: %s", errOut)
	}
	code, out, _ := runIn(t, dir, "show")
	if code != 0 || !strings.Contains(out, "Suppressed: 1 person erased with leadsync forget") || !strings.Contains(out, "People: 2") {
		t.Errorf("show after forget: exit %d\n%s", code, out)
	}
	code, out, _ = runIn(t, dir, "show", "--json")
	if code != 0 || !strings.Contains(out, `"suppressed": 1`) {
		t.Errorf("show --json after forget: exit %d\n%s", code, out)
	}
}

func TestForgetTwice(t *testing.T) {
	dir, st := stateTestDir(t)
	var serial uint64
	for i, want := range []string{"ann: removed Ann Albers", "ann: already erased and suppressed."} {
		code, out, errOut := runIn(t, dir, "forget", "--auto-approve", "ann")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("forget %d: exit %d, output lacks %q:\n%s%s", i+1, code, want, out, errOut)
		}
		s, err := st.Load()
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && s.Serial != serial {
			t.Errorf("forgetting someone already erased wrote the state (serial %d -> %d)", serial, s.Serial)
		}
		serial = s.Serial
	}
	s, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Suppressed) != 1 {
		t.Errorf("%d suppression entries after forgetting one person twice", len(s.Suppressed))
	}
}

// TestRetentionPlanAndApply: people no search has seen for the retention
// period are a forget of "people" in the plan, and apply removes them
// without a call.
func TestRetentionPlanAndApply(t *testing.T) {
	dir, store := stateTestDir(t) // people last seen 2025-12-30; the clock says 2026-01-02
	write(t, dir, "retention.leads.hcl", "leadsync {\n  retention = \"2d\"\n}\n")
	code, out, errOut := runIn(t, dir, "plan", "--offline")
	if code != 0 || !strings.Contains(out, "- people") || !strings.Contains(out, "forget") ||
		!strings.Contains(out, "3 people not seen by any search for 2d (retention) leave the state with their enrichments") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, dir, "apply", "--auto-approve")
	if code != 0 || !strings.Contains(out, "Removed 3 people no search has seen for the retention period.") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.People) != 0 || len(s.Suppressed) != 0 {
		t.Errorf("after retention: %d people, %d suppressed; want 0 and 0 (retention does not suppress)", len(s.People), len(s.Suppressed))
	}
	// The state before the apply held them: it must not survive as the
	// backup.
	checkNoBackupHolds(t, store.BackupPath(), "Ann Albers", "101.aa", "Bob Brandt", "102.bb")
}

// checkNoBackupHolds fails when the backup file at path exists and names
// any of who (an erased person must not survive in the state before).
func checkNoBackupHolds(t *testing.T, path string, who ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range who {
		if bytes.Contains(b, []byte(w)) {
			t.Errorf("the backup %s still holds %q, who was erased", filepath.Base(path), w)
		}
	}
}

// In a workspace, forget names that workspace's state file (relative to
// the configuration folder), not the default one's file name.
func TestForgetNamesTheWorkspaceFile(t *testing.T) {
	dir, _ := stateTestDir(t)
	for _, args := range [][]string{{"workspace", "new", "t"}, {"--workspace", "t", "state", "push", "--from", ".leadsync/state.db"}} {
		if code, _, errOut := runIn(t, dir, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	code, out, errOut := runIn(t, dir, "--workspace", "t", "forget", "--auto-approve", "ann")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "Forgot 1 person; 1 person is suppressed in .leadsync/workspaces/t/state.db in total."; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// TestForgetAsksFirst: forget shows what it will do and erases only on
// "yes"; without a terminal and without --auto-approve it refuses before
// reading anything. Nothing changes unless approved.
func TestForgetAsksFirst(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		answer string
		code   int
		out    []string // substrings of stdout, in order
		errOut string
		erased bool
	}{
		{"yes", true, "yes\n", 0, []string{"leadsync forget will erase for good:", "  - ann: remove Ann Albers (person.101.aa) from the state (found by", "  - Zed: not in the state; suppress it", "Only 'yes' will be accepted", "Enter a value: ", "Forgot 1 person: removed from the state; 1 person not in it"}, "", true},
		{"no", true, "no\n", 1, []string{"leadsync forget will erase for good:", "Enter a value: ", "Forget cancelled; nothing was changed."}, "", false},
		{"closed input", true, "", 1, []string{"Enter a value: "}, "no answer to the confirmation prompt (standard input closed); use --auto-approve to forget without asking", false},
		{"no terminal", false, "yes\n", 1, nil, "forget asks for confirmation, and standard input is not a terminal: nothing was changed. Run it again with --auto-approve", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, st := stateTestDir(t)
			f, out, errOut := configTestFactory(dir)
			f.IO.InTTY = tc.tty
			f.IO.In.(*bytes.Buffer).WriteString(tc.answer)
			if code := Run(t.Context(), f, []string{"forget", "ann", "Zed"}); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			rest := out.String()
			for _, w := range tc.out {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stdout lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			if tc.out == nil && out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.Contains(errOut.String(), tc.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tc.errOut, errOut)
			}
			s, err := st.Load()
			if err != nil {
				t.Fatal(err)
			}
			if erased := s.People["101.aa"] == nil; erased != tc.erased || (len(s.Suppressed) > 0) != tc.erased {
				t.Errorf("ann erased %v, %d suppressed; want erased %v", erased, len(s.Suppressed), tc.erased)
			}
		})
	}
}
