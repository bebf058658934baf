package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

func TestWorkspacePath(t *testing.T) {
	for _, tt := range []struct{ path, name, want string }{
		{".leadsync/state.json", "default", ".leadsync/state.json"},
		{".leadsync/state.json", "", ".leadsync/state.json"},
		{".leadsync/state.json", "uk", ".leadsync/workspaces/uk/state.json"},
		{"data/leads.json", "dach-2026", "data/workspaces/dach-2026/leads.json"},
		{"/abs/.leadsync/./state.json", "a.b_c", "/abs/.leadsync/workspaces/a.b_c/state.json"},
	} {
		if got := WorkspacePath(filepath.FromSlash(tt.path), tt.name); got != filepath.FromSlash(tt.want) {
			t.Errorf("WorkspacePath(%q, %q) = %q, want %q", tt.path, tt.name, got, tt.want)
		}
	}
}

func TestWorkspaceNames(t *testing.T) {
	for _, ok := range []string{"default", "uk", "dach-2026", "a.b_c", "A1"} {
		if err := backend.CheckWorkspaceName(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	// Every name that would leave the workspaces folder is refused.
	for _, bad := range []string{"", "-x", ".", "..", ".hidden", "a b", "a/b", "../x", `a\b`, strings.Repeat("x", 65)} {
		if err := backend.CheckWorkspaceName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
		lw := NewWorkspaces(filepath.Join(t.TempDir(), "state.json"), nil)
		if _, err := lw.Open(bad); bad != "" && err == nil {
			t.Errorf("Open(%q) accepted", bad)
		}
		if err := lw.CreateWorkspace(bad); err == nil {
			t.Errorf("CreateWorkspace(%q) accepted", bad)
		}
	}
}

// testWorkspaces are the workspaces of a fresh folder, and that folder.
func testWorkspaces(t *testing.T) (*Workspaces, string) {
	t.Helper()
	dir := t.TempDir()
	return NewWorkspaces(filepath.Join(dir, ".leadsync", "state.json"), nil), dir
}

// files lists every file and folder under dir, relative, with "/".
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	}))
	return out
}

// A workspace's state, journal, backup and lock are in its own folder; the
// default workspace keeps .leadsync/state.json and its files beside it.
func TestWorkspaceFilesInTheirFolder(t *testing.T) {
	lw, dir := testWorkspaces(t)
	must(t, lw.CreateWorkspace("uk"))
	if m := mode(t, filepath.Join(dir, ".leadsync", "workspaces", "uk")); m != 0o700 {
		t.Errorf("workspace folder mode %v", m)
	}
	uk, err := lw.Open("uk")
	must(t, err)
	l, err := uk.Lock("apply")
	must(t, err)
	s, err := uk.Load()
	must(t, err)
	j := run(t, uk.Store, s, demoEvents()[:2]...)
	want := []string{".leadsync", ".leadsync/.gitignore", ".leadsync/workspaces", ".leadsync/workspaces/.gitignore",
		".leadsync/workspaces/uk", ".leadsync/workspaces/uk/epoch", ".leadsync/workspaces/uk/state.json", ".leadsync/workspaces/uk/state.json.journal", ".leadsync/workspaces/uk/state.json.lock"}
	if d := cmp.Diff(want, files(t, dir)); d != "" {
		t.Errorf("files during an apply in uk (-want +got):\n%s", d)
	}
	_ = j
	must(t, uk.Commit(s))
	must(t, l.Unlock())
	s2, err := uk.Load()
	must(t, err)
	must(t, uk.Commit(s2))
	want = []string{".leadsync", ".leadsync/.gitignore", ".leadsync/workspaces", ".leadsync/workspaces/.gitignore",
		".leadsync/workspaces/uk", ".leadsync/workspaces/uk/epoch", ".leadsync/workspaces/uk/state.json", ".leadsync/workspaces/uk/state.json.backup"}
	if d := cmp.Diff(want, files(t, dir)); d != "" {
		t.Errorf("files after two writes in uk (-want +got):\n%s", d)
	}
	// The default one: nothing moved.
	def, err := lw.Open("")
	must(t, err)
	if def.Store.Path() != filepath.Join(dir, ".leadsync", "state.json") || def.Store.LockPath() != filepath.Join(dir, ".leadsync", "state.json.lock") ||
		def.Store.JournalPath() != filepath.Join(dir, ".leadsync", "state.json.journal") || def.Store.BackupPath() != filepath.Join(dir, ".leadsync", "state.json.backup") {
		t.Errorf("default workspace's files: %s %s %s %s", def.Store.Path(), def.Store.LockPath(), def.Store.JournalPath(), def.Store.BackupPath())
	}
	if d, err := def.Load(); err != nil || len(d.Searches)+len(d.Profiles) != 0 {
		t.Errorf("default workspace after applies in uk: %v, %v", d, err)
	}
	// A lock held in uk names the workspace in its force-unlock hint.
	l, err = uk.Lock("apply")
	must(t, err)
	defer l.Unlock()
	_, err = uk.Lock("state rm")
	if le := (*LockedError)(nil); !errors.As(err, &le) || !strings.Contains(err.Error(), "leadsync --workspace uk force-unlock "+le.Info.ID) {
		t.Errorf("second lock of uk: %v", err)
	}
	dl, err := def.Lock("apply")
	must(t, err)
	must(t, dl.Unlock())
}

// A run waiting for a workspace's lock does not make the workspace again
// when it is deleted meanwhile.
func TestWorkspaceLockWaitRefusesDeleted(t *testing.T) {
	lw, _ := testWorkspaces(t)
	must(t, lw.CreateWorkspace("uk"))
	uk, err := lw.Open("uk")
	must(t, err)
	held, err := uk.Lock("apply")
	must(t, err)
	done := make(chan error, 1)
	go func() {
		other, err := lw.Open("uk")
		if err == nil {
			_, err = other.LockWait(context.Background(), "apply", time.Hour)
		}
		done <- err
	}()
	// Gone while held (what force-unlock then workspace delete amount
	// to): moved away in one rename, as delete does.
	must(t, os.Rename(filepath.Dir(uk.Store.Path()), filepath.Join(t.TempDir(), "gone")))
	_ = held
	if err := <-done; !errors.As(err, new(*backend.NoWorkspaceError)) {
		t.Fatalf("LockWait on a deleted workspace: %v", err)
	}
	if lw.Exists("uk") {
		t.Fatal("the waiting run made the deleted workspace again")
	}
}

// delete removes the workspace's folder with everything in it, its backup
// (personal data) included; a journal's calls count as content.
func TestWorkspaceDelete(t *testing.T) {
	lw, dir := testWorkspaces(t)
	must(t, lw.CreateWorkspace("uk"))
	uk, err := lw.Open("uk")
	must(t, err)
	s, err := uk.Load()
	must(t, err)
	must(t, uk.Commit(s))
	must(t, uk.Commit(s)) // a backup
	s, err = uk.Load()
	must(t, err)
	run(t, uk.Store, s, demoEvents()[0]) // killed: the search is only in the journal
	if err := lw.DeleteWorkspace("uk", false); err == nil || !strings.Contains(err.Error(), "not empty (1 search or profile, 2 people)") {
		t.Fatalf("delete of a workspace whose journal holds a search: %v", err)
	}
	if !lw.Exists("uk") {
		t.Fatal("refused delete removed the workspace")
	}
	must(t, lw.DeleteWorkspace("uk", true))
	if lw.Exists("uk") {
		t.Fatal("deleted workspace still exists")
	}
	if got := files(t, filepath.Join(dir, ".leadsync", "workspaces")); len(got) != 1 || got[0] != ".gitignore" {
		t.Errorf("left in the workspaces folder: %v", got)
	}
	if _, err := uk.Load(); !errors.As(err, new(*backend.NoWorkspaceError)) {
		t.Errorf("load of the deleted workspace: %v", err)
	}
	// A damaged workspace goes only with --force.
	must(t, lw.CreateWorkspace("bad"))
	must(t, os.WriteFile(lw.Path("bad"), []byte("{not json"), 0o600))
	if err := lw.DeleteWorkspace("bad", false); err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("delete of a damaged workspace: %v", err)
	}
	must(t, lw.DeleteWorkspace("bad", true))
}

// A push replaces a workspace's state; a journal it held is folded in
// first, so the backup keeps every paid call of what was replaced.
func TestWorkspacePushKeepsReplacedInBackup(t *testing.T) {
	lw, _ := testWorkspaces(t)
	must(t, lw.CreateWorkspace("uk"))
	uk, err := lw.Open("uk")
	must(t, err)
	killed, err := lw.Open("uk") // another process's
	must(t, err)
	s, err := killed.Load()
	must(t, err)
	run(t, killed.Store, s, demoEvents()[:3]...) // killed
	old, err := uk.Load()
	must(t, err)

	pushed := state.New()
	must(t, pushed.Fold(demoEvents()[3]))
	pushed.Serial = 7
	if err := uk.Push(pushed, false); !errors.As(err, new(*backend.NotEmptyError)) {
		t.Fatalf("push into a workspace whose journal holds calls: %v", err)
	}
	must(t, uk.Push(pushed, true))
	if _, err := os.Stat(uk.Store.JournalPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the replaced state's journal is still there: %v", err)
	}
	got, err := uk.Load()
	must(t, err)
	if got.Lineage != pushed.Lineage || got.Serial != 8 || len(got.Searches) != 1 || got.Searches["search.b"] == nil {
		t.Errorf("after the push: lineage %s serial %d searches %v; pushed lineage %s", got.Lineage, got.Serial, got.Addresses(false), pushed.Lineage)
	}
	b, err := os.ReadFile(uk.Store.BackupPath())
	must(t, err)
	backup, err := statefile.Decode("backup", b)
	must(t, err)
	if d := cmp.Diff(old.Addresses(true), backup.Addresses(true)); d != "" || backup.Lineage != old.Lineage {
		t.Errorf("backup is not the replaced state with its journal's calls (-replaced +backup):\n%s", d)
	}
}

// A workspace whose state cannot be read is not replaced, force or not.
func TestWorkspacePushRefusesUnreadable(t *testing.T) {
	lw, _ := testWorkspaces(t)
	must(t, lw.CreateWorkspace("uk"))
	uk, err := lw.Open("uk")
	must(t, err)
	must(t, os.WriteFile(lw.Path("uk"), []byte("{not json"), 0o600))
	for _, force := range []bool{false, true} {
		if err := uk.Push(state.New(), force); !errors.As(err, new(*statefile.CorruptError)) || !strings.Contains(err.Error(), "nothing was copied") {
			t.Errorf("push (force %v) over a damaged state: %v", force, err)
		}
	}
	if b, _ := os.ReadFile(lw.Path("uk")); string(b) != "{not json" {
		t.Errorf("damaged state changed: %q", b)
	}
}

// list shows the default one first, then the workspace folders by name;
// what is not a workspace is left out; a damaged state is listed as such.
func TestWorkspacesList(t *testing.T) {
	lw, dir := testWorkspaces(t)
	for _, name := range []string{"uk", "dach", "bad"} {
		must(t, lw.CreateWorkspace(name))
	}
	root := filepath.Join(dir, ".leadsync", "workspaces")
	must(t, os.WriteFile(filepath.Join(root, "notes.txt"), nil, 0o600))
	must(t, os.Mkdir(filepath.Join(root, ".deleted-x-1234"), 0o700))
	must(t, os.Mkdir(filepath.Join(root, "not a name"), 0o700))
	must(t, os.Mkdir(filepath.Join(root, "default"), 0o700))
	must(t, os.WriteFile(lw.Path("bad"), []byte("{not json"), 0o600))
	uk, err := lw.Open("uk")
	must(t, err)
	s, err := uk.Load()
	must(t, err)
	for _, e := range demoEvents()[:2] {
		must(t, s.Fold(e))
	}
	must(t, uk.Commit(s))

	list, err := lw.Workspaces()
	must(t, err)
	var got []string
	for _, w := range list {
		got = append(got, w.Name)
	}
	if d := cmp.Diff([]string{"default", "bad", "dach", "uk"}, got); d != "" {
		t.Fatalf("listed (-want +got):\n%s", d)
	}
	if list[0].Exists || list[0].Err != nil {
		t.Errorf("default before any write: %+v", list[0])
	}
	if !errors.As(list[1].Err, new(*statefile.CorruptError)) {
		t.Errorf("damaged workspace: %+v", list[1])
	}
	if w := list[2]; !w.Exists || w.Err != nil || w.Serial != 0 || w.People+w.Blocks != 0 {
		t.Errorf("empty workspace: %+v", w)
	}
	if w := list[3]; !w.Exists || w.Serial != 1 || w.Blocks != 2 || w.People != 3 || w.Lineage != s.Lineage {
		t.Errorf("uk: %+v", w)
	}
	if lw.Exists("not a name") || lw.Exists("notes.txt") || !lw.Exists("default") {
		t.Error("Exists of what is not a workspace")
	}
	// A killed first apply in the default workspace: its calls are there.
	def, err := lw.Open("default")
	must(t, err)
	s, err = def.Load()
	must(t, err)
	run(t, def.Store, s, demoEvents()[0])
	list, err = lw.Workspaces()
	must(t, err)
	if w := list[0]; !w.Exists || w.Blocks != 1 {
		t.Errorf("default with only a journal: %+v", w)
	}
}
