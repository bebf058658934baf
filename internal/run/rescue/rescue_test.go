package rescue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func enrichEvent(seq uint64, page string) *state.Event {
	return &state.Event{At: t0, Kind: state.EventEnrich, Address: "enrich.all", Mark: &state.EventMark{Run: "run-1", Seq: seq},
		Enrich: &state.EnrichEvent{PersonID: "n-" + page, Credits: 1, Result: person.EnrichedProfile{PageName: page, Email: page + "@acme.example"}}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteRead: a writer makes nothing until its first event, then a
// private file (0600 in a 0700 folder) that reads back as written, header
// and events in order.
func TestWriteRead(t *testing.T) {
	p := PlaceIn(t.TempDir(), "state file /work/.leadsync/state.json")
	files, err := p.Read()
	if err != nil || len(files) != 0 {
		t.Fatalf("Read of nothing = %v, %v", files, err)
	}
	w := p.NewWriter(Header{Run: "run-1", Lineage: "L", Created: t0, State: "state file /work/.leadsync/state.json"})
	if w.Path() != "" {
		t.Fatalf("a file before the first event: %s", w.Path())
	}
	must(t, w.Append(enrichEvent(4, "ann")))
	must(t, w.Append(enrichEvent(5, "bob")))
	if fi, err := os.Stat(w.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(p.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	files, err = p.Read()
	if err != nil || len(files) != 1 {
		t.Fatalf("Read = %v, %v", files, err)
	}
	f := files[0]
	if f.Header.Run != "run-1" || f.Header.Lineage != "L" || f.Header.Version != Version || f.Torn {
		t.Errorf("header %+v, torn %v", f.Header, f.Torn)
	}
	if len(f.Events) != 2 || f.Events[0].Enrich.Result.Email != "ann@acme.example" || f.Events[1].Mark.Seq != 5 {
		t.Errorf("events %+v", f.Events)
	}
	must(t, w.Close())
}

// TestPlacesDoNotMix: another state (another file, another workspace) is
// another key; the files of one are not read as the other's.
func TestPlacesDoNotMix(t *testing.T) {
	cache := t.TempDir()
	a := PlaceIn(cache, "state file /work/a/.leadsync/state.json")
	b := PlaceIn(cache, `workspace "uk" (state file /work/a/.leadsync/workspaces/uk/state.json)`)
	if a.Key == b.Key || a.Dir != b.Dir {
		t.Fatalf("places %+v and %+v", a, b)
	}
	w := a.NewWriter(Header{Run: "run-1", Lineage: "L", Created: t0})
	must(t, w.Append(enrichEvent(1, "ann")))
	if files, err := b.Read(); err != nil || len(files) != 0 {
		t.Errorf("b reads a's file: %v, %v", files, err)
	}
}

// TestTornAndDamagedLines: a last line cut short (a crash while it was
// written) is left out; a damaged line before it is an error naming the
// file, which is kept.
func TestTornAndDamagedLines(t *testing.T) {
	p := PlaceIn(t.TempDir(), "x")
	w := p.NewWriter(Header{Run: "run-1", Lineage: "L", Created: t0})
	must(t, w.Append(enrichEvent(1, "ann")))
	must(t, w.Append(enrichEvent(2, "bob")))
	must(t, w.Close())
	b, err := os.ReadFile(w.Path())
	must(t, err)
	must(t, os.WriteFile(w.Path(), b[:len(b)-7], 0o600))
	f, err := ReadFile(w.Path())
	if err != nil || !f.Torn || len(f.Events) != 1 {
		t.Fatalf("torn last line: %+v, %v; want one event and Torn", f, err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = strings.Replace(lines[1], "ann", "eve", 1) // the checksum no longer matches
	must(t, os.WriteFile(w.Path(), []byte(strings.Join(lines, "")), 0o600))
	if _, err := ReadFile(w.Path()); err == nil || !strings.Contains(err.Error(), w.Path()) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("damaged middle line: %v", err)
	}
}

// TestRemoveWaitsForTheWriter: a file whose writer still holds it (its run
// goes on) is not removed; once the writer is done, it is.
func TestRemoveWaitsForTheWriter(t *testing.T) {
	if !filelock.Supported {
		testenv.Skip(t, "no operating system file lock here")
	}
	p := PlaceIn(t.TempDir(), "x")
	w := p.NewWriter(Header{Run: "run-1", Lineage: "L", Created: t0})
	must(t, w.Append(enrichEvent(1, "ann")))
	if removed, err := Remove(w.Path()); removed || err != nil {
		t.Fatalf("Remove while written = %v, %v; want kept", removed, err)
	}
	must(t, w.Close())
	if removed, err := Remove(w.Path()); !removed || err != nil {
		t.Fatalf("Remove after the writer = %v, %v", removed, err)
	}
	if _, err := os.Stat(w.Path()); !os.IsNotExist(err) {
		t.Errorf("still there: %v", err)
	}
	if removed, err := Remove(w.Path()); !removed || err != nil {
		t.Errorf("Remove of a file gone = %v, %v", removed, err)
	}
}

// TestNoCacheDirectory: without a cache directory nothing is read and a
// write fails, saying why.
func TestNoCacheDirectory(t *testing.T) {
	var p Place
	if files, err := p.Read(); files != nil || err != nil {
		t.Errorf("Read = %v, %v", files, err)
	}
	err := p.NewWriter(Header{Run: "run-1"}).Append(enrichEvent(1, "ann"))
	if err == nil || !strings.Contains(err.Error(), "no user cache directory") {
		t.Errorf("Append = %v", err)
	}
}

// TestUnwritableFolder: a folder that cannot be made fails the write.
func TestUnwritableFolder(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "leadsync")
	must(t, os.WriteFile(blocker, []byte("a file where the folder goes"), 0o600))
	err := PlaceIn(dir, "x").NewWriter(Header{Run: "run-1"}).Append(enrichEvent(1, "ann"))
	if err == nil {
		t.Error("written under a file")
	}
}
