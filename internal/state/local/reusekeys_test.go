package local

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// TestEnrichedLeadsAfterPagesInIDOrder: a database gives the ID,
// network ID and page name of its enriched people (one query a page,
// state.EnrichedLeadPager) as a state read whole gives them (their IDs
// listed, then the fields read by ID), two at a time from after each
// page's last ID, in the IDs' byte order: escapes, letter case and
// letters past ASCII kept; the people holding no enrichment left out.
func TestEnrichedLeadsAfterPagesInIDOrder(t *testing.T) {
	s := state.New()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, l := range []person.Lead{
		{NetworkID: "n1", PageName: "Anna"}, {NetworkID: "", PageName: `qu"ote\back`},
		{NetworkID: "n3", PageName: "Ünal"}, {NetworkID: "n4", PageName: ""}, {NetworkID: "n5", PageName: "eve"},
		{NetworkID: "n6", PageName: "none"}, {NetworkID: "n7", PageName: "Zed"},
	} {
		id := []string{"b1", "B2", "é3", "a4", "page:eve", "n6", "Z7"}[i]
		s.People[id] = &state.Person{ID: id, Lead: l}
		if id != "n6" {
			s.People[id].Enrichment = &state.Enrichment{EnrichedAt: at, By: "enrich.e"}
		}
	}
	b := dachBase(t, s)
	want := backendtest.EnrichedLeadsInPages(t, state.NewBase(s), 2)
	if len(want) != 6 || !slices.IsSortedFunc(want, func(x, y person.Lead) int { return strings.Compare(x.FullName, y.FullName) }) {
		t.Fatalf("read whole: %v, want six in ID order", want)
	}
	if d := cmp.Diff(want, backendtest.EnrichedLeadsInPages(t, b, 2)); d != "" {
		t.Errorf("the database's pages differ (-whole +database):\n%s", d)
	}
}

// TestKeyedFindsEachPersonOnce: a database finds its people by their
// keys (state.Base.Keyed) in ID order, each once, as a state read whole
// does: by network ID, by an ID that is one (a person without a network
// ID, its page name not asked), and by page name; a person whose ID is
// their network ID, named by both keys, is given once.
func TestKeyedFindsEachPersonOnce(t *testing.T) {
	s := state.New()
	for id, l := range map[string]person.Lead{
		"n1": {NetworkID: "n1", PageName: "anna"}, "x2": {PageName: "ben"}, "n3": {NetworkID: "n3"},
		"n4": {NetworkID: "n9", PageName: "Hal"}, "n5": {NetworkID: "n5", PageName: "nobody"},
	} {
		s.People[id] = &state.Person{ID: id, Lead: l}
	}
	keys := []string{"n:n1", "p:anna", "n:x2", "n:n3", "p:hal", "n:n9", "n:none", "p:none"}
	want := []string{"n1", "n3", "n4", "x2"}
	for name, b := range map[string]*state.Base{"read whole": state.NewBase(s), "database": dachBase(t, s)} {
		ids, ok, err := b.Keyed(slices.Clone(keys))
		if err != nil || !ok || !slices.Equal(ids, want) {
			t.Errorf("%s: Keyed %v (%v, %v), want %v", name, ids, ok, err, want)
		}
	}
}

// dachBase is the Base of the database of the other workspace "dach"
// holding s (withElsewhere), read in part; closed when the test ends.
func dachBase(t *testing.T, s *state.State) *state.Base {
	t.Helper()
	def := withElsewhere(t, "state.db", s)
	dach, err := def.set.Open("dach")
	if err != nil {
		t.Fatal(err)
	}
	b, err := dach.OpenBase()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if _, ok := b.Whole(); ok {
		t.Fatal("the database was read whole")
	}
	return b
}
