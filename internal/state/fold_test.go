package state

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func day(n int) time.Time { return t0.Add(time.Duration(n) * 24 * time.Hour) }

func lead(nid, page, name string) person.Lead {
	return person.Lead{NetworkID: nid, PageName: page, FullName: name, Title: "CTO"}
}

func searchEv(at time.Time, addr string, max int, leads ...person.Lead) Event {
	return Event{At: at, Kind: EventSearch, Address: addr, Search: &SearchEvent{
		Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`), Leads: leads, MaxResults: max}}
}

func profileEv(at time.Time, addr, page, name string) Event {
	return Event{At: at, Kind: EventProfile, Address: addr, Profile: &ProfileEvent{
		Generation: api.Gen1, Request: []byte(`{"pageName":"` + page + `"}`), PageName: page,
		Profile: person.Profile{FullName: name, CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "ACME"}}}}}
}

func trackEv(at time.Time, addr, id, title, company string) Event {
	return Event{At: at, Kind: EventTrack, Address: addr, Track: &TrackEvent{PersonID: id, Generation: api.Gen1,
		Request: []byte(`{"pageName":"x"}`), Profile: &person.Profile{FullName: "X", CurrentPosition: []person.Position{{JobTitle: title, Company: company}}}}}
}

func enrichEv(at time.Time, addr, id string, res person.EnrichedProfile) Event {
	return Event{At: at, Kind: EventEnrich, Address: addr, Enrich: &EnrichEvent{PersonID: id, Credits: 1, Result: res}}
}

// summary is what the table tests compare: per person its FoundBy, per
// search its lead IDs and counts, per profile its person.
func summary(s *State) map[string]string {
	m := map[string]string{}
	for id, p := range s.People {
		v := "found_by=" + strings.Join(p.FoundBy, ",")
		if p.Enrichment != nil {
			v += " enriched_by=" + p.Enrichment.By
		}
		if p.Profile != nil {
			v += " profile"
		}
		m["person "+id] = v
	}
	for addr, sr := range s.Searches {
		m[addr] = fmt.Sprintf("ids=%s results=%d capped=%v added=%d removed=%d", strings.Join(sr.LeadIDs, ","), sr.ResultCount, sr.Capped, sr.Added, sr.Removed)
	}
	for addr, pr := range s.Profiles {
		m[addr] = "person=" + pr.PersonID
	}
	for addr, f := range s.Failures {
		m["failure "+addr] = f.Message
	}
	return m
}

func TestFold(t *testing.T) {
	many := make([]person.Lead, api.MaxResults)
	for i := range many {
		many[i] = lead(fmt.Sprintf("n%03d", i), "", "")
	}
	tests := []struct {
		name   string
		events []Event
		want   map[string]string
	}{
		{
			name:   "first search creates people in order",
			events: []Event{searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob"))},
			want: map[string]string{
				"person n1": "found_by=search.a", "person n2": "found_by=search.a",
				"search.a": "ids=n1,n2 results=2 capped=false added=0 removed=0",
			},
		},
		{
			name: "rerun counts added and removed; the removed lose the address",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("n1", "", ""), lead("n2", "", "")),
				searchEv(day(0), "search.b", 0, lead("n2", "", "")),
				searchEv(day(1), "search.a", 0, lead("n2", "", ""), lead("n3", "", ""), lead("n4", "", "")),
			},
			want: map[string]string{
				"person n1": "found_by=", "person n2": "found_by=search.a,search.b",
				"person n3": "found_by=search.a", "person n4": "found_by=search.a",
				"search.a": "ids=n2,n3,n4 results=3 capped=false added=2 removed=1",
				"search.b": "ids=n2 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name:   "max_results keeps the first ones; 300 results are capped",
			events: []Event{searchEv(day(0), "search.a", 2, many...)},
			want: map[string]string{
				"person n000": "found_by=search.a", "person n001": "found_by=search.a",
				"search.a": "ids=n000,n001 results=300 capped=true added=0 removed=0",
			},
		},
		{
			name: "a profile read first, then a search with the networkId: re-keyed",
			events: []Event{
				profileEv(day(0), "profile.p", "bob", "Bob B"),
				searchEv(day(1), "search.a", 0, lead("n2", "bob", "Bob B")),
			},
			want: map[string]string{
				"person n2": "found_by=profile.p,search.a profile",
				"profile.p": "person=n2",
				"search.a":  "ids=n2 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name: "re-key merges with a person already known by networkId and fixes every search",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("", "bob", "Bob")),   // page:bob
				searchEv(day(0), "search.b", 0, lead("n2", "", "Bob")),    // n2, page name unknown
				searchEv(day(1), "search.c", 0, lead("n2", "bob", "Bob")), // now we know both
			},
			want: map[string]string{
				"person n2": "found_by=search.a,search.b,search.c",
				"search.a":  "ids=n2 results=1 capped=false added=0 removed=0",
				"search.b":  "ids=n2 results=1 capped=false added=0 removed=0",
				"search.c":  "ids=n2 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name: "re-key inside one result list keeps the list free of duplicates",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("", "bob", "Bob"), lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob")),
			},
			want: map[string]string{
				"person n1": "found_by=search.a", "person n2": "found_by=search.a",
				"search.a": "ids=n2,n1 results=3 capped=false added=0 removed=0",
			},
		},
		{
			name: "a lead without networkId finds the person by page name",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("n2", "bob", "Bob")),
				searchEv(day(1), "search.b", 0, lead("", "bob", "Bob")),
			},
			want: map[string]string{
				"person n2": "found_by=search.a,search.b",
				"search.a":  "ids=n2 results=1 capped=false added=0 removed=0",
				"search.b":  "ids=n2 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name: "enrich re-keys a page: person and keeps the result",
			events: []Event{
				profileEv(day(0), "profile.p", "bob", "Bob B"),
				enrichEv(day(1), "enrich.e", "page:bob", person.EnrichedProfile{NetworkID: "n2", PageName: "bob", Email: "b@x.io", CreditBalance: 9}),
			},
			want: map[string]string{
				"person n2": "found_by=profile.p enriched_by=enrich.e profile",
				"profile.p": "person=n2",
			},
		},
		{
			name: "enrich by an ID that was re-keyed since still finds the person",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("", "bob", "Bob")),
				searchEv(day(1), "search.b", 0, lead("n2", "bob", "Bob")),
				enrichEv(day(2), "enrich.e", "page:bob", person.EnrichedProfile{Email: "b@x.io"}),
			},
			want: map[string]string{
				"person n2": "found_by=search.a,search.b enriched_by=enrich.e",
				"search.a":  "ids=n2 results=1 capped=false added=0 removed=0",
				"search.b":  "ids=n2 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name: "forget drops the record and the address; people and enrichments stay",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("n1", "", ""), lead("n2", "", "")),
				searchEv(day(0), "search.b", 0, lead("n2", "", "")),
				profileEv(day(0), "profile.p", "ann", "Ann"),
				enrichEv(day(1), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1"}),
				{At: day(2), Kind: EventForget, Address: "search.a"},
				{At: day(2), Kind: EventForget, Address: "profile.p"},
			},
			want: map[string]string{
				"person n1": "found_by= enriched_by=enrich.e", "person n2": "found_by=search.b",
				"person page:ann": "found_by= profile",
				"search.b":        "ids=n2 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name: "a failure is kept until the next success of its address",
			events: []Event{
				{At: day(0), Kind: EventFailure, Address: "search.a", Failure: &Failure{Message: "boom", Status: 500}},
				{At: day(0), Kind: EventFailure, Address: "search.b", Failure: &Failure{Message: "quota"}},
				searchEv(day(1), "search.a", 0),
			},
			want: map[string]string{
				"failure search.b": "quota",
				"search.a":         "ids= results=0 capped=false added=0 removed=0",
			},
		},
		{
			name: "a profile block that now reads another page moves its address",
			events: []Event{
				profileEv(day(0), "profile.p", "ann", "Ann"),
				profileEv(day(1), "profile.p", "bob", "Bob"),
			},
			want: map[string]string{
				"person page:ann": "found_by= profile", "person page:bob": "found_by=profile.p profile",
				"profile.p": "person=page:bob",
			},
		},
		{
			name: "a lowered max_results cuts the kept leads; the people cut off stay, enriched",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob"), lead("n3", "cy", "Cy")),
				searchEv(day(0), "search.b", 0, lead("n3", "cy", "Cy")),
				enrichEv(day(1), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.example"}),
				{At: day(2), Kind: EventTrim, Address: "search.a", Trim: &TrimEvent{MaxResults: 1}},
				// Nothing to cut, and a search state does not hold: no change.
				{At: day(2), Kind: EventTrim, Address: "search.b", Trim: &TrimEvent{MaxResults: 1}},
				{At: day(2), Kind: EventTrim, Address: "search.zz", Trim: &TrimEvent{MaxResults: 1}},
			},
			want: map[string]string{
				"person n1": "found_by=search.a", "person n2": "found_by= enriched_by=enrich.e", "person n3": "found_by=search.b",
				"search.a": "ids=n1 results=3 capped=false added=0 removed=0",
				"search.b": "ids=n3 results=1 capped=false added=0 removed=0",
			},
		},
		{
			name: "a profile read shared by a second address, then by a third; a share of nothing",
			events: []Event{
				profileEv(day(0), "profile.a", "ann", "Ann"),
				{At: day(1), Kind: EventProfileShare, Address: "profile.b", Share: &ProfileShareEvent{From: "profile.a", Generation: api.Gen1, Request: []byte(`{"pageName":"ANN"}`)}},
				{At: day(1), Kind: EventProfileShare, Address: "profile.c", Share: &ProfileShareEvent{From: "profile.b", Generation: api.Gen1, Request: []byte(`{"pageName":"Ann"}`)}},
				{At: day(1), Kind: EventProfileShare, Address: "profile.d", Share: &ProfileShareEvent{From: "profile.zz", Generation: api.Gen1, Request: []byte(`{"pageName":"x"}`)}},
			},
			want: map[string]string{
				"person page:ann": "found_by=profile.a,profile.b,profile.c profile",
				"profile.a":       "person=page:ann", "profile.b": "person=page:ann", "profile.c": "person=page:ann",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			for i, e := range tt.events {
				if err := s.Fold(e); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
			if d := cmp.Diff(tt.want, summary(s)); d != "" {
				t.Errorf("state (-want +got):\n%s", d)
			}
			checkInvariants(t, s)

			// The same events on another state give the same state: Fold is
			// deterministic, which journal replay relies on.
			s2 := New()
			s2.Lineage = s.Lineage
			for _, e := range tt.events {
				must(t, s2.Fold(e))
			}
			if d := cmp.Diff(s, s2, cmpState); d != "" {
				t.Errorf("replay differs:\n%s", d)
			}
		})
	}
}

// checkInvariants: every search and profile record refers to people who
// list its address, and the other way round.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	refs := map[string]map[string]bool{}
	add := func(id, addr string) {
		if refs[id] == nil {
			refs[id] = map[string]bool{}
		}
		refs[id][addr] = true
	}
	for addr, sr := range s.Searches {
		for _, id := range sr.LeadIDs {
			if s.People[id] == nil {
				t.Errorf("%s refers to unknown person %s", addr, id)
			}
			add(id, addr)
		}
	}
	for addr, pr := range s.Profiles {
		if s.People[pr.PersonID] == nil {
			t.Errorf("%s refers to unknown person %s", addr, pr.PersonID)
		}
		add(pr.PersonID, addr)
	}
	for id, p := range s.People {
		if p.ID != id {
			t.Errorf("person %s has ID %s", id, p.ID)
		}
		got := map[string]bool{}
		for _, a := range p.FoundBy {
			got[a] = true
		}
		if len(got) != len(refs[id]) || !reflect.DeepEqual(got, refs[id]) && len(got) > 0 {
			t.Errorf("person %s: found_by %v, referenced by %v", id, p.FoundBy, refs[id])
		}
	}
}

func TestFoldDetails(t *testing.T) {
	s := New()
	must(t, s.Fold(searchEv(day(0), "search.a", 0, person.Lead{NetworkID: "n1", PageName: "ann", FullName: "Ann A", Company: "Old"})))
	must(t, s.Fold(searchEv(day(3), "search.a", 0, person.Lead{NetworkID: "n1", PageName: "ann", FullName: "Ann A", Company: "New"})))
	p := s.People["n1"]
	if !p.FirstSeen.Equal(day(0)) || !p.LastSeen.Equal(day(3)) || p.Lead.Company != "New" {
		t.Errorf("first_seen %v last_seen %v company %q", p.FirstSeen, p.LastSeen, p.Lead.Company)
	}
	if sr := s.Searches["search.a"]; !sr.RanAt.Equal(day(3)) || sr.RequestHash != RequestHash(api.Gen1, []byte(`{ "keywords" : "CTO" }`)) {
		t.Errorf("search record %+v", sr)
	}

	must(t, s.Fold(enrichEv(day(4), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1", Email: "a@x.io", Title: "CEO", CreditBalance: 41})))
	must(t, s.Fold(enrichEv(day(4), "enrich.e", "zz", person.EnrichedProfile{PageName: "zed", Email: "z@x.io", CreditBalance: 40})))
	if got := s.Usage; *got.CreditBalance != 40 || got.CreditsSpent != 2 || !got.CreditBalanceAt.Equal(day(4)) {
		t.Errorf("usage %+v", got)
	}
	if p.Lead.Title != "CEO" || p.Enrichment.Result.Email != "a@x.io" || !p.Enrichment.EnrichedAt.Equal(day(4)) {
		t.Errorf("enriched person %+v", p)
	}
	if z := s.People["page:zed"]; z == nil || z.Enrichment == nil {
		t.Errorf("enrichment of an unknown person was not kept: %v", summary(s))
	}

	must(t, s.Fold(Event{At: day(5), Kind: EventBilling, Billing: &api.Usage{RemainingRequests: 77, InvoicingStartDate: "2026-05-01"}}))
	if u := s.Usage; *u.RemainingRequests != 77 || u.InvoicingStartDate != "2026-05-01" || !u.CheckedAt.Equal(day(5)) {
		t.Errorf("billing %+v", u)
	}

	// A profile fills the person's fields and keeps the profile.
	must(t, s.Fold(profileEv(day(6), "profile.p", "ann", "Ann Anders")))
	if p.Profile == nil || !p.ProfileReadAt.Equal(day(6)) || p.Lead.FullName != "Ann Anders" || p.Lead.Company != "ACME" {
		t.Errorf("profile person %+v", p)
	}
	if s.Profiles["profile.p"].PersonID != "n1" {
		t.Errorf("profile record %+v", s.Profiles["profile.p"])
	}

	// A shared read keeps the time of the read it shares and its own
	// request; the address's failure is cleared, as by a read.
	must(t, s.Fold(Event{At: day(7), Kind: EventFailure, Address: "profile.q", Failure: &Failure{Message: "500"}}))
	must(t, s.Fold(Event{At: day(8), Kind: EventProfileShare, Address: "profile.q", Share: &ProfileShareEvent{
		From: "profile.p", Generation: api.Gen1, Request: []byte(`{"profileUrl":"https://network.example/profile/Ann"}`)}}))
	q := s.Profiles["profile.q"]
	if q == nil || q.PersonID != "n1" || !q.ReadAt.Equal(day(6)) || q.RequestHash != RequestHash(api.Gen1, []byte(`{"profileUrl":"https://network.example/profile/Ann"}`)) {
		t.Errorf("shared record %+v", q)
	}
	if s.Failures["profile.q"] != nil {
		t.Errorf("failure kept after a shared read: %+v", s.Failures["profile.q"])
	}
	// A trim keeps the search's failure: it made no call.
	must(t, s.Fold(Event{At: day(9), Kind: EventFailure, Address: "search.a", Failure: &Failure{Message: "500"}}))
	must(t, s.Fold(Event{At: day(9), Kind: EventTrim, Address: "search.a", Trim: &TrimEvent{MaxResults: 1}}))
	if s.Failures["search.a"] == nil || s.Searches["search.a"].MaxResults != 0 {
		t.Errorf("trim to what is kept: failure %+v, max_results %d", s.Failures["search.a"], s.Searches["search.a"].MaxResults)
	}
}

func TestFoldRefusesBadEvents(t *testing.T) {
	for _, e := range []Event{
		{Kind: "teleport", Address: "x"},
		{Kind: EventSearch, Address: "search.a"},
		{Kind: EventSearch, Search: &SearchEvent{}},
		{Kind: EventSearch, Address: "search.a", Search: &SearchEvent{MaxResults: -1}},
		{Kind: EventProfile, Address: "profile.p", Profile: &ProfileEvent{}},
		{Kind: EventEnrich, Address: "enrich.e", Enrich: &EnrichEvent{}},
		{Kind: EventEnrich, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "x", Credits: -1}},
		{Kind: EventBilling},
		{Kind: EventFailure, Address: "search.a"},
		{Kind: EventForget},
		{Kind: EventTrim, Address: "search.a"},
		{Kind: EventTrim, Address: "search.a", Trim: &TrimEvent{}},
		{Kind: EventTrim, Trim: &TrimEvent{MaxResults: 3}},
		{Kind: EventProfileShare, Address: "profile.b"},
		{Kind: EventProfileShare, Address: "profile.b", Share: &ProfileShareEvent{From: "profile.b"}},
	} {
		s := New()
		before := summary(s)
		if err := s.Fold(e); err == nil {
			t.Errorf("%+v: no error", e)
		}
		if d := cmp.Diff(before, summary(s)); d != "" {
			t.Errorf("%+v changed the state: %s", e, d)
		}
	}
}

func TestRequestHash(t *testing.T) {
	a := RequestHash(api.Gen1, []byte(`{"b":[1,2.50],"a":"x"}`))
	if b := RequestHash(api.Gen1, []byte("{ \"a\": \"x\",\n \"b\": [1, 2.50] }")); a != b {
		t.Error("formatting changed the hash")
	}
	if b := RequestHash(api.Gen2, []byte(`{"b":[1,2.50],"a":"x"}`)); a == b {
		t.Error("the generation does not change the hash")
	}
	if b := RequestHash(api.Gen1, []byte(`{"b":[1,2.5],"a":"x"}`)); a == b {
		t.Error("a different number literal gives the same hash")
	}
	if len(a) != 64 {
		t.Errorf("hash %q", a)
	}
}

func TestNewAndPersonID(t *testing.T) {
	a, b := New(), New()
	if a.Lineage == b.Lineage || len(a.Lineage) != 36 || a.Lineage[14] != '4' {
		t.Errorf("lineages %q %q", a.Lineage, b.Lineage)
	}
	if a.People == nil || a.Searches == nil || a.Profiles == nil || a.Failures == nil || a.FormatVersion != FormatVersion {
		t.Errorf("new state %+v", a)
	}
	for _, tt := range []struct {
		l    person.Lead
		want string
	}{
		{person.Lead{NetworkID: "1.a", PageName: "x"}, "1.a"},
		{person.Lead{PageName: "x"}, "page:x"},
	} {
		if got := PersonID(tt.l); got != tt.want {
			t.Errorf("PersonID(%+v) = %q, want %q", tt.l, got, tt.want)
		}
	}
	if id := PersonID(person.Lead{FullName: "X"}); !strings.HasPrefix(id, "anon:") || id == PersonID(person.Lead{FullName: "Y"}) {
		t.Errorf("anonymous IDs %q", id)
	}
}

func TestRemovePersonAndAddresses(t *testing.T) {
	s := New()
	must(t, s.Fold(searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob"))))
	must(t, s.Fold(profileEv(day(0), "profile.p", "ann", "Ann")))
	if got := s.Addresses(true); !reflect.DeepEqual(got, []string{"search.a", "profile.p", "person.n1", "person.n2"}) {
		t.Errorf("addresses %v", got)
	}
	for addr, want := range map[string]kind.Kind{"search.a": kind.Search, "profile.p": kind.Profile, "person.n1": kind.Person, "person.zz": kind.None, "n1": kind.None, "track.t": kind.None} {
		if got := s.Kind(addr); got != want {
			t.Errorf("Kind(%q) = %q, want %q", addr, got, want)
		}
	}
	if !s.RemovePerson("n1") || s.RemovePerson("n1") {
		t.Error("RemovePerson results")
	}
	want := map[string]string{"person n2": "found_by=search.a", "search.a": "ids=n2 results=2 capped=false added=0 removed=0"}
	if d := cmp.Diff(want, summary(s)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	checkInvariants(t, s)
	// The page-name index forgot them too.
	if id := s.Resolve(person.Lead{PageName: "ann"}); id != "page:ann" {
		t.Errorf("resolve after removal: %q", id)
	}
}

// TestAnswerPastTheCapIsCut: a search keeps at most its max_results, and
// at most the network's cap of 300 without one, even when the answer
// holds more (a service that does not hold to the spec); the record says
// how many the answer held. A sub-search of a split keeps at most 300 too.
func TestAnswerPastTheCapIsCut(t *testing.T) {
	many := func(n int) []person.Lead {
		leads := make([]person.Lead, n)
		for i := range leads {
			leads[i] = lead(fmt.Sprintf("n%d", i), fmt.Sprintf("p%d", i), "P")
		}
		return leads
	}
	for _, tc := range []struct {
		max, answered, kept int
	}{{0, 200, 200}, {0, 300, 300}, {0, 2000, 300}, {25, 2000, 25}, {300, 301, 300}} {
		s := New()
		mustFold(t, s, searchEv(day(0), "search.a", tc.max, many(tc.answered)...))
		rec := s.Searches["search.a"]
		if len(rec.LeadIDs) != tc.kept || rec.ResultCount != tc.answered || len(s.People) != tc.kept {
			t.Errorf("max_results %d, %d answered: kept %d (%d people), result count %d; want %d kept", tc.max, tc.answered,
				len(rec.LeadIDs), len(s.People), rec.ResultCount, tc.kept)
		}
	}
	s := New()
	mustFold(t, s, splitEv(day(0), "search.s", []string{}, 450))
	if n := s.Splits["search.s"].Nodes[0]; len(n.LeadIDs) != 300 || n.Results != 450 || !n.Saturated {
		t.Errorf("a sub-search answered 450: kept %d, results %d, saturated %v; want 300, 450, true", len(n.LeadIDs), n.Results, n.Saturated)
	}
}
