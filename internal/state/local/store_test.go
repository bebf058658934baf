package local

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/testenv"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	return NewStore(filepath.Join(dir, ".leadsync", "state.json")), dir
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	return fi.Mode().Perm()
}

// leftovers lists files in dir other than the expected ones.
func leftovers(t *testing.T, dir string, expected ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range ents {
		ok := false
		for _, x := range expected {
			ok = ok || e.Name() == x
		}
		if !ok {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestSaveAndLoad(t *testing.T) {
	store, _ := newStore(t)
	dir := filepath.Dir(store.Path())

	s, err := store.Load()
	must(t, err)
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Load of a missing state wrote something")
	}
	must(t, s.Fold(searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"))))
	must(t, store.Save(s))
	if s.Serial != 1 || s.LeadsyncVersion == "" {
		t.Errorf("serial %d version %q", s.Serial, s.LeadsyncVersion)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("folder mode %v", m)
	}
	if m := mode(t, store.Path()); m != 0o600 {
		t.Errorf("state mode %v", m)
	}
	gi, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	must(t, err)
	if !strings.Contains(string(gi), "\n*\n") {
		t.Errorf(".gitignore: %q", gi)
	}
	first, _ := os.ReadFile(store.Path())

	must(t, s.Fold(searchEv(day(1), "search.b", 0, lead("n2", "bob", "Bob"))))
	must(t, store.Save(s))
	if got := leftovers(t, dir, ".gitignore", "state.json", "state.json.backup"); len(got) > 0 {
		t.Errorf("left behind: %v", got)
	}
	if b, _ := os.ReadFile(store.BackupPath()); !bytes.Equal(b, first) {
		t.Error("the backup is not the previous state")
	}

	got, err := store.Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("loaded state differs:\n%s", d)
	}
	if got.Serial != 2 {
		t.Errorf("serial %d", got.Serial)
	}
}

func TestLoadRefusesDamagedFiles(t *testing.T) {
	good := func() []byte {
		s := state.New()
		must(t, s.Fold(searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob"))))
		return encode(t, s)
	}()
	tests := []struct {
		name, content string
		newer         bool
		line          int
		reason        string // part of CorruptError.Reason, when set
	}{
		{name: "empty", content: ""},
		{name: "not JSON", content: "<html>oops</html>"},
		{name: "truncated", content: string(good[:len(good)*2/3]), line: bytes.Count(good[:len(good)*2/3], []byte("\n")) + 1},
		{name: "no format_version", content: `{"lineage":"x"}`},
		{name: "no lineage", content: `{"format_version":1}`},
		{name: "wrong type", content: "{\"format_version\":1,\"lineage\":\"x\",\n\"people\":{\"a\":{\"lead\":5}}}", line: 2},
		{name: "null person", content: `{"format_version":1,"lineage":"x","people":{"a":null}}`},
		{name: "null search", content: `{"format_version":1,"lineage":"x","searches":{"s":null}}`, reason: `search "s" is null`},
		{name: "null profile", content: `{"format_version":1,"lineage":"x","profiles":{"p":null}}`, reason: `profile "p" is null`},
		{name: "mismatched id", content: `{"format_version":1,"lineage":"x","people":{"a":{"id":"b"}}}`},
		{name: "trailing data", content: string(good) + "{}"},
		{name: "negative serial", content: "{\"format_version\":1,\"lineage\":\"x\",\n\"serial\":-5}", line: 2, reason: "serial: -5 is negative; expected a whole number of 0 or more"},
		{name: "fractional serial", content: `{"format_version":1,"lineage":"x","serial":1.5}`, reason: "serial: 1.5 is not a whole number"},
		{name: "newer format", content: `{"format_version":99,"lineage":"x","leadsync_version":"v9.0.0","people":[1,2,3]}`, newer: true},
		{name: "newer format, otherwise fine", content: `{"format_version":2,"lineage":"x"}`, newer: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, _ := newStore(t)
			must(t, os.MkdirAll(filepath.Dir(store.Path()), 0o700))
			must(t, os.WriteFile(store.Path(), []byte(tt.content), 0o600))
			_, err := store.Load()
			var ce *statefile.CorruptError
			var ne *statefile.NewerFormatError
			switch {
			case tt.newer:
				if !errors.As(err, &ne) {
					t.Fatalf("got %v, want a NewerFormatError", err)
				}
				if !strings.Contains(err.Error(), "Upgrade leadsync") {
					t.Errorf("message: %v", err)
				}
			default:
				if !errors.As(err, &ce) {
					t.Fatalf("got %v, want a CorruptError", err)
				}
				if tt.line > 0 && ce.Line != tt.line {
					t.Errorf("line %d, want %d (%v)", ce.Line, tt.line, err)
				}
				if !strings.Contains(ce.Reason, tt.reason) {
					t.Errorf("reason %q, want it to say %q", ce.Reason, tt.reason)
				}
				if !strings.Contains(err.Error(), ".backup") {
					t.Errorf("message: %v", err)
				}
			}
			if !strings.Contains(err.Error(), store.Path()) {
				t.Errorf("message does not name the file: %v", err)
			}
			// Never touched: same bytes, and no journal, lock or backup.
			if b, _ := os.ReadFile(store.Path()); string(b) != tt.content {
				t.Error("the file was changed")
			}
			if got := leftovers(t, filepath.Dir(store.Path()), "state.json"); len(got) > 0 {
				t.Errorf("files written: %v", got)
			}
		})
	}
}

// failAfter fails writes with err once n bytes were written.
type failAfter struct {
	w   io.Writer
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, f.err
	}
	f.n -= len(p)
	return f.w.Write(p)
}

func TestSaveFailureKeepsPreviousState(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	must(t, s.Fold(searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"))))
	must(t, store.Save(s))
	before, _ := os.ReadFile(store.Path())

	must(t, s.Fold(searchEv(day(1), "search.b", 0, lead("n2", "bob", "Bob"))))
	store.WrapWrite = func(_ string, w io.Writer) io.Writer { return &failAfter{w: w, n: 100, err: syscall.ENOSPC} }
	err := store.Save(s)
	var we *safefile.WriteError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), store.Path()) {
		t.Fatalf("got %v", err)
	}
	if after, _ := os.ReadFile(store.Path()); !bytes.Equal(before, after) {
		t.Error("the previous state was changed")
	}
	if got := leftovers(t, filepath.Dir(store.Path()), ".gitignore", "state.json"); len(got) > 0 {
		t.Errorf("left behind: %v", got)
	}
	if s.Serial != 1 {
		t.Errorf("serial moved to %d though nothing was written", s.Serial)
	}
	store.WrapWrite = nil
	must(t, store.Save(s))
	if s.Serial != 2 {
		t.Errorf("serial %d", s.Serial)
	}
}

func TestSaveIntoReadOnlyFolder(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	must(t, store.Save(s))
	testenv.ReadOnly(t, filepath.Dir(store.Path()))
	err := store.Save(s)
	if err == nil || !(strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "read-only file system")) {
		t.Fatalf("got %v", err)
	}
}

// run records events through a journal the way apply does.
// TestErasureKeepsNoBackup: the write that erases people (forget,
// retention) leaves no backup, which would be the state before and still
// hold them; the next write keeps a backup again, of the state without
// them. A write that only changes something else keeps its backup.
func TestErasureKeepsNoBackup(t *testing.T) {
	for _, reason := range []string{state.ForgetRetention, state.ForgetErasure} {
		t.Run(reason, func(t *testing.T) {
			store, _ := newStore(t)
			s, err := store.Load()
			must(t, err)
			must(t, s.Fold(searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann Albers"), lead("n2", "bob", "Bob Brandt"))))
			must(t, store.Save(s))
			must(t, s.Fold(searchEv(day(1), "search.b", 0, lead("n3", "cleo", "Cleo Cruz"))))
			must(t, store.Save(s))
			if _, err := os.Stat(store.BackupPath()); err != nil {
				t.Fatalf("no backup after an ordinary write: %v", err)
			}

			must(t, s.Fold(state.Event{At: day(2), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
				People: &state.ForgetPeopleEvent{Reason: reason, PersonIDs: []string{"n1"}}}))
			must(t, store.Save(s))
			if _, err := os.Stat(store.BackupPath()); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the write that erased Ann kept a backup (%v)", err)
			}

			must(t, s.Fold(searchEv(day(3), "search.c", 0, lead("n4", "dan", "Dan Dorn"))))
			must(t, store.Save(s))
			b, err := os.ReadFile(store.BackupPath())
			must(t, err)
			if bytes.Contains(b, []byte("Ann Albers")) || !bytes.Contains(b, []byte("Bob Brandt")) {
				t.Errorf("the backup of the write after the erasure should hold Bob and not Ann:\n%s", b)
			}
		})
	}
}

func run(t *testing.T, store *Store, s *state.State, events ...state.Event) *Journal {
	t.Helper()
	j, err := store.OpenJournal(s)
	must(t, err)
	for i := range events {
		must(t, j.Record(&events[i]))
	}
	return j
}

func TestJournalReplayAfterCrash(t *testing.T) {
	store, _ := newStore(t)
	s, err := store.Load()
	must(t, err)
	j := run(t, store, s, demoEvents()...)
	if m := mode(t, store.JournalPath()); m != 0o600 {
		t.Errorf("journal mode %v", m)
	}
	// Crash: the process is gone without Commit (the file stays open).
	_ = j

	got, err := NewStore(store.Path()).Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("replayed state differs from the live one:\n%s", d)
	}
	if got.Usage.CreditsSpent != 2 {
		t.Errorf("credits spent %d", got.Usage.CreditsSpent)
	}
}

func TestJournalAppendIsOneLine(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	j, err := store.OpenJournal(s)
	must(t, err)
	for i, e := range demoEvents() {
		before, _ := os.ReadFile(store.JournalPath())
		must(t, j.Append(&e))
		after, _ := os.ReadFile(store.JournalPath())
		if !bytes.HasPrefix(after, before) || bytes.Count(after[len(before):], []byte("\n")) != 1 {
			t.Fatalf("append %d rewrote the journal or wrote more than one line", i)
		}
		if e.Seq != uint64(i+1) {
			t.Errorf("seq %d, want %d", e.Seq, i+1)
		}
	}
}

func TestJournalTornLastLine(t *testing.T) {
	for _, tail := range []string{
		`0badc0de {"seq":6,"kind":"enri`,             // cut in the middle
		"0badc0de {\"seq\":6,\"kind\":\"forget\"}\n", // whole line, wrong checksum
		"\x00\x00\x00\x00",                           // zeros from a file system that extended the file
	} {
		store, _ := newStore(t)
		s := state.New()
		run(t, store, s, demoEvents()...)
		f, err := os.OpenFile(store.JournalPath(), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		f.WriteString(tail)
		f.Close()
		got, err := store.Load()
		if err != nil {
			t.Fatalf("tail %q: %v", tail, err)
		}
		if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
			t.Errorf("tail %q: replayed state differs:\n%s", tail, d)
		}
		// The next run folds the journal and starts a clean one.
		j, err := NewStore(store.Path()).OpenJournal(got)
		must(t, err)
		e := searchEv(day(2), "search.c", 0, lead("n9", "", ""))
		must(t, j.Record(&e))
		again, err := NewStore(store.Path()).Load()
		must(t, err)
		if again.People["n9"] == nil || again.Usage.CreditsSpent != 2 {
			t.Errorf("after the next run: %v, credits %d", again.Addresses(true), again.Usage.CreditsSpent)
		}
	}
}

func TestJournalDamageInTheMiddleIsAnError(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	run(t, store, s, demoEvents()...)
	b, _ := os.ReadFile(store.JournalPath())
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte("profile"), []byte("prOfile"), 1)
	damaged := bytes.Join(lines, nil)
	must(t, os.WriteFile(store.JournalPath(), damaged, 0o600))
	_, err := store.Load()
	var je *JournalError
	if !errors.As(err, &je) || je.Line != 3 || !strings.Contains(err.Error(), "paid for") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(store.JournalPath()); !bytes.Equal(b, damaged) {
		t.Error("the journal was changed")
	}
}

// TestCommitCrashWindow: a crash after the folded state is written but
// before the journal is removed must not apply the journal twice.
func TestCommitCrashWindow(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	j := run(t, store, s, demoEvents()...)
	// Save is the first half of Commit; the journal is still there.
	must(t, store.Save(s))
	if _, err := os.Stat(store.JournalPath()); err != nil {
		t.Fatal(err)
	}
	got, err := NewStore(store.Path()).Load()
	must(t, err)
	if got.Usage.CreditsSpent != 2 {
		t.Errorf("credits spent %d: events applied twice", got.Usage.CreditsSpent)
	}
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("state differs:\n%s", d)
	}

	// More events after that save are still replayed.
	e := enrichEv(day(1), "enrich.e", "page:carl", person.EnrichedProfile{NetworkID: "n3", PageName: "carl"})
	must(t, j.Record(&e))
	got, err = NewStore(store.Path()).Load()
	must(t, err)
	if got.Usage.CreditsSpent != 3 || got.People["n3"] == nil {
		t.Errorf("credits spent %d, people %v", got.Usage.CreditsSpent, got.Addresses(true))
	}

	// A clean Commit removes the journal.
	must(t, store.Commit(s))
	if _, err := os.Stat(store.JournalPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal still there: %v", err)
	}
	got, err = NewStore(store.Path()).Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("state differs:\n%s", d)
	}
}

func TestCommitAfterReplayRemovesTheJournal(t *testing.T) {
	store, _ := newStore(t)
	run(t, store, state.New(), demoEvents()...)
	st2 := NewStore(store.Path())
	s, err := st2.Load()
	must(t, err)
	must(t, st2.Commit(s))
	if _, err := os.Stat(store.JournalPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal still there: %v", err)
	}
	got, err := st2.Load()
	must(t, err)
	if got.Usage.CreditsSpent != 2 {
		t.Errorf("credits %d", got.Usage.CreditsSpent)
	}
}

func TestOpenJournalRefusesAStateWithoutIt(t *testing.T) {
	store, _ := newStore(t)
	run(t, store, state.New(), demoEvents()...)
	// A state that did not come from Load (so lacks the journal's calls).
	if _, err := NewStore(store.Path()).OpenJournal(state.New()); err == nil {
		t.Fatal("no error")
	}
}

func TestJournalOfAnotherStateIsRefused(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	run(t, store, s, demoEvents()...)
	other := state.New()
	must(t, NewStore(store.Path()+".other").Save(other))
	must(t, os.Rename(store.Path()+".other", store.Path()))
	_, err := NewStore(store.Path()).Load()
	var je *JournalError
	if !errors.As(err, &je) || !strings.Contains(err.Error(), "lineage") {
		t.Fatalf("got %v", err)
	}
}

func TestJournalWriteFailureLeavesItReadable(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	fail := false
	store.WrapWrite = func(name string, w io.Writer) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			if fail {
				n, _ := w.Write(p[:len(p)/2])
				return n, syscall.ENOSPC
			}
			return w.Write(p)
		})
	}
	j, err := store.OpenJournal(s)
	must(t, err)
	evs := demoEvents()
	must(t, j.Record(&evs[0]))
	fail = true
	if err := j.Record(&evs[1]); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("got %v", err)
	}
	fail = false
	must(t, j.Record(&evs[2]))
	got, err := NewStore(store.Path()).Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("state differs:\n%s", d)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestJournalConcurrentRecords: apply records calls from several
// goroutines; the race detector checks the locking, the replay checks that
// the journal's order is the order the state saw.
func TestJournalConcurrentRecords(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	j, err := store.OpenJournal(s)
	must(t, err)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func(g int) {
			var err error
			for i := 0; i < 10 && err == nil; i++ {
				e := searchEv(day(i), fmt.Sprintf("search.s%d", i), 0, lead(fmt.Sprintf("n%d", g), "same-page", fmt.Sprintf("G%d", g)))
				err = j.Record(&e)
			}
			done <- err
		}(g)
	}
	for g := 0; g < 4; g++ {
		must(t, <-done)
	}
	if j.Seq() != 40 {
		t.Fatalf("seq %d", j.Seq())
	}
	got, err := NewStore(store.Path()).Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("replay differs from the live state:\n%s", d)
	}
}

// TestLoadUnreadable: a state path that cannot be read (a folder, a file
// without read permission) gives one error naming it, not a damaged
// state, and changes nothing.
func TestLoadUnreadable(t *testing.T) {
	store, _ := newStore(t)
	must(t, os.MkdirAll(store.Path(), 0o700)) // a folder where the file goes
	_, err := store.Load()
	var ce *statefile.CorruptError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot read state "+store.Path()) ||
		!strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a folder: %v", err)
	}
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		return // permissions do not stop root
	}
	must(t, os.Remove(store.Path()))
	must(t, os.WriteFile(store.Path(), []byte(`{"format_version":1,"lineage":"x"}`), 0o000))
	if _, err := store.Load(); err == nil || !strings.Contains(err.Error(), "cannot read state") {
		t.Errorf("no permission: %v", err)
	}
}
