package cli

import (
	"bytes"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStateRecover: a journal damaged in the middle stops every command
// with advice to run state recover (never "move it away"); recover keeps
// the calls before the damage and keeps the journal aside, unchanged.
func TestStateRecover(t *testing.T) {
	// The journal of the JSON state file (the database has none).
	dir, db := stateTestDir(t)
	path := filepath.Join(dir, ".leadsync", "state.json")
	store := local.NewStore(path)
	s, err := db.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(s); err != nil {
		t.Fatal(err)
	}
	j, err := store.OpenJournal(s)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i, page := range []string{"ann", "bob", "max"} {
		e := state.Event{At: at, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "page:" + page, Credits: 1,
			Result: person.EnrichedProfile{PageName: page, NetworkID: []string{"101.aa", "102.bb", "103.cc"}[i], Email: page + "@x.example", ValidationStatus: person.StatusValid}}}
		if err := j.Record(&e); err != nil {
			t.Fatal(err)
		}
	}
	// Killed: the journal stays. Then line 3 (the second call) is damaged.
	b, _ := os.ReadFile(store.JournalPath())
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte("bob"), []byte("bOb"), 1)
	if err := os.WriteFile(store.JournalPath(), bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runIn(t, dir, "state", "list", "--state", ".leadsync/state.json")
	if code != 1 || !strings.Contains(stderr, "leadsync state recover") || strings.Contains(stderr, "move it away") {
		t.Fatalf("state list on a damaged journal: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runIn(t, dir, "state", "recover", "--state", ".leadsync/state.json")
	if code != 0 {
		t.Fatalf("state recover: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Kept 2 recorded calls of the journal in the state (1 from after the damaged line", "Line 3 is damaged (checksum mismatch): 1 line was left out", "kept, unchanged, as .leadsync/state.json.journal.damaged-"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("recover output lacks %q:\n%s", want, stdout)
		}
	}
	got, err := local.NewStore(path).Load()
	if err != nil {
		t.Fatalf("state after recover: %v", err)
	}
	if p := got.People["101.aa"]; p == nil || p.Enrichment == nil || p.Enrichment.Result.Email != "ann@x.example" {
		t.Errorf("the call before the damage was not kept: %+v", p)
	}
	if p := got.People["103.cc"]; p == nil || p.Enrichment == nil || p.Enrichment.Result.Email != "max@x.example" {
		t.Errorf("the call after the damage, whose line is whole, was not kept: %+v", p)
	}
	if p := got.People["102.bb"]; p != nil && p.Enrichment != nil {
		t.Errorf("the damaged line's call was used: %+v", p)
	}
	if m, _ := filepath.Glob(store.JournalPath() + ".damaged-*"); len(m) != 1 {
		t.Errorf("damaged journal kept as %v", m)
	}
}
