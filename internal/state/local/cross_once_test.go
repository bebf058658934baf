package local

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestElsewhereOnceKeepsNoLargeRead: past maxOnceKeys keys, ElsewhereOnce
// lists them and keeps no answers (a nil lookup: the caller asks
// EnrichmentsElsewhere, which reads the other workspaces again); at
// maxOnceKeys it keeps them.
func TestElsewhereOnceKeepsNoLargeRead(t *testing.T) {
	set := NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", "state.json"), nil)
	if err := set.CreateWorkspace("dach"); err != nil {
		t.Fatal(err)
	}
	dach, err := set.Open("dach")
	if err != nil {
		t.Fatal(err)
	}
	s := state.New()
	s.People["n1"] = &state.Person{ID: "n1", Lead: person.Lead{NetworkID: "n1", PageName: "anna"},
		Enrichment: &state.Enrichment{EnrichedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), By: "enrich.e"}}
	if err := dach.Save(s); err != nil {
		t.Fatal(err)
	}
	def, err := set.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { maxOnceKeys = n }(maxOnceKeys)
	for _, tc := range []struct {
		most int
		kept bool
	}{{2, true}, {1, false}} {
		maxOnceKeys = tc.most
		keys, lookup, err := def.ElsewhereOnce()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != 2 || (lookup != nil) != tc.kept {
			t.Fatalf("at most %d: keys %v, a lookup kept: %v; want 2 keys, %v", tc.most, keys, lookup != nil, tc.kept)
		}
		if lookup != nil && lookup([]string{"p:anna"})["p:anna"].Workspace != "dach" {
			t.Fatalf("at most %d: p:anna not found in dach", tc.most)
		}
	}
}

// TestElsewhereOnceListsADatabaseNarrowly: of another workspace in a
// database, ElsewhereOnce lists the keys of the people holding an
// enrichment (1 of 3) from their columns (enrichedKeys) and keeps no
// answers (a nil lookup: EnrichmentsElsewhere finds the people asked
// about by their indexes); of a state file, loaded whole, it keeps them.
func TestElsewhereOnceListsADatabaseNarrowly(t *testing.T) {
	for _, tc := range []struct {
		file string
		kept bool
	}{{"state.db", false}, {"state.json", true}} {
		set := NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", tc.file), nil)
		if err := set.CreateWorkspace("dach"); err != nil {
			t.Fatal(err)
		}
		dach, err := set.Open("dach")
		if err != nil {
			t.Fatal(err)
		}
		s := state.New()
		for _, id := range []string{"n1", "n2", "n3"} {
			s.People[id] = &state.Person{ID: id, Lead: person.Lead{NetworkID: id, PageName: "page-" + id}}
		}
		s.People["n2"].Enrichment = &state.Enrichment{EnrichedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), By: "enrich.e"}
		if err := dach.Save(s); err != nil {
			t.Fatal(err)
		}
		def, err := set.Open("default")
		if err != nil {
			t.Fatal(err)
		}
		keys, lookup, err := def.ElsewhereOnce()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		if (lookup != nil) != tc.kept || !slices.Equal(keys, []string{"n:n2", "p:page-n2"}) {
			t.Errorf("%s: answers kept %v, keys %v; want %v, n2's", tc.file, lookup != nil, keys, tc.kept)
		}
	}
}
