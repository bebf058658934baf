package backendtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// leadListIDs are person IDs whose lists on disk hold every kind of
// escape (a quote, a backslash, a control character, HTML characters
// encoding/json writes as \u escapes, a line separator), non-ASCII, a
// comma and a bracket.
var leadListIDs = []string{`a"b`, `c\d`, "e\x01f", "<&>", "g\u2028h", "Köln 日本", `i,"j"]`, `k\"`, "plain.1", "plain.2"}

// testLeadLists: a plan of many searches reads their lead lists at once
// (Base.Reading, the store's LeadLister); each list comes back as the
// state read whole holds it, in its order, escapes and all, an empty list
// empty, and a search asked twice or an address of no search changes
// nothing.
func testLeadLists(t *testing.T, k Kind) {
	open := k.New(t)
	req := json.RawMessage(`{"keywords":"lists"}`)
	evs := Events()
	for i := range leadListIDs {
		var leads []person.Lead
		for _, id := range leadListIDs[i:] {
			leads = append(leads, lead(id, "", "L "+id))
		}
		evs = append(evs, state.Event{At: At(40), Kind: state.EventSearch, Address: fmt.Sprintf("search.lists[%d]", i),
			Search: &state.SearchEvent{Generation: api.Gen1, Request: req, Leads: leads}})
	}
	evs = append(evs, state.Event{At: At(41), Kind: state.EventSearch, Address: "search.none",
		Search: &state.SearchEvent{Generation: api.Gen1, Request: req}})
	Apply(t, open("", Alice), evs)
	whole, err := loadOnce(open("", Bob))
	must(t, err, "load")
	got, err := backend.OpenBase(open("", Alice))
	must(t, err, "open base")
	defer got.Close()
	addrs := slices.Sorted(maps.Keys(whole.Searches))
	if len(addrs) < len(leadListIDs)+2 {
		t.Fatalf("the state holds %d searches, want the fixture's and %d more", len(addrs), len(leadListIDs)+1)
	}
	asked := append(append([]string{"search.nothing"}, addrs...), addrs[0])
	read, err := got.Reading(asked, nil)
	must(t, err, "reading the lead lists")
	for _, addr := range addrs {
		want, leads := whole.Searches[addr].LeadIDs, read.Searches[addr].Leads()
		if d := cmp.Diff(want, leads.Strings(), cmpopts.EquateEmpty()); d != "" || leads.Len() != len(want) {
			t.Fatalf("the lead IDs of %s read at once differ from the state read whole (-whole +base):\n%s", addr, d)
		}
		// A plan holds a store's lists packed: one text and its ends, not
		// strings (a state file is read whole, its lists as they are).
		if got.Stored() && (!leads.Packed() || read.Searches[addr].LeadIDs != nil) {
			t.Fatalf("the lead list of %s was read as strings, not packed", addr)
		}
		one, err := got.LeadIDs(addr)
		must(t, err, "lead IDs of %s", addr)
		if d := cmp.Diff(want, one); d != "" {
			t.Fatalf("the lead IDs of %s read alone differ (-whole +base):\n%s", addr, d)
		}
	}
	if read.Searches["search.nothing"] != nil || len(read.Searches) != len(whole.Searches) {
		t.Fatalf("reading names %d searches, the state holds %d", len(read.Searches), len(whole.Searches))
	}
	if ids := read.Searches["search.lists[0]"].Leads().Strings(); !slices.Equal(ids, leadListIDs) {
		t.Fatalf("search.lists[0] holds %q, want %q", ids, leadListIDs)
	}
}
