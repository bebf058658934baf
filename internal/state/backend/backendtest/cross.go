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

// crossWorkspace returns the CrossWorkspace ability of b, skipping the
// test for a backend without it.
func crossWorkspace(t *testing.T, b backend.Backend) backend.CrossWorkspace {
	c, ok := backend.CrossWorkspaceOf(b)
	if !ok {
		t.Skip("the backend's workspaces do not share enrichments")
	}
	return c
}

// CrossWorkspace: a workspace lists the others that hold a state, opens
// them, and finds the enrichments they hold of people named by network ID
// or page name, the newest of them, with the workspace that paid for it.
func testCrossWorkspace(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	uk := open("uk", Bob)
	defer backend.Close(uk)
	must(t, set.CreateWorkspace("dach"), "create dach")
	must(t, set.CreateWorkspace("uk"), "create uk")
	cw := crossWorkspace(t, uk)
	if got := cw.Workspace(); got != "uk" {
		t.Fatalf("Workspace() = %q", got)
	}
	found, err := cw.EnrichmentsElsewhere([]string{"n:n1"})
	must(t, err, "lookup before anything is enriched")
	if len(found) != 0 {
		t.Fatalf("found %v in empty workspaces", found)
	}
	Apply(t, open("dach", Alice), Events())
	others, err := cw.OtherWorkspaces()
	must(t, err, "other workspaces")
	if !slices.Equal(others, []string{"dach"}) {
		t.Fatalf("other workspaces %v, want [dach] (the default one holds no state yet)", others)
	}
	found, err = cw.EnrichmentsElsewhere([]string{"n:n1", "p:ben", "p:ivy", "n:n6", "n:nobody", "p:cleo"})
	must(t, err, "lookup")
	want := map[string]string{"n:n1": "anna@acme.example", "p:ben": "ben@acme.example", "p:ivy": "ivy@ives.example"}
	for k, email := range want {
		r, ok := found[k]
		if !ok || r.Workspace != "dach" || r.Enrichment.Result.Email != email || r.Enrichment.EnrichedAt.IsZero() {
			t.Errorf("%s: %+v, want %s from dach", k, r, email)
		}
	}
	for _, k := range []string{"n:n6", "n:nobody", "p:cleo"} {
		if r, ok := found[k]; ok {
			t.Errorf("%s (erased, unknown, never enriched) found: %+v", k, r)
		}
	}
	// A newer enrichment in another workspace wins, every field of it (the
	// table's, as the workspace's own reads give them); one copied from a
	// third is named by the workspace that paid for it.
	full := statetest.FullEnrichment("new", "n1", "anna", 7)
	Apply(t, open("", Alice), []state.Event{
		{At: At(30), Kind: state.EventSearch, Address: "search.x", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"keywords":"x"}`),
			Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")}}},
		{At: At(31), Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: full}},
		{At: At(32), Kind: state.EventReuse, Address: "enrich.e", Reuse: &state.ReuseEvent{PersonID: "n2", Workspace: "elsewhere",
			Enrichment: state.Enrichment{EnrichedAt: At(29), By: "enrich.e", Result: person.EnrichedProfile{NetworkID: "n2", Email: "ben@copy.example"}}}},
	})
	found, err = cw.EnrichmentsElsewhere([]string{"n:n1", "n:n2"})
	must(t, err, "lookup after the default workspace's apply")
	if r := found["n:n1"]; r.Workspace != "default" || r.Enrichment.Result != full {
		t.Errorf("n1: %+v, want the default workspace's newer one, %+v", r, full)
	}
	if r := found["n:n2"]; r.Workspace != "elsewhere" || r.Enrichment.Result.Email != "ben@copy.example" {
		t.Errorf("n2: %+v, want the copy, named by the workspace that paid", r)
	}
	// A sibling is the other workspace, read and locked as itself.
	sib, err := cw.Sibling("dach")
	must(t, err, "sibling")
	defer backend.Close(sib)
	s, err := sib.Load()
	must(t, err, "load sibling")
	if s.People["n1"] == nil || backend.WorkspaceOf(sib) != "dach" {
		t.Fatalf("sibling holds %d people, workspace %q", len(s.People), backend.WorkspaceOf(sib))
	}
}

// EnrichmentsElsewhereWhole: each lookup key of each person another
// workspace holds an enrichment of is answered with that enrichment
// whole, as the workspace's own Load gives it: every field, the block
// that made it, the block that copied it (a copy named by the workspace
// that paid for it), and of a person re-keyed since (page:ben) by the
// keys the person has now. A backend answering from a few columns must
// give what reading the people whole gives.
func testEnrichmentsElsewhereWhole(t *testing.T, k Kind) {
	cw, dach := ukBesideDach(t, k)
	Apply(t, dach, append(Events(), state.Event{At: At(40), Kind: state.EventReuse, Address: "enrich.contacts",
		Reuse: &state.ReuseEvent{PersonID: "n5", Workspace: "elsewhere", Enrichment: state.Enrichment{EnrichedAt: At(39), By: "enrich.x",
			Result: person.EnrichedProfile{NetworkID: "n5", PageName: "eve", Email: "eve@copy.example"}}}}))
	s, err := dach.Load()
	must(t, err, "load dach")
	want := map[string]state.Reusable{}
	var ask []string
	for _, p := range s.People {
		if p.Enrichment == nil {
			continue
		}
		from := "dach"
		if rf := p.Enrichment.ReusedFrom(); rf != "" {
			from = rf
		}
		for _, key := range state.LookupKeys(p) {
			ask = append(ask, key)
			want[key] = state.Reusable{Workspace: from, Enrichment: *p.Enrichment}
		}
	}
	if want["n:n5"].Workspace != "elsewhere" || want["n:n2"].Workspace != "dach" {
		t.Fatalf("dach holds no copy of n5 or no enrichment of n2, re-keyed: %v", want)
	}
	found, err := cw.EnrichmentsElsewhere(append(ask, "n:nobody"))
	must(t, err, "lookup")
	if d := cmp.Diff(want, found); d != "" {
		t.Errorf("the answers differ from dach's enrichments (-dach's +EnrichmentsElsewhere):\n%s", d)
	}
}

// ukBesideDach makes workspaces dach and uk in a fresh set and opens
// both (uk as Bob, dach as Alice; closed when the test ends): uk's
// CrossWorkspace ability, and dach.
func ukBesideDach(t *testing.T, k Kind) (backend.CrossWorkspace, backend.Backend) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	must(t, set.CreateWorkspace("dach"), "create dach")
	must(t, set.CreateWorkspace("uk"), "create uk")
	uk := open("uk", Bob)
	t.Cleanup(func() { backend.Close(uk) })
	cw := crossWorkspace(t, uk)
	dach := open("dach", Alice)
	t.Cleanup(func() { backend.Close(dach) })
	return cw, dach
}
