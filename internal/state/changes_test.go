package state

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// mirror is a row store fed only by Changes, as the PostgreSQL backend is:
// after every step it must equal the state. A person's history is kept
// apart from their row and only appended to, as in the backend's history
// table: Changes.History says how many entries are new (or that all are).
type mirror struct {
	s       *State
	history map[string][]Drift
	// appended and rewritten count the history entries appended and the
	// histories written whole (a re-key), so that the test sees both.
	appended, rewritten int
}

func clone[T any](v *T) *T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var c T
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c
}

func (m *mirror) take(s *State) {
	c := s.TakeChanges()
	if m.history == nil {
		m.history = map[string][]Drift{}
	}
	for k := range c.People {
		p := s.People[k]
		if p == nil {
			delete(m.s.People, k)
			delete(m.history, k)
			continue
		}
		row := clone(p)
		switch n := c.History[k]; {
		case n < 0:
			m.history[k] = *clone(&p.History)
			m.rewritten++
		case n > 0:
			tail := p.History[len(p.History)-n:]
			m.history[k] = append(m.history[k], *clone(&tail)...)
			m.appended += n
		}
		row.History = m.history[k]
		m.s.People[k] = row
	}
	for k := range c.Searches {
		if v := s.Searches[k]; v != nil {
			m.s.Searches[k] = clone(v)
		} else {
			delete(m.s.Searches, k)
		}
	}
	for k := range c.Profiles {
		if v := s.Profiles[k]; v != nil {
			m.s.Profiles[k] = clone(v)
		} else {
			delete(m.s.Profiles, k)
		}
	}
	for k := range c.Failures {
		if v := s.Failures[k]; v != nil {
			m.s.Failures[k] = clone(v)
		} else {
			delete(m.s.Failures, k)
		}
	}
	if c.Usage {
		m.s.Usage = *clone(&s.Usage)
	}
	if c.Meta {
		m.s.Splits = nil
		if len(s.Splits) > 0 {
			b, _ := json.Marshal(s.Splits)
			json.Unmarshal(b, &m.s.Splits)
		}
		b, _ := json.Marshal(s.Suppressed)
		m.s.Suppressed = nil
		json.Unmarshal(b, &m.s.Suppressed)
		m.s.ErasedEnrichments = nil
		if len(s.ErasedEnrichments) > 0 {
			b, _ := json.Marshal(s.ErasedEnrichments)
			json.Unmarshal(b, &m.s.ErasedEnrichments)
		}
		m.s.UnknownEnrichments = nil
		if len(s.UnknownEnrichments) > 0 {
			b, _ := json.Marshal(s.UnknownEnrichments)
			json.Unmarshal(b, &m.s.UnknownEnrichments)
		}
		m.s.Imports = nil
		if len(s.Imports) > 0 {
			b, _ := json.Marshal(s.Imports)
			json.Unmarshal(b, &m.s.Imports)
		}
	}
}

// encoded is s as indented JSON (what the state file holds, as
// encoding/json writes it), to compare two states line by line.
func encoded(t *testing.T, s *State) string {
	t.Helper()
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every change Fold and RemovePerson make is named by TakeChanges, so a
// backend writing only those rows keeps an exact copy.
func TestChangesNameEveryChange(t *testing.T) {
	steps := []func(s *State){
		func(s *State) {
			s.Fold(Event{At: day(0), Kind: EventBilling, Billing: &api.Usage{RemainingRequests: 5}})
		},
		func(s *State) {
			s.Fold(searchEv(day(1), "search.a", 0, lead("", "anna", "Anna"), lead("n2", "ben", "Ben"), lead("", "", "Nobody")))
		},
		func(s *State) { s.Fold(profileEv(day(2), "profile.p", "anna", "Anna A")) },
		// Anna moves while known by page name only: her history is kept
		// under page:anna, then moves with her when she is re-keyed.
		func(s *State) {
			s.Fold(searchEv(day(2), "search.m", 0, person.Lead{PageName: "anna", FullName: "Anna", Title: "VP", Company: "Rheinbank", Location: "Köln, Germany"}))
		},
		func(s *State) {
			// Anna's networkId arrives: re-keyed from page:anna in search.a and profile.p.
			s.Fold(searchEv(day(3), "search.b", 1, lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")))
		},
		func(s *State) {
			s.Fold(enrichEv(day(4), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.example", CreditBalance: 7}))
		},
		func(s *State) {
			s.Fold(enrichEv(day(4), "enrich.e", "page:zed", person.EnrichedProfile{NetworkID: "n9", PageName: "zed", Email: "z@x.example"}))
		},
		func(s *State) {
			s.Fold(Event{At: day(5), Kind: EventFailure, Address: "search.c", Failure: &Failure{Message: "500"}})
		},
		func(s *State) { s.Fold(searchEv(day(6), "search.a", 0, lead("n1", "anna", "Anna"))) },
		// Track reads of Ben: a new job, a private profile, gone; and his
		// enrichment made again at the new employer.
		func(s *State) { s.Fold(trackEv(day(6), "track.t", "n2", "Head of IT", "Nordlicht GmbH")) },
		func(s *State) {
			s.Fold(enrichEv(day(6), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@nordlicht.example", Company: "Nordlicht GmbH"}))
		},
		func(s *State) {
			s.Fold(Event{At: day(6), Kind: EventTrack, Address: "track.t", Track: &TrackEvent{PersonID: "n2", Profile: &person.Profile{Private: true}}})
		},
		func(s *State) {
			s.Fold(Event{At: day(7), Kind: EventTrack, Address: "track.t", Track: &TrackEvent{PersonID: "n2", Gone: true}})
		},
		func(s *State) { s.Fold(profileEv(day(6), "profile.p", "ben", "Ben B")) },
		// state rm track.t: its reads forgotten.
		func(s *State) {
			s.Fold(trackEv(day(7), "track.u", "n2", "Head of IT", "Nordlicht GmbH"))
			s.Fold(Event{At: day(7), Kind: EventForget, Address: "track.t"})
		},
		// An enrichment pending, then unknown, then another pending and void.
		func(s *State) {
			s.Fold(Event{At: day(6), Kind: EventEnrichPending, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n1", Credits: 1}})
		},
		func(s *State) {
			s.Fold(Event{At: day(6), Kind: EventEnrichUnknown, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n1", Credits: 1}, Failure: &Failure{Message: "timeout"}})
		},
		func(s *State) {
			s.Fold(Event{At: day(6), Kind: EventEnrichVoid, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n1", Credits: 1}})
		},
		func(s *State) { s.Fold(Event{At: day(7), Kind: EventForget, Address: "search.b"}) },
		func(s *State) { s.RemovePerson("n1") },
		func(s *State) { s.Fold(searchEv(day(8), "search.c", 0, lead("n3", "cleo", "Cleo"))) },
		// max_results lowered: the kept leads are cut without a run.
		func(s *State) {
			s.Fold(searchEv(day(8), "search.t", 0, lead("n4", "dora", "Dora"), lead("n5", "emil", "Emil"), lead("n6", "fay", "Fay")))
		},
		func(s *State) {
			s.Fold(Event{At: day(8), Kind: EventTrim, Address: "search.t", Trim: &TrimEvent{MaxResults: 1}})
		},
		// A profile read shared by a second address, then another read shared
		// in its place (the first person leaves it).
		func(s *State) { s.Fold(profileEv(day(8), "profile.q", "dora", "Dora D")) },
		func(s *State) {
			s.Fold(Event{At: day(8), Kind: EventProfileShare, Address: "profile.r", Share: &ProfileShareEvent{From: "profile.q", Generation: api.Gen1, Request: []byte(`{"pageName":"DORA"}`)}})
		},
		func(s *State) { s.Fold(profileEv(day(8), "profile.q", "emil", "Emil E")) },
		func(s *State) {
			s.Fold(Event{At: day(8), Kind: EventProfileShare, Address: "profile.r", Share: &ProfileShareEvent{From: "profile.q", Generation: api.Gen1, Request: []byte(`{"pageName":"Emil"}`)}})
		},
		// Dora changes jobs, is removed and found again before the next
		// write: her new record has no history, and none comes back.
		func(s *State) {
			s.Fold(trackEv(day(8), "track.t", "n4", "Head of Ops", "Elsewhere"))
			s.RemovePerson("n4")
			s.Fold(searchEv(day(8), "search.u", 0, lead("n4", "dora", "Dora")))
		},
		// A split search: the root at the cap, then its two sub-searches.
		func(s *State) { s.Fold(splitEv(day(9), "search.s", []string{}, api.MaxResults)) },
		func(s *State) { s.Fold(splitEv(day(9), "search.s", []string{"A"}, 2)) },
		func(s *State) { s.RemovePerson("s1.A") },
		func(s *State) { s.Fold(splitEv(day(10), "search.s", []string{"B"}, 3)) },
		func(s *State) { s.Fold(Event{At: day(11), Kind: EventForget, Address: "search.s"}) },
		// Erasure (suppression list) and retention.
		func(s *State) {
			s.Fold(Event{At: day(12), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{
				Reason: ForgetErasure, PersonIDs: []string{"n3"}, Keys: IdentifierKeys("cleo")}})

		},
		func(s *State) {
			s.Fold(searchEv(day(13), "search.c", 0, lead("n3", "cleo", "Cleo"), lead("n7", "gus", "Gus")))
		},
		// The read of an erased person: recorded without them, in place of
		// a read of someone else.
		func(s *State) { s.Fold(profileEv(day(13), "profile.r", "cleo", "Cleo C")) },
		func(s *State) {
			s.Fold(Event{At: day(14), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{
				Reason: ForgetRetention, PersonIDs: []string{"n7", "n2"}}})

		},
		// An import (a new person known by page name, a known one), again
		// without one of them, then the block removed.
		func(s *State) {
			s.Fold(importEv(day(15), "import.x", imported("", "ivy", "i@x.example"), imported("n3", "cleo", "")))
		},
		func(s *State) { s.Fold(importEv(day(16), "import.x", imported("n9", "ivy", ""))) },
		func(s *State) { s.Fold(Event{At: day(17), Kind: EventForget, Address: "import.x"}) },
		// An enrichment copied from another workspace.
		func(s *State) {
			s.Fold(Event{At: day(18), Kind: EventReuse, Address: "enrich.e", Reuse: &ReuseEvent{PersonID: "n9", Workspace: "dach",
				Enrichment: Enrichment{EnrichedAt: day(10), By: "enrich.e", Result: person.EnrichedProfile{NetworkID: "n9", Email: "i@dach.example"}}}})
		},
		// Moves (moved blocks, state mv): a search with its failure, a
		// split run under way, a profile read, an enrich block whose
		// enrichments were erased since, one of unknown outcome.
		func(s *State) { s.Fold(splitEv(day(15), "search.u", []string{}, api.MaxResults)) },
		func(s *State) {
			s.Fold(Event{At: day(15), Kind: EventFailure, Address: "search.c", Failure: &Failure{Message: "503"}})
		},
		func(s *State) {
			s.Fold(Event{At: day(15), Kind: EventEnrichUnknown, Address: "enrich.f", Enrich: &EnrichEvent{PersonID: "n3", Credits: 1}, Failure: &Failure{Message: "timeout"}})
		},
		func(s *State) {
			s.Fold(Event{At: day(16), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: []Move{
				{From: "search.c", To: "module.m.search.c"}, {From: "search.u", To: `search.u["x"]`},
				{From: "profile.r", To: "module.m.profile.r"}, {From: "enrich.e", To: "module.m.enrich.e"},
				{From: "enrich.f", To: "enrich.g"}}}})
		},
	}
	s := New()
	s.Track()
	m := &mirror{s: New()}
	m.s.Lineage = s.Lineage
	for i, step := range steps {
		step(s)
		m.take(s)
		if d := cmp.Diff(encoded(t, s), encoded(t, m.s)); d != "" {
			t.Fatalf("after step %d the copy fed by Changes differs (-state +copy):\n%s", i, d)
		}
	}
	if !s.TakeChanges().Empty() {
		t.Fatal("changes left after taking them")
	}
	// Title, company, location, e-mail and status drifts were appended;
	// a re-key wrote Anna's history whole.
	if m.appended < 6 || m.rewritten == 0 {
		t.Fatalf("history: %d entries appended, %d written whole; want drifts of every kind and a re-key", m.appended, m.rewritten)
	}
	// Changes given back are taken again.
	s.Fold(Event{At: day(9), Kind: EventFailure, Address: "search.d", Failure: &Failure{Message: "x"}})
	c := s.TakeChanges()
	s.PutBackChanges(c)
	if c2 := s.TakeChanges(); len(c2.Failures) != 1 {
		t.Fatalf("changes put back were lost: %+v", c2)
	}
	// Without Track nothing is recorded.
	u := New()
	u.Fold(searchEv(day(1), "search.a", 0, lead("n1", "anna", "Anna")))
	if u.Tracking() || u.TakeChanges() != nil {
		t.Fatal("an untracked state records changes")
	}
}
