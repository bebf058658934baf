package local

import (
	"errors"
	"iter"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
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
	s := state.New()
	s.People["n1"] = &state.Person{ID: "n1", Lead: person.Lead{NetworkID: "n1", PageName: "anna"},
		Enrichment: &state.Enrichment{EnrichedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), By: "enrich.e"}}
	def := withElsewhere(t, "state.json", s)
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
		if lookup == nil {
			continue
		}
		if found, err := lookup([]string{"p:anna"}); err != nil || found["p:anna"].Workspace != "dach" {
			t.Fatalf("at most %d: p:anna not found in dach (%v)", tc.most, err)
		}
	}
}

// TestElsewhereOnceListsADatabaseNarrowly: of another workspace in a
// database, ElsewhereOnce and EnrichedKeysElsewhere list the keys of the
// people holding an enrichment (2 of 4) from their columns
// (enrichedKeys), reading no enrichment (readKeyed), and ElsewhereOnce
// keeps no answers (a nil lookup: EnrichmentsElsewhere finds the people
// asked about by their indexes); of a state file, loaded whole, it keeps
// them. One of them is kept under its page ID: its network ID is listed
// from its column, not from its ID.
func TestElsewhereOnceListsADatabaseNarrowly(t *testing.T) {
	keyedReads := countKeyedReads(t)
	want := []string{"n:n2", "n:n9", "p:bob", "p:page-n2"}
	for _, tc := range []struct {
		file string
		kept bool
	}{{"state.db", false}, {"state.json", true}} {
		def := withEnrichedElsewhere(t, tc.file)
		*keyedReads = 0
		keys, lookup, err := def.ElsewhereOnce()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		if (lookup != nil) != tc.kept || !slices.Equal(keys, want) {
			t.Errorf("%s: answers kept %v, keys %v; want %v, %v", tc.file, lookup != nil, keys, tc.kept, want)
		}
		if keys, err = def.EnrichedKeysElsewhere(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: EnrichedKeysElsewhere listed %v, want %v", tc.file, keys, want)
		}
		if *keyedReads != 0 {
			t.Errorf("%s: the keys listed with %d reads of enrichments, want none", tc.file, *keyedReads)
		}
	}
}

// TestEnrichedKeysHoldsAPageOfTheirSize: listing the keys of a few
// enriched people allocates for those few, not for a full page of
// enrichedAsk people (23 MB).
func TestEnrichedKeysHoldsAPageOfTheirSize(t *testing.T) {
	b := dachBase(t, enrichedDach())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	keys, err := enrichedKeys(b)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	const most = 1 << 20
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d keys listed allocating %d bytes", len(keys), n)
	if n > most || len(keys) != 4 {
		t.Errorf("%d keys listed allocating %d bytes; want 4, at most %d", len(keys), n, most)
	}
}

// withEnrichedElsewhere is withElsewhere of enrichedDach.
func withEnrichedElsewhere(t *testing.T, file string) *Workspace {
	t.Helper()
	return withElsewhere(t, file, enrichedDach())
}

// enrichedDach holds four people, n2 and page:bob (network ID n9)
// enriched.
func enrichedDach() *state.State {
	s := state.New()
	for _, id := range []string{"n1", "n2", "n3"} {
		s.People[id] = &state.Person{ID: id, Lead: person.Lead{NetworkID: id, PageName: "page-" + id}}
	}
	s.People["page:bob"] = &state.Person{ID: "page:bob", Lead: person.Lead{NetworkID: "n9", PageName: "Bob"}}
	for _, id := range []string{"n2", "page:bob"} {
		s.People[id].Enrichment = &state.Enrichment{EnrichedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), By: "enrich.e"}
	}
	return s
}

// withElsewhere makes the workspaces of a state file named file
// (state.db: a database), whose other workspace "dach" holds s, and
// returns default.
func withElsewhere(t *testing.T, file string, s *state.State) *Workspace {
	t.Helper()
	set := NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", file), nil)
	return withWorkspaces(t, set, map[string]*state.State{"dach": s})
}

// withWorkspaces makes the workspaces of set named in states, each
// holding its state, and returns default.
func withWorkspaces(t *testing.T, set *Workspaces, states map[string]*state.State) *Workspace {
	t.Helper()
	for name, s := range states {
		if err := set.CreateWorkspace(name); err != nil {
			t.Fatal(err)
		}
		ws, err := set.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := ws.Save(s); err != nil {
			t.Fatal(err)
		}
	}
	def, err := set.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// countKeyedReads counts the calls of readKeyed until the test ends.
func countKeyedReads(t *testing.T) *int {
	n := new(int)
	read := readKeyed
	t.Cleanup(func() { readKeyed = read })
	readKeyed = func(b *state.Base, ids []string, do func(iter.Seq[*state.Person])) error {
		*n++
		return read(b, ids, do)
	}
	return n
}

// TestElsewhereOnceReadsMixedWorkspacesOnce: beside dach, a database
// listed narrowly, workspace uk is a state file, read whole. One read of
// both and the plan's questions load uk once: its answers are kept, and
// the lookup asks dach alone (one read of its people's keys and
// enrichments, found by their indexes).
// The lookup answers as EnrichmentsElsewhere does, the newest of each key.
func TestElsewhereOnceReadsMixedWorkspacesOnce(t *testing.T) {
	def, ukLoads := mixedWorkspaces(t)
	keyedReads := countKeyedReads(t)
	keys, lookup, err := def.ElsewhereOnce()
	if err != nil {
		t.Fatal(err)
	}
	if lookup == nil { // as run.reuseOnce does
		lookup = def.EnrichmentsElsewhere
	}
	slices.Sort(keys)
	if want := []string{"n:n1", "n:n2", "n:n9", "p:bob", "p:page-n1", "p:page-n2"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	ask := append(keys, "n:nobody")
	got, err := lookup(ask)
	if err != nil {
		t.Fatal(err)
	}
	if *ukLoads != 1 || *keyedReads != 1 {
		t.Errorf("uk loaded %d times, dach's people read %d times; want once each", *ukLoads, *keyedReads)
	}
	want, err := def.EnrichmentsElsewhere(ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || got["n:n2"].Workspace != "uk" || got["p:bob"].Workspace != "dach" || !reflect.DeepEqual(got, want) {
		t.Errorf("the lookup found %+v, want %+v (n2 newer in uk)", got, want)
	}
}

// TestElsewhereOnceLookupFailsWithItsRead: when the lookup cannot read a
// database listed narrowly, it returns that error rather than fewer
// answers.
func TestElsewhereOnceLookupFailsWithItsRead(t *testing.T) {
	def, _ := mixedWorkspaces(t)
	_, lookup, err := def.ElsewhereOnce()
	if err != nil || lookup == nil {
		t.Fatalf("read once: %v, a lookup kept: %v; want one", err, lookup != nil)
	}
	read := readKeyed
	defer func() { readKeyed = read }()
	failed := errors.New("disk I/O error")
	readKeyed = func(*state.Base, []string, func(iter.Seq[*state.Person])) error { return failed }
	if found, err := lookup([]string{"p:bob"}); !errors.Is(err, failed) {
		t.Errorf("lookup with dach unreadable: %v, %v; want its error", found, err)
	}
}

// mixedWorkspaces are the workspaces of withEnrichedElsewhere("state.db")
// whose third, uk, is a JSON state file holding n1 and a newer
// enrichment of n2, and the count of uk's loads (its opens: each opened
// store is read once).
func mixedWorkspaces(t *testing.T) (*Workspace, *int) {
	t.Helper()
	loads := new(int)
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	uk := WorkspacePath(path, "uk")
	set := NewWorkspaces(path, func(p string) *Store {
		if p == uk {
			*loads++
			return NewStore(strings.TrimSuffix(p, ".db") + ".json")
		}
		return NewStore(p)
	})
	def := withWorkspaces(t, set, map[string]*state.State{"dach": enrichedDach(), "uk": enrichedUK()})
	*loads = 0
	return def, loads
}

// enrichedUK holds n1 and n2 enriched, n2 later than dach did.
func enrichedUK() *state.State {
	s := state.New()
	for i, id := range []string{"n1", "n2"} {
		s.People[id] = &state.Person{ID: id, Lead: person.Lead{NetworkID: id, PageName: "page-" + id},
			Enrichment: &state.Enrichment{EnrichedAt: time.Date(2026, 11, 2+i, 0, 0, 0, 0, time.UTC), By: "enrich.e"}}
	}
	return s
}
