package backendtest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// testReuseOnce: a backend that reads its other workspaces once for a
// plan (backend.ReuseOnce) lists the keys EnrichedKeysElsewhere lists,
// and its lookup, when it keeps one, gives what EnrichmentsElsewhere gives: the newest
// enrichment of each key, named by the workspace that paid for it, and
// nothing for a key no other workspace holds. Checked with two other
// workspaces, one holding a newer enrichment and a copy, and while an
// apply runs in one (its calls not folded in: read whole).
func testReuseOnce(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	must(t, set.CreateWorkspace("dach"), "create dach")
	must(t, set.CreateWorkspace("uk"), "create uk")
	uk := open("uk", Bob)
	defer backend.Close(uk)
	ro, ok := backend.ReuseOnceOf(uk)
	if !ok {
		t.Skip("the backend reads its other workspaces for each question")
	}
	same := func(when string) {
		t.Helper()
		keys, lookup, err := ro.ElsewhereOnce()
		must(t, err, "read once %s", when)
		rk, _ := backend.ReuseKeysOf(uk)
		listed, err := rk.EnrichedKeysElsewhere()
		must(t, err, "keys %s", when)
		slices.Sort(keys)
		slices.Sort(listed)
		if !slices.Equal(keys, slices.Compact(listed)) {
			t.Fatalf("%s: keys %v, want %v", when, keys, listed)
		}
		if lookup == nil {
			return // the caller asks EnrichmentsElsewhere itself
		}
		ask := append(slices.Clone(keys), "n:nobody", "p:nobody")
		want, err := crossWorkspace(t, uk).EnrichmentsElsewhere(ask)
		must(t, err, "lookup %s", when)
		got, err := lookup(ask)
		must(t, err, "kept lookup %s", when)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: the lookup differs (-EnrichmentsElsewhere +ElsewhereOnce):\n%s", when, d)
		}
	}
	same("with nothing enriched")
	Apply(t, open("dach", Alice), Events())
	same("with dach's enrichments")
	Apply(t, open("", Alice), []state.Event{
		{At: At(30), Kind: state.EventSearch, Address: "search.x", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"keywords":"x"}`),
			Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")}}},
		{At: At(31), Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: statetest.FullEnrichment("new", "n1", "anna", 7)}},
		{At: At(32), Kind: state.EventReuse, Address: "enrich.e", Reuse: &state.ReuseEvent{PersonID: "n2", Workspace: "elsewhere",
			Enrichment: state.Enrichment{EnrichedAt: At(29), By: "enrich.e", Result: person.EnrichedProfile{NetworkID: "n2", Email: "ben@copy.example"}}}},
	})
	same("with the default workspace's newer one and a copy")
	// An apply running in dach: its calls are not folded in yet.
	dach := open("dach", Alice)
	defer backend.Close(dach)
	l, rec, _ := startApply(t, dach, []state.Event{
		{At: At(40), Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n1", PageName: "anna", Email: "anna@later.example"}}},
	})
	defer l.Unlock()
	defer rec.Close()
	same("while dach's apply runs")
	_, lookup, err := ro.ElsewhereOnce()
	must(t, err, "read once while dach's apply runs")
	if lookup == nil {
		lookup = crossWorkspace(t, uk).EnrichmentsElsewhere
	}
	found, err := lookup([]string{"n:n1"})
	must(t, err, "lookup while dach's apply runs")
	if r := found["n:n1"]; r.Workspace != "dach" || r.Enrichment.Result.Email != "anna@later.example" {
		t.Errorf("n1 while dach's apply runs: %+v, want its newer enrichment in dach", r)
	}
}
