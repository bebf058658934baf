package views

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// stateNow is the clock of the state views' tests.
var stateNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// viewState is a state with one of everything the state views draw: a
// search run twice, a capped search, a split search (incomplete) and one
// under way, a profile read, an enrichment of each status (one the
// service invented), a person no search lists any more, a person erased,
// a failure after a success and one with no success, raw data, usage,
// track reads (a new job, a profile gone, one private, no change).
func viewState(t *testing.T) *state.State {
	t.Helper()
	at := time.Date(2025, 12, 30, 10, 0, 0, 0, time.UTC)
	lead := func(n, name, title, company string) person.Lead {
		return person.Lead{FullName: name, Title: title, Company: company, NetworkID: n, PageName: strings.ToLower(strings.Fields(name)[0])}
	}
	ann, bob := lead("101.aa", "Ann Albers", "CTO", "ACME"), lead("102.bb", "Bob Brandt", "CTO", "Bits & Bytes")
	cid, dan := lead("103.cc", "Cid Czerny", "", "Cafe Ltd"), lead("104.dd", "Dan Dorn", "Founder", "")
	search := func(at time.Time, addr string, leads ...person.Lead) state.Event {
		return state.Event{At: at, Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{Generation: api.Gen1,
			Request: []byte(`{"keywords": "CTO"}`), Leads: leads}}
	}
	enrich := func(id, status string) state.Event {
		return state.Event{At: at, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1,
			Result: person.EnrichedProfile{NetworkID: id, Email: id + "@example.com", ValidationStatus: status, CreditBalance: 480}}}
	}
	track := func(at time.Time, addr, id string, prof *person.Profile) state.Event {
		return state.Event{At: at, Kind: state.EventTrack, Address: addr, Track: &state.TrackEvent{PersonID: id, Generation: api.Gen1,
			Request: []byte(`{"pageName":"x"}`), Profile: prof, Gone: prof == nil}}
	}
	s := state.New()
	s.Lineage = "00000000-0000-4000-8000-000000000002"
	for _, e := range []state.Event{
		search(at.Add(-48*time.Hour), `search.cto["Berlin"]`, ann, bob),
		search(at, `search.cto["Berlin"]`, ann, cid),
		search(at, "search.big", dan),
		search(at, "search.old", bob),
		{At: at.Add(time.Hour), Kind: state.EventForget, Address: "search.old"},
		{At: at, Kind: state.EventProfile, Address: "profile.founder", Profile: &state.ProfileEvent{Generation: api.Gen2, PageName: "Max_Mustermann",
			Request: []byte(`{"pageName":"Max_Mustermann"}`), Profile: person.Profile{FullName: "Max Mustermann", NetworkURL: "https://network.example/in/max",
				CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "Muster AG"}}}}},
		enrich("101.aa", person.StatusValid), enrich("102.bb", person.StatusCatchAll), enrich("103.cc", ""), enrich("104.dd", "risky"),
		{At: at, Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9114, InvoicingStartDate: "2025-12-01"}},
		{At: at.Add(2 * time.Hour), Kind: state.EventFailure, Address: "search.big", Failure: &state.Failure{Message: "service unavailable", Status: 503}},
		{At: at.Add(2 * time.Hour), Kind: state.EventFailure, Address: "profile.gone", Failure: &state.Failure{Message: "connection reset"}},
		{At: at, Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure,
			PersonIDs: []string{}, Keys: state.IdentifierKeys("Erased_Person")}},
		// track.champions reads Ann (a new job: her e-mail is a former
		// employer's), Bob (gone: his e-mail is not current either) and
		// Cid (no change); track.founders the founder.
		track(at.Add(3*time.Hour), "track.champions", "101.aa", &person.Profile{FullName: "Ann Albers", CurrentPosition: []person.Position{{JobTitle: "VP Engineering", Company: "Rheinbank"}}}),
		track(at.Add(3*time.Hour), "track.champions", "102.bb", nil),
		track(at.Add(2*time.Hour), "track.champions", "103.cc", &person.Profile{FullName: "Cid Czerny", CurrentPosition: []person.Position{{Company: "Cafe Ltd"}}}),
		track(at.Add(time.Hour), "track.founders", "page:Max_Mustermann", &person.Profile{Private: true}),
	} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	s.Serial, s.LeadsyncVersion = 7, "dev"
	s.Searches["search.big"].Capped = true
	s.People["104.dd"].Raw = json.RawMessage(`{"id": 104, "extra": ["a"]}`)
	split := &state.SplitTree{Hash: "5f0c", Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`), Dimensions: []state.SplitDimension{{Param: "industryFilter", Values: []string{"Retail", "Internet and IT"}}},
		Nodes: []*state.SplitNode{{Results: 300, Saturated: true, RanAt: at}, {Path: []string{"Retail"}, Results: 12, RanAt: at},
			{Path: []string{"Internet and IT"}, Results: 300, Saturated: true, RanAt: at}}}
	s.Searches[`search.cto["Berlin"]`].Split = split
	s.Splits = map[string]*state.SplitTree{"search.wide": {Nodes: split.Nodes[:2]}}
	return s
}

// TestStateListViews: state list in both forms, everything and a prefix
// nothing matches (JSON: an empty list, not null).
func TestStateListViews(t *testing.T) {
	s := viewState(t)
	for _, c := range []struct {
		name     string
		people   bool
		prefixes []string
	}{
		{"all", true, nil},
		{"no_people", false, nil},
		{"prefixes", true, []string{"search.cto", "person.10"}},
		{"none", true, []string{"nothing."}},
	} {
		for _, asJSON := range []bool{false, true} {
			var b bytes.Buffer
			if err := NewStateList(&b, asJSON).List(state.NewBase(s), c.people, c.prefixes); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "state", "list_"+c.name+ext(asJSON)), b.Bytes())
		}
	}
}

// TestStateShowViews: state show of each kind of address in both forms.
func TestStateShowViews(t *testing.T) {
	s := viewState(t)
	for name, addr := range map[string]string{
		"search_split": `search.cto["Berlin"]`, "search_capped_failed": "search.big", "profile": "profile.founder",
		"person_enriched": "person.101.aa", "person_raw": "person.104.dd", "person_profile": "person.page:Max_Mustermann",
		"person_unlisted": "person.102.bb", "failure_only": "profile.gone",
		"track": "track.champions", "track_private": "track.founders",
	} {
		if StateKind(s, addr) == "" {
			t.Fatalf("%s: no kind", addr)
		}
		for _, asJSON := range []bool{false, true} {
			var b bytes.Buffer
			if err := NewStateShow(&b, asJSON, func() time.Time { return stateNow }).Show(s, addr); err != nil {
				t.Fatal(err)
			}
			if asJSON && bytes.Contains(b.Bytes(), []byte("null")) {
				t.Errorf("%s: null in the JSON form:\n%s", addr, b.Bytes())
			}
			golden.Check(t, filepath.Join("testdata", "state", "show_"+name+ext(asJSON)), b.Bytes())
		}
	}
	if k := StateKind(s, "search.nope"); k != "" {
		t.Errorf("kind of an unknown address: %q", k)
	}
}

// TestShowStateViews: the summary of show in both forms: a state with a
// pending journal and a lock, no state at all, and a state an apply is
// writing (it holds the lock, with enrichments in flight).
func TestShowStateViews(t *testing.T) {
	lock := &backend.LockInfo{ID: "0f8fad5b", Operation: "apply", Who: "ann@laptop", Host: "laptop", PID: 4242,
		Created: stateNow.Add(-5 * time.Minute), Version: "dev"}
	for _, c := range []struct {
		name  string
		s     *state.State
		where StateWhere
	}{
		{"full", viewState(t), StateWhere{Path: ".leadsync/state.json", Exists: true, Journal: ".leadsync/state.json.journal", JournalPending: true, Lock: lock}},
		{"none", state.New(), StateWhere{Path: ".leadsync/state.json"}},
		// While the apply holding the lock runs: its enrichments in flight.
		{"running", viewState(t), StateWhere{Path: ".leadsync/state.json", Exists: true, Lock: lock, InFlight: &InFlight{Enrichments: 2, Credits: 2}}},
	} {
		for _, asJSON := range []bool{false, true} {
			var b bytes.Buffer
			sum, err := SummarizeState(state.NewBase(c.s), c.where)
			if err != nil {
				t.Fatal(err)
			}
			if err := NewShowState(&b, asJSON, func() time.Time { return stateNow }).Show(sum); err != nil {
				t.Fatal(err)
			}
			if asJSON && bytes.Contains(b.Bytes(), []byte("null")) {
				t.Errorf("%s: null in the JSON form:\n%s", c.name, b.Bytes())
			}
			golden.Check(t, filepath.Join("testdata", "state", "summary_"+c.name+ext(asJSON)), b.Bytes())
		}
	}
}

func TestWorkspaceListView(t *testing.T) {
	var b bytes.Buffer
	err := WorkspaceList(&b, []backend.WorkspaceInfo{
		{Name: "default", Exists: true, Serial: 3, People: 1200, Blocks: 4},
		{Name: "empty", Exists: true},
		{Name: "broken", Err: errString("unexpected end of JSON input")},
		{Name: "uk", Exists: true, Serial: 1, People: 1, Blocks: 1},
	}, "uk")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "state", "workspace_list.txt"), b.Bytes())
}

type errString string

func (e errString) Error() string { return string(e) }

func ext(asJSON bool) string {
	if asJSON {
		return ".json"
	}
	return ".txt"
}

// TestStateListJSONString: state list writes an address as encoding/json
// writes it (without HTML escapes), quotes, escapes and all.
func TestStateListJSONString(t *testing.T) {
	for _, addr := range []string{`search.cto["Berlin"]`, "person.page:zoë", "person.a\u2028b", "person.<&>", "person.\x01\t", "person.\xff"} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(addr); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		writeJSONString(w, addr)
		w.Flush()
		if got.String()+"\n" != want.String() {
			t.Errorf("writeJSONString(%q) = %s, want %s", addr, got.String(), want.String())
		}
	}
}

// A person's address is matched in its two parts as it would be whole:
// a prefix shorter than person., as long, and longer.
func TestMatchesPrefixInTwoParts(t *testing.T) {
	for _, id := range []string{"10.aa", "2", ""} {
		for _, p := range []string{"p", "person", "person.", "person.1", "person.10.a", "person.2x", "search.", "x"} {
			want := strings.HasPrefix(state.PersonAddressPrefix+id, p)
			if got := matchesPrefix(state.PersonAddressPrefix, id, []string{p}); got != want {
				t.Errorf("person.%s against %q: %v, want %v", id, p, got, want)
			}
		}
	}
}
