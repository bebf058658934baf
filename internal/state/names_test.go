package state

import (
	"encoding/json"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// Sources of one person's lead fields, as the service gives them.
var (
	jurgen = person.Lead{FirstName: "Jürgen", LastName: "von Bülow", FullName: "Jürgen von Bülow", Title: "CTO",
		Location: "Berlin, Germany", Company: "ACME", NetworkID: "7.ab", PageName: "Juergen_vonBuelow"}
	wei = person.Lead{FirstName: "伟", LastName: "王", FullName: "王伟", Title: "CTO",
		Location: "Beijing, China", Company: "ACME", NetworkID: "8.cd", PageName: "Wei_Wang"}
)

// rawOf is the raw result item of l, as the service sends it: displayName,
// no first and last name.
func rawOf(l person.Lead) api.RawLead {
	return api.RawLead{Node: api.RawNode{NetworkID: api.RawMember{
		ID: l.NetworkID, DisplayName: l.FullName, PageName: l.PageName,
		Location:          api.RawLocation{DisplayLocation: l.Location},
		ProfileOccupation: api.RawOccupationOrg{OccupationOrg: l.Company},
		Occupations:       []api.RawOccupation{{Category: "WORK_EXPERIENCE", Summary: l.Title}},
	}}}
}

// rawSearchEv is a raw search finding ls, its leads derived as the client
// derives them.
func rawSearchEv(addr string, ls ...person.Lead) Event {
	se := &SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"CTO","raw":true}`)}
	for _, l := range ls {
		r := rawOf(l)
		se.Raw = append(se.Raw, r)
		se.Leads = append(se.Leads, r.Lead())
	}
	return Event{At: day(1), Kind: EventSearch, Address: addr, Search: se}
}

// oldRawSearchEv is a raw search as journals written before raw leads lost
// their names hold it: the leads carry the names split at the last space.
func oldRawSearchEv(addr string, ls ...person.Lead) Event {
	ev := rawSearchEv(addr, ls...)
	for i := range ev.Search.Leads {
		l := &ev.Search.Leads[i]
		l.FirstName, l.LastName = person.SplitFullName(l.FullName)
	}
	return ev
}

func rawSplitEv(addr string, ls ...person.Lead) Event {
	ev := rawSearchEv(addr, ls...)
	return Event{At: day(1), Kind: EventSplit, Address: addr, Split: &SplitEvent{
		Hash: "h", Generation: api.Gen1, Request: ev.Search.Request, Leads: ev.Search.Leads, Raw: ev.Search.Raw, Path: []string{},
	}}
}

func enriched(l person.Lead) person.EnrichedProfile {
	return person.EnrichedProfile{FirstName: l.FirstName, LastName: l.LastName, FullName: l.FullName, Title: l.Title,
		Location: l.Location, Company: l.Company, NetworkID: l.NetworkID, PageName: l.PageName, Email: "x@acme.example"}
}

func named(l person.Lead, first, last string) person.Lead {
	l.FirstName, l.LastName = first, last
	return l
}

// TestNamesMerge: the service's own first and last name (a plain search,
// an enrichment) win over the guess from the full name that a raw result
// or a profile read gives, whatever the order; the guess fills a person
// who has no names, and the newest full name is kept.
func TestNamesMerge(t *testing.T) {
	moved := jurgen
	moved.NetworkID = ""
	tests := []struct {
		name        string
		events      []Event
		id          string
		first, last string
		full        string
	}{
		{
			name:   "a profile read after a search keeps a multi-word last name",
			events: []Event{searchEv(day(0), "search.a", 0, jurgen), profileEv(day(1), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow")},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a profile read after a search keeps a name written family name first",
			events: []Event{searchEv(day(0), "search.a", 0, wei), profileEv(day(1), "profile.p", "Wei_Wang", "王伟")},
			id:     "8.cd", first: "伟", last: "王", full: "王伟",
		},
		{
			name:   "a raw search after a plain one keeps the names",
			events: []Event{searchEv(day(0), "search.a", 0, jurgen, wei), rawSearchEv("search.raw", jurgen, wei)},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a raw search journalled with guessed names keeps the names on replay",
			events: []Event{searchEv(day(0), "search.a", 0, jurgen), oldRawSearchEv("search.raw", jurgen)},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a raw sub-search after a plain search keeps the names",
			events: []Event{searchEv(day(0), "search.a", 0, wei), rawSplitEv("search.split", wei)},
			id:     "8.cd", first: "伟", last: "王", full: "王伟",
		},
		{
			name:   "a raw search after an enrichment keeps the enrichment's names",
			events: []Event{enrichEv(day(0), "enrich.e", "", enriched(jurgen)), rawSearchEv("search.raw", jurgen)},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a profile read alone guesses",
			events: []Event{profileEv(day(0), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow")},
			id:     "page:Juergen_vonBuelow", first: "Jürgen von", last: "Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a raw search alone guesses",
			events: []Event{rawSearchEv("search.raw", wei)},
			id:     "8.cd", first: "王伟", last: "", full: "王伟",
		},
		{
			name:   "a plain search replaces the guess of a profile read",
			events: []Event{profileEv(day(0), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow"), searchEv(day(1), "search.a", 0, jurgen)},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a plain search replaces the guess of a raw search",
			events: []Event{rawSearchEv("search.raw", wei), searchEv(day(2), "search.a", 0, wei)},
			id:     "8.cd", first: "伟", last: "王", full: "王伟",
		},
		{
			name:   "an enrichment replaces the guess of a profile read",
			events: []Event{profileEv(day(0), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow"), enrichEv(day(1), "enrich.e", "page:Juergen_vonBuelow", enriched(jurgen))},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name: "a person found without page name, then read, then found raw with it keeps the search's names",
			events: []Event{
				searchEv(day(0), "search.a", 0, person.Lead{FirstName: "Jürgen", LastName: "von Bülow", FullName: "Jürgen von Bülow", NetworkID: "7.ab"}),
				profileEv(day(1), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow"),
				rawSearchEv("search.raw", jurgen),
			},
			id: "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "a search without names gets the guess, which the next read keeps",
			events: []Event{searchEv(day(0), "search.a", 0, named(jurgen, "", "")), profileEv(day(1), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow")},
			id:     "7.ab", first: "Jürgen von", last: "Bülow", full: "Jürgen von Bülow",
		},
		{
			name:   "an empty name from the service does not erase a known one",
			events: []Event{searchEv(day(0), "search.a", 0, jurgen), searchEv(day(1), "search.b", 0, named(jurgen, "", ""))},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
		{
			name: "the newest names from the service win",
			events: []Event{searchEv(day(0), "search.a", 0, jurgen),
				searchEv(day(1), "search.b", 0, person.Lead{FirstName: "Jürgen", LastName: "Bülow", FullName: "Jürgen Bülow", NetworkID: "7.ab", PageName: "Juergen_vonBuelow"})},
			id: "7.ab", first: "Jürgen", last: "Bülow", full: "Jürgen Bülow",
		},
		{
			name:   "a profile read updates the full name, not the names the service gave",
			events: []Event{searchEv(day(0), "search.a", 0, jurgen), profileEv(day(1), "profile.p", "Juergen_vonBuelow", "Dr. Jürgen von Bülow")},
			id:     "7.ab", first: "Jürgen", last: "von Bülow", full: "Dr. Jürgen von Bülow",
		},
		{
			name:   "an enrichment of a person unknown by page name keeps its names",
			events: []Event{enrichEv(day(0), "enrich.e", "", enriched(moved)), profileEv(day(1), "profile.p", "Juergen_vonBuelow", "Jürgen von Bülow")},
			id:     "page:Juergen_vonBuelow", first: "Jürgen", last: "von Bülow", full: "Jürgen von Bülow",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Live and replayed from the journal's encoding: the same.
			for _, replay := range []bool{false, true} {
				s := New()
				for _, e := range tc.events {
					if replay {
						b, err := json.Marshal(e)
						if err != nil {
							t.Fatal(err)
						}
						e = Event{}
						if err := json.Unmarshal(b, &e); err != nil {
							t.Fatal(err)
						}
					}
					if err := s.Fold(e); err != nil {
						t.Fatalf("apply %s: %v", e.Kind, err)
					}
				}
				p := s.People[tc.id]
				if p == nil {
					t.Fatalf("replay %v: no person %s; people: %v", replay, tc.id, summary(s))
				}
				if p.Lead.FirstName != tc.first || p.Lead.LastName != tc.last || p.Lead.FullName != tc.full {
					t.Errorf("replay %v: first %q, last %q, full %q; want %q, %q, %q",
						replay, p.Lead.FirstName, p.Lead.LastName, p.Lead.FullName, tc.first, tc.last, tc.full)
				}
				checkInvariants(t, s)
			}
		})
	}
}

// TestProfilePageCase: a profile read asked with a page name in another
// case than the network's (which ignores case) is about the person a
// search found under the network's spelling: no second person, and the
// search's names and page name stay.
func TestProfilePageCase(t *testing.T) {
	s := New()
	read := profileEv(day(1), "profile.p", "juergen_VONBUELOW", "Jürgen von Bülow")
	read.Profile.Profile.NetworkURL = "https://network.example/profile/Juergen_vonBuelow"
	other := profileEv(day(1), "profile.q", "Someone_Else", "Someone Else")
	other.Profile.Profile.NetworkURL = "https://network.example/profile/Juergen_vonBuelow" // not the page asked: ignored
	for _, e := range []Event{searchEv(day(0), "search.a", 0, jurgen), read, other} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Profiles["profile.p"].PersonID; got != "7.ab" {
		t.Errorf("profile.p is about %s, want 7.ab; people: %v", got, summary(s))
	}
	if got := s.Profiles["profile.q"].PersonID; got != "page:Someone_Else" {
		t.Errorf("profile.q is about %s, want page:Someone_Else", got)
	}
	p := s.People["7.ab"]
	if l := p.Lead; l.PageName != "Juergen_vonBuelow" || l.FirstName != "Jürgen" || l.LastName != "von Bülow" || p.Profile == nil {
		t.Errorf("person %+v, profile %v", l, p.Profile != nil)
	}
	if len(s.People) != 2 {
		t.Errorf("%d people, want 2: %v", len(s.People), summary(s))
	}
	checkInvariants(t, s)
}
