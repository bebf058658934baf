package backendtest

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// testReuseKeys: a workspace lists the lookup keys of the people another
// workspace holds an enrichment of (backend.ReuseKeys), and its Base
// finds its own people by them (state.Base.Keyed): by network ID, by an
// ID that is one, and by page name in any letter case.
func testReuseKeys(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	must(t, set.CreateWorkspace("dach"), "create dach")
	Apply(t, open("", Alice), Events())
	def := open("", Bob)
	defer backend.Close(def)
	rk, ok := backend.ReuseKeysOf(def)
	if !ok {
		t.Skip("the backend does not list the other workspaces' keys")
	}
	keys, err := rk.EnrichedKeysElsewhere()
	must(t, err, "keys before dach holds anything")
	if len(keys) != 0 {
		t.Fatalf("keys %v of an empty workspace", keys)
	}
	Apply(t, open("dach", Alice), Events())
	keys, err = rk.EnrichedKeysElsewhere()
	must(t, err, "keys")
	slices.Sort(keys)
	want := []string{"n:n1", "n:n2", "n:n7", "p:anna", "p:ben", "p:hal"}
	for _, w := range want {
		if _, found := slices.BinarySearch(keys, w); !found {
			t.Errorf("key %s missing from %v", w, keys)
		}
	}
	base, err := backend.OpenBase(def)
	must(t, err, "open base")
	defer base.Close()
	ids, ok, err := base.Keyed([]string{"n:n1", "p:hal", "p:BEN", "n:nobody", "p:nobody"})
	must(t, err, "keyed")
	if !ok {
		t.Skip("the store does not find people by their keys")
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if !slices.Equal(ids, []string{"n1", "n7"}) {
		t.Errorf("keyed people %v, want n1 and Hal (n7), not Ben (p:BEN is no key: keys are lower case)", ids)
	}
}

// testPartialReuseApply: an apply of an enrich block with places left,
// beside a workspace holding enrichments of some of its people, runs on
// a partial state (it loads nothing whole), copies the same enrichments
// and pays for the same people as the apply that loads the state whole,
// against the same sandbox.
func testPartialReuseApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	files := func(limit int) fstest.MapFS {
		return fstest.MapFS{"main.leads.hcl": {Data: []byte(sandboxOneCallAtATime + enrichBlocks(limit, true))}}
	}
	_, first, _ := partialApplyFiles(t, whole, wholeDir, files(2), nil, false, true, At(60))
	partialApplyFiles(t, part, partDir, files(2), nil, false, false, At(60))
	held := heldElsewhere(first)
	if len(held) < 2 {
		t.Fatalf("%d people to enrich elsewhere", len(held))
	}
	for _, open := range []func(string, Who) backend.Backend{whole, part} {
		must(t, workspaces(t, open, Alice).CreateWorkspace("dach"), "create dach")
		Apply(t, open("dach", Alice), held)
	}
	for i, step := range []struct {
		limit int
		saved bool
	}{{limit: 5}, {limit: 9, saved: true}} {
		at := At(60).Add(time.Duration(i+1) * day)
		target := []string{"enrich.contacts"}
		wantSum, want, _ := partialApplyFiles(t, whole, wholeDir, files(step.limit), target, step.saved, true, at)
		gotSum, got, loads := partialApplyFiles(t, part, partDir, files(step.limit), target, step.saved, false, at)
		sameApply(t, i, 0, loads, wantSum, gotSum, want, got)
		if i == 0 && wantSum.Reused["dach"] == 0 {
			t.Errorf("step %d: nothing copied from dach", i)
		}
	}
}

// heldElsewhere are the events of another workspace's apply that enrich
// the first people of st holding no enrichment, at their company (by a
// company domain st knows for it, if any; the second at another domain
// of a company st knows one for): the first by page name alone.
func heldElsewhere(st *state.State) []state.Event {
	domains := map[string]string{}
	for _, p := range st.People {
		if e := p.Enrichment; e != nil && e.Result.Company != "" {
			domains[e.Result.Company] = e.Result.CompanyDomain
		}
	}
	var leads []person.Lead
	var evs []state.Event
	for _, id := range slices.Sorted(maps.Keys(st.People)) {
		p := st.People[id]
		if p.Enrichment != nil || p.Lead.PageName == "" || len(leads) == 3 {
			continue
		}
		l := p.Lead
		if len(leads) == 0 {
			l.NetworkID = "" // known there by page name alone
		}
		leads = append(leads, l)
		domain := domains[l.Company]
		switch {
		case domain == "":
			domain = "held.example"
		case len(leads) == 2:
			// Made at another domain than the one this workspace's
			// enrichments know for the company: not copied.
			domain = "elsewhere.example"
		}
		evs = append(evs, state.Event{At: At(70), Kind: state.EventEnrich, Address: "enrich.dach", Enrich: &state.EnrichEvent{
			PersonID: state.PersonID(l), Credits: 1, Result: person.EnrichedProfile{NetworkID: l.NetworkID, PageName: strings.ToUpper(l.PageName),
				FullName: l.FullName, Company: l.Company, CompanyDomain: domain, Email: "held-" + l.PageName + "@example.com", ValidationStatus: person.StatusValid}}})
	}
	search := state.Event{At: At(69), Kind: state.EventSearch, Address: "search.d", Search: &state.SearchEvent{Generation: 1,
		Request: []byte(`{"keywords":"d"}`), Leads: leads}}
	return append([]state.Event{search}, evs...)
}
