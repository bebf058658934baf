package state

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// memPeople is a PeopleStore over the people of a state read whole that
// counts the people it reads.
type memPeople struct {
	PeopleStore // unused questions panic
	s           *State
	read        int
}

func (m *memPeople) Get(ids []string) ([]*Person, error) {
	var out []*Person
	for _, id := range ids {
		if p := m.s.People[id]; p != nil {
			m.read++
			out = append(out, p)
		}
	}
	return out, nil
}

func (m *memPeople) LeadIDs(addr string) ([]string, error) { return m.s.Searches[addr].LeadIDs, nil }
func (m *memPeople) Names() (Names, error)                 { return NamesOf(m.s.People), nil }

// demoPartial is the state of demoEvents read whole, and read in part
// over a store of its people (a copy of them: the store's rows).
func demoPartial(t *testing.T) (whole, part *State, store *memPeople) {
	t.Helper()
	whole = New()
	for _, e := range demoEvents() {
		must(t, whole.Fold(e))
	}
	records := *whole
	records.People, records.idx = map[string]*Person{}, nil
	kept := map[string]int{}
	for addr, sr := range whole.Searches {
		kept[addr] = len(sr.LeadIDs)
		cp := *sr
		cp.LeadIDs = nil
		records.Searches = maps.Clone(records.Searches)
		records.Searches[addr] = &cp
	}
	before := *whole // the store's rows, until it renames them
	before.People, before.Searches = maps.Clone(whole.People), maps.Clone(whole.Searches)
	store = &memPeople{s: &before}
	part, err := NewStoredBase(&records, kept, store).Writable()
	must(t, err)
	return whole, part, store
}

// TestHoldReadLeavesThePeopleAsked: a person the partial state read
// already is not held again (HoldRead), so the store's counts take them
// out once: the counts of enrichments stay the whole state's.
func TestHoldReadLeavesThePeopleAsked(t *testing.T) {
	whole, part, _ := demoPartial(t)
	wantMade := map[string]int{}
	for _, p := range whole.People {
		if p.Enrichment != nil {
			wantMade[p.Enrichment.By]++
		}
	}
	ids := slices.Sorted(maps.Keys(whole.People))
	must(t, part.ReadPeople(ids))
	part.HoldRead(whole.People)
	made, _, ok := part.EnrichedCounts()
	if d := cmp.Diff(wantMade, made); !ok || len(wantMade) == 0 || d != "" {
		t.Errorf("the enrichments counted once held again (-whole +partial):\n%s", d)
	}
}

// TestMoveFoldedInPartReadsNoPerson: a move folded into a partial state
// reads no person, however many it names: it reads the moved searches'
// lead lists, counts the people not read under their new addresses, and
// leaves their rows to the store (Changes.Renames). A person read before
// the store renames them is moved as read, as the state read whole holds
// them.
func TestMoveFoldedInPartReadsNoPerson(t *testing.T) {
	whole, part, store := demoPartial(t)
	moves := []Move{{From: "enrich.e", To: "enrich.f"}, {From: "search.a", To: "search.z"}}
	ev := Event{At: day(1), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: moves}}
	must(t, part.Fold(ev))
	if store.read != 0 {
		t.Errorf("the fold read %d people, want none", store.read)
	}
	ch := part.TakeChanges()
	if d := cmp.Diff([][]Move{moves}, ch.Renames); d != "" {
		t.Errorf("the renames left to the store (-want +got):\n%s", d)
	}
	part.PutBackChanges(ch) // a write that failed: the rows are not renamed
	must(t, whole.Fold(ev))
	if d := cmp.Diff(whole.MovableAddresses(), part.MovableAddresses()); d != "" {
		t.Errorf("the addresses once moved (-whole +partial):\n%s", d)
	}
	ids := slices.Sorted(maps.Keys(whole.People))
	must(t, part.ReadPeople(ids))
	for _, id := range ids {
		if d := cmp.Diff(whole.People[id], part.People[id]); d != "" {
			t.Errorf("person %s read before the renames were written (-whole +partial):\n%s", id, d)
		}
	}
	if d := cmp.Diff(Names{Enriched: map[string]int{"enrich.f": 0}, Copied: map[string]int{}, Tracked: map[string]int{}, History: map[string]int{}},
		part.partial.others); d != "" {
		t.Errorf("the people not read, counted (-want +got):\n%s", d)
	}
}
