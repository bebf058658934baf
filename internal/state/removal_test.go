package state

import (
	"slices"
	"testing"
)

// A retention removal of people a partial state never read reads them in
// their removal form alone: no Person of them is held (removal.go), and
// the fold takes them out of the enrich block's count. It reads no lead
// list: the change has the store cut those of the searches that found
// them (Changes.Cut), and a list read after the fold comes cut.
func TestRetentionOfUnreadPeopleReadsNoneWhole(t *testing.T) {
	st := unreadPeople(t)
	e := retention([]string{"n1", "n2", "n2"})
	if err := st.readFor(&e); err != nil {
		t.Fatal(err)
	}
	if n := heldForms(st); len(st.People) != 0 || n != 2 {
		t.Fatalf("reading the removal held %d people whole and %d removal forms, want 0 and 2", len(st.People), n)
	}
	if err := st.Fold(e); err != nil {
		t.Fatal(err)
	}
	for _, gf := range st.partial.gone {
		if gf.forms != nil {
			t.Errorf("the fold kept %d removal forms, want none", len(gf.forms))
		}
	}
	if len(st.partial.unread) != 2 {
		t.Errorf("the removal read the lead lists of %d of 2 searches, want none", 2-len(st.partial.unread))
	}
	// Read after the fold, before the write: cut as the fold would.
	if err := st.ReadLeadsOf([]string{"search.s", "search.t"}); err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string][]string{"search.s": {"n3"}, "search.t": {}} {
		if got := st.Searches[addr].LeadIDs; !slices.Equal(got, want) {
			t.Errorf("%s lists %v, read after the removal, want %v", addr, got, want)
		}
	}
	ch := st.TakeChanges()
	if err := st.CheckWrite(ch); err != nil {
		t.Fatalf("the fold's changes cannot be written: %v", err)
	}
	// The store deletes them by ID; no entry of the change's maps each.
	if !slices.Equal(ch.Removed, []string{"n1", "n2"}) || len(ch.People)+len(ch.History) != 0 {
		t.Errorf("the change removes %v and names people %v, history %v; want [n1 n2] and none", ch.Removed, ch.People, ch.History)
	}
	// The store cuts the two lists; no search is written whole.
	if _, s := ch.Cut["search.s"]; !s || len(ch.Cut) != 2 || len(ch.Searches) != 0 {
		t.Errorf("the change cuts the lists of %v and writes the searches %v; want search.s and search.t, none", ch.Cut, ch.Searches)
	}
	if n := st.partial.others.Enriched["enrich.e"]; len(st.People) != 0 || n != 0 {
		t.Errorf("after the fold: %d people held, enrich.e counts %d of the others, want 0 and 0", len(st.People), n)
	}
}

// A removal listing its people sorted, each once (as retention writes
// it), holds their IDs once: the removal's list is the one its forms
// are kept beside and the one Changes.Removed names, and no ID of it is
// an entry of partial.asked (which its sorted IDs answer).
func TestRetentionHoldsTheRemovalsIDsOnce(t *testing.T) {
	st := unreadPeople(t)
	ids := []string{"n1", "n2", "n3"}
	e := retention(ids)
	if err := st.readFor(&e); err != nil {
		t.Fatal(err)
	}
	if len(st.partial.asked) != 0 || !st.partial.isAsked("n2") || st.partial.isAsked("n4") {
		t.Errorf("asked holds %d IDs, n2 asked %v, n4 asked %v; want 0, true and false",
			len(st.partial.asked), st.partial.isAsked("n2"), st.partial.isAsked("n4"))
	}
	if err := st.Fold(e); err != nil {
		t.Fatal(err)
	}
	ch := st.TakeChanges()
	if err := st.CheckWrite(ch); err != nil {
		t.Fatalf("the fold's changes cannot be written: %v", err)
	}
	if !slices.Equal(ch.Removed, ids) || &ch.Removed[0] != &ids[0] {
		t.Errorf("the change removes %v, a copy of the removal's list: %v; want %v, not a copy", ch.Removed, &ch.Removed[0] != &ids[0], ids)
	}
}

// unreadPeople is a partial state of three people it has not read, n1
// enriched, found by search.s and (n2) search.t.
func unreadPeople(t *testing.T) *State {
	t.Helper()
	return unreadPeopleIn(t, func(m *memPeople) PeopleStore { return m })
}

// unreadPeopleIn is unreadPeople over the store wrap makes of the whole
// state's.
func unreadPeopleIn(t *testing.T, wrap func(*memPeople) PeopleStore) *State {
	t.Helper()
	whole := New()
	whole.People = map[string]*Person{
		"n1": {ID: "n1", FoundBy: []string{"search.s"}, Enrichment: &Enrichment{By: "enrich.e"}},
		"n2": {ID: "n2", FoundBy: []string{"search.s", "search.t"}},
		"n3": {ID: "n3", FoundBy: []string{"search.s"}},
	}
	records := New()
	for addr, ids := range map[string][]string{"search.s": {"n1", "n2", "n3"}, "search.t": {"n2"}} {
		whole.Searches[addr] = &Search{Address: addr, LeadIDs: ids}
		records.Searches[addr] = &Search{Address: addr}
	}
	st, err := NewStoredBase(records, map[string]int{"search.s": 3, "search.t": 1}, wrap(&memPeople{s: whole})).Writable()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// heldForms counts the removal forms st holds.
func heldForms(st *State) int {
	n := 0
	for _, gf := range st.partial.gone {
		n += gf.left
	}
	return n
}

// A person removed in the removal form and made again before the write
// (a search found them again) is deleted by the store, then written anew
// with their whole history: the change names them in People too.
func TestRemovedPersonMadeAgainIsWrittenWhole(t *testing.T) {
	st := New()
	st.Track()
	st.changes.Removed = []string{"n1", "n2"} // removed in the removal form
	st.addPerson(&Person{ID: "n1"})
	ch := st.TakeChanges()
	if _, ok := ch.People["n1"]; !ok || ch.History["n1"] != -1 {
		t.Errorf("n1, made again, is in the change's people: %v, history %d; want true and -1", ok, ch.History["n1"])
	}
	if _, ok := ch.People["n2"]; ok || !slices.Equal(ch.Removed, []string{"n1", "n2"}) {
		t.Errorf("the change names n2 in People: %v, removes %v; want false and [n1 n2]", ok, ch.Removed)
	}
}

// A removal listing someone the store does not hold (removed since, or
// never found) removes the others: Changes.Removed names the people it
// held, so the store deletes their rows (flush builds that list).
func TestRetentionOfSomeoneNotHeldRemovesTheOthers(t *testing.T) {
	st := unreadPeople(t)
	e := retention([]string{"n1", "n2", "n9"})
	if err := st.readFor(&e); err != nil {
		t.Fatal(err)
	}
	if err := st.Fold(e); err != nil {
		t.Fatal(err)
	}
	ch := st.TakeChanges()
	if err := st.CheckWrite(ch); err != nil {
		t.Fatalf("the fold's changes cannot be written: %v", err)
	}
	if !slices.Equal(ch.Removed, []string{"n1", "n2"}) {
		t.Errorf("the change removes %v, want [n1 n2] (n9 is not held)", ch.Removed)
	}
}

// retention is the event of a retention removal of ids on day 14.
func retention(ids []string) Event {
	return Event{At: day(14), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{
		Reason: ForgetRetention, PersonIDs: ids}}
}
