package local

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// TestRecoverJournalKeepsEveryWholeLine: a journal damaged in the middle
// (line 4 of a header and 7 events: the first enrichment) keeps the two
// events before the damage and the four whole lines after it (each line
// has its own checksum); a line of garbage after the damage is left out;
// the journal is kept aside unchanged. The split run whose second
// sub-search survived stays under way, to run the third.
func TestRecoverJournalKeepsEveryWholeLine(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	run(t, store, s, demoEvents()...)
	b, _ := os.ReadFile(store.JournalPath())
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[3] = bytes.Replace(lines[3], []byte("enrich"), []byte("enrIch"), 1)
	// Garbage after the damage, and a whole line repeated out of order.
	lines = append(lines[:5], append([][]byte{[]byte("0000beef not a line\n"), lines[1]}, lines[5:]...)...)
	damaged := bytes.Join(lines, nil)
	must(t, os.WriteFile(store.JournalPath(), damaged, 0o600))

	store = NewStore(store.Path()) // a new process: the crashed one's journal is not open here
	_, err := store.Load()
	var je *JournalError
	if !errors.As(err, &je) || je.Line != 4 || !strings.Contains(err.Error(), "leadsync state recover") || strings.Contains(err.Error(), "move it away") {
		t.Fatalf("Load: %v", err)
	}
	res, err := store.RecoverJournal(day(3))
	must(t, err)
	if res.Kept != 6 || res.KeptAfter != 4 || res.DamagedLine != 4 || res.DroppedLines != 3 {
		t.Errorf("result %+v, want 6 kept (4 after the damage), damage at line 4, 3 lines dropped", res)
	}
	got, err := store.Load()
	must(t, err)
	if got.Searches["search.a"] == nil || got.Profiles["profile.p"] == nil || got.Searches["search.b"] == nil {
		t.Errorf("the whole lines are not in the state: %v", got.Addresses(true))
	}
	if p := got.People["n2"]; p == nil || p.Enrichment == nil || p.Enrichment.Result.Email != "b@x.io" {
		t.Errorf("the enrichment after the damage was not kept: %+v", p)
	}
	if p := got.People["n1"]; p == nil || p.Enrichment != nil {
		t.Errorf("the damaged line's enrichment was used: %+v", p)
	}
	if got.Usage.CreditsSpent != 1 {
		t.Errorf("credits spent %d, want 1 (the damaged line's credit is unknown)", got.Usage.CreditsSpent)
	}
	if tr := got.Splits["search.s"]; tr == nil || len(tr.Nodes) != 2 || got.Searches["search.s"] != nil {
		t.Errorf("the split run should stay under way with 2 sub-searches: %+v", tr)
	}
	if kept, err := os.ReadFile(res.MovedTo); err != nil || !bytes.Equal(kept, damaged) {
		t.Errorf("the damaged journal was not kept aside unchanged at %s: %v", res.MovedTo, err)
	}
	if _, err := os.Stat(store.JournalPath()); !os.IsNotExist(err) {
		t.Errorf("the journal is still in place: %v", err)
	}
}

// TestDamagedStateNamesABackupWithThePaidData: the backup after the first
// apply is the empty state; the message says restoring it would pay for
// everything again. After the second apply it holds the first one's
// results, and the message says what it holds and how to restore it.
func TestDamagedStateNamesABackupWithThePaidData(t *testing.T) {
	store, _ := newStore(t)
	s, err := store.Load()
	must(t, err)
	j := run(t, store, s, demoEvents()...)
	must(t, store.Commit(s))
	_ = j
	damage := func() {
		b, _ := os.ReadFile(store.Path())
		must(t, os.WriteFile(store.Path(), bytes.Replace(b, []byte(`"people"`), []byte(`"people`), 1), 0o600))
	}
	damage()
	_, err = store.Load()
	if err == nil || !strings.Contains(err.Error(), "holds no results") || !strings.Contains(err.Error(), "fix the file by hand") {
		t.Fatalf("first damage: %v", err)
	}

	// Restore by hand, run again: now the backup holds the paid results.
	store2, _ := newStore(t)
	s2, err := store2.Load()
	must(t, err)
	run(t, store2, s2, demoEvents()[:3]...)
	must(t, store2.Commit(s2))
	s3, err := store2.Load()
	must(t, err)
	run(t, store2, s3, demoEvents()[3:]...)
	must(t, store2.Commit(s3))
	b, _ := os.ReadFile(store2.Path())
	must(t, os.WriteFile(store2.Path(), b[:len(b)/2], 0o600))
	_, err = store2.Load()
	for _, want := range []string{"holds 1 searches, 1 profile reads", "1 enriched", "cp " + store2.BackupPath()} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("second damage: %v\nwant %q", err, want)
		}
	}
}
