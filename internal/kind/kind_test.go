package kind

import (
	"fmt"
	"strings"
	"testing"
)

// TestTableIsConsistent checks what every row must say for the stages
// that read it to work: a name of its own, words for what its flags
// promise, and flags that go together.
func TestTableIsConsistent(t *testing.T) {
	seen := map[Kind]bool{}
	for _, r := range All() {
		k := r.Kind
		switch {
		case k == None || strings.ContainsAny(string(k), ".[] "):
			t.Errorf("%q: a kind is one name of an address", k)
		case seen[k]:
			t.Errorf("%s: two rows", k)
		case r.Noun == "":
			t.Errorf("%s: no noun", k)
		case r.Moves && !r.Block, r.Instances && !r.Block, r.Planned && !r.Block:
			t.Errorf("%s: only a block moves, has instances or is planned", k)
		case r.Block && (r.NotAgain == "" || r.NotAgainMany == ""):
			t.Errorf("%s: no words for a --replace left out of the plan", k)
		case r.HoldsRecords != (r.Removed != ""):
			t.Errorf("%s: holds records %v, but its state rm words are %q", k, r.HoldsRecords, r.Removed)
		case strings.Contains(r.Removed, "%[2]s") != (r.Counted != ""):
			t.Errorf("%s: state rm words %q count %q", k, r.Removed, r.Counted)
		}
		seen[k] = true
		if got, ok := Lookup(string(k)); !ok || got != k || got.Row() != r {
			t.Errorf("Lookup(%q) = %q, %v", k, got, ok)
		}
	}
	for _, name := range []string{"", "module", "output", "moved", "Search"} {
		if k, ok := Lookup(name); ok || k.Known() || k.IsBlock() || k.HoldsRecords() || k.Moves() {
			t.Errorf("Lookup(%q) knows it", name)
		}
	}
}

// TestRemovedWords renders each kind's state rm words as cli does:
// the address, then the count of what it counted (unused by kinds that
// count nothing, which fmt then leaves out).
func TestRemovedWords(t *testing.T) {
	want := map[Kind]string{
		Search:  "Removed search.x (3 leads leave the exports that list it; people and enrichments are kept)",
		Profile: "Removed profile.x (the person and their enrichment are kept)",
		Import:  "Removed import.x (its 3 people leave the exports that list it; people and their e-mails are kept)",
		Track:   "Removed track.x: its reads of 3 people are forgotten, so the next plan finds its sources' people due again (unless a profile block or another track read them within its every) and no longer watches those its sources hold no more; their history is kept",
		Person:  "Removed person.x and their enrichment",
	}
	for _, r := range All() {
		if !r.HoldsRecords {
			continue
		}
		plural := map[string]string{"lead": "3 leads", "person": "3 people", "": "3"}[r.Counted]
		if got := fmt.Sprintf(r.Removed, string(r.Kind)+".x", plural); got != want[r.Kind] {
			t.Errorf("%s:\n got %s\nwant %s", r.Kind, got, want[r.Kind])
		}
	}
}

func TestSelections(t *testing.T) {
	if got := fmt.Sprint(Moving()); got != "[search profile import enrich track]" {
		t.Errorf("Moving() = %s", got)
	}
	if got := fmt.Sprint(Blocks()); got != "[search profile import enrich track export exclude]" {
		t.Errorf("Blocks() = %s", got)
	}
}
