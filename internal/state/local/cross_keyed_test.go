package local

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// TestEnrichmentsElsewhereReadTheirColumnsAlike: of another workspace in
// a database, EnrichmentsElsewhere answers from its people's keys and
// enrichments alone (readKeyed) as from that state read whole (a state
// file): found by their indexes, and past maxKeyedAsk keys (every person
// enriched). Every field of an enrichment is given; a person re-keyed
// since their enrichment is found by their lead's network ID, not the
// enrichment's; one without a network ID by their ID; a copy from a third
// workspace is named by the workspace that paid for it.
func TestEnrichmentsElsewhereReadTheirColumnsAlike(t *testing.T) {
	ask := []string{"n:n1", "p:anna", "n:n22", "p:ben", "n:n2", "n:n3", "n:n4", "n:n5", "n:nobody"}
	want, err := withElsewhere(t, "state.json", keyedDach()).EnrichmentsElsewhere(ask)
	if err != nil {
		t.Fatal(err)
	}
	for k, ws := range map[string]string{"n:n1": "dach", "p:anna": "dach", "n:n22": "dach", "p:ben": "dach", "n:n3": "dach", "n:n4": "uk"} {
		if want[k].Workspace != ws {
			t.Errorf("read whole, %s: %+v, want an answer from %s", k, want[k], ws)
		}
	}
	if len(want) != 6 {
		t.Fatalf("read whole: %d answers, want 6 (n2 re-keyed, n5 not enriched): %v", len(want), want)
	}
	def := withElsewhere(t, "state.db", keyedDach())
	keyedReads := countKeyedReads(t)
	defer func(n int) { maxKeyedAsk = n }(maxKeyedAsk)
	for _, most := range []int{len(ask), len(ask) - 1} {
		maxKeyedAsk, *keyedReads = most, 0
		got, err := def.EnrichmentsElsewhere(ask)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("at most %d keys asked by index: %+v\nread whole: %+v", most, got, want)
		}
		if *keyedReads != 1 {
			t.Errorf("at most %d keys asked by index: %d reads of the keys and enrichments, want 1", most, *keyedReads)
		}
	}
}

// keyedDach holds n1 (page name Anna) enriched with every field; page:ben
// enriched as n2, whose network ID is n22 since; n3 without a network ID;
// n4 given a copy of uk's enrichment; n5 not enriched.
func keyedDach() *state.State {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := state.New()
	add := func(id, nid, page string, e *state.Enrichment) {
		s.People[id] = &state.Person{ID: id, Lead: person.Lead{NetworkID: nid, PageName: page, FullName: "Person " + id}, Enrichment: e}
	}
	add("n1", "n1", "Anna", &state.Enrichment{EnrichedAt: at, By: "enrich.e", Result: statetest.FullEnrichment("dach", "n1", "anna", 7)})
	add(state.PagePrefix+"ben", "n22", "Ben", &state.Enrichment{EnrichedAt: at.Add(time.Hour), By: "enrich.e",
		Result: person.EnrichedProfile{NetworkID: "n2", PageName: "ben", Email: "ben@acme.example"}})
	add("n3", "", "", &state.Enrichment{EnrichedAt: at, By: "enrich.e", Result: person.EnrichedProfile{Email: "n3@acme.example"}})
	add("n4", "n4", "dora", &state.Enrichment{EnrichedAt: at, By: state.ReusedPrefix + "uk", CopiedBy: "enrich.e",
		Result: person.EnrichedProfile{NetworkID: "n4", Email: "dora@uk.example"}})
	add("n5", "n5", "eve", nil)
	return s
}

// TestEnrichmentsElsewhereReadNoPersonWhole: asked about people of
// another workspace in a database, each holding a raw search item of 8
// KB, EnrichmentsElsewhere reads their keys and enrichments alone: it
// allocates for those, not for the people read whole (1.6 MB of raw
// items), by their indexes and past maxKeyedAsk keys.
func TestEnrichmentsElsewhereReadNoPersonWhole(t *testing.T) {
	const people = 200
	raw := json.RawMessage(`{"about":"` + strings.Repeat("x", 8<<10) + `"}`)
	s := state.New()
	ask := make([]string, 0, people)
	for i := range people {
		id := fmt.Sprintf("n%d", i)
		s.People[id] = &state.Person{ID: id, Lead: person.Lead{NetworkID: id, PageName: "page-" + id}, Raw: raw,
			Enrichment: &state.Enrichment{EnrichedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), By: "enrich.e"}}
		ask = append(ask, "n:"+id)
	}
	def := withElsewhere(t, "state.db", s)
	defer func(n int) { maxKeyedAsk = n }(maxKeyedAsk)
	for _, most := range []int{people, 0} {
		maxKeyedAsk = most
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		found, err := def.EnrichmentsElsewhere(ask)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		const most = 1 << 20
		n := after.TotalAlloc - before.TotalAlloc
		t.Logf("at most %d keys by index: %d answers allocating %d bytes", maxKeyedAsk, len(found), n)
		if len(found) != people || n > most {
			t.Errorf("at most %d keys by index: %d answers allocating %d bytes; want %d, at most %d", maxKeyedAsk, len(found), n, people, most)
		}
	}
}
