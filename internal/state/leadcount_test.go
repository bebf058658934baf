package state

import "testing"

// A partial state answers LeadCount of a list it counted (CountLeads)
// with the store's count while the list is unread and no removal cut it;
// read, the list answers. The store's counts here differ from the lists
// so that the answer says where it came from.
func TestLeadCountHoldsWhileTheListIsUnreadAndUncut(t *testing.T) {
	whole := New()
	whole.People = map[string]*Person{
		"n1": {ID: "n1", FoundBy: []string{"search.s"}},
		"n2": {ID: "n2", FoundBy: []string{"search.s", "search.t"}},
	}
	records := New()
	for addr, ids := range map[string][]string{"search.s": {"n1", "n2"}, "search.t": {"n2"}} {
		whole.Searches[addr] = &Search{Address: addr, LeadIDs: ids}
		records.Searches[addr] = &Search{Address: addr}
	}
	b := NewStoredBase(records, map[string]int{"search.s": 7, "search.t": 5}, &memPeople{s: whole})
	st, err := b.Writable()
	if err != nil {
		t.Fatal(err)
	}
	b.CountLeads(st, []string{"search.s", "search.t", "search.none"})
	if s, tc, none := st.LeadCount("search.s"), st.LeadCount("search.t"), st.LeadCount("search.none"); s != 7 || tc != 5 || none != 0 {
		t.Fatalf("counted: search.s %d, search.t %d, search.none %d; want 7, 5 and 0", s, tc, none)
	}
	if err := st.ReadLeads("search.t"); err != nil {
		t.Fatal(err)
	}
	if n := st.LeadCount("search.t"); n != 1 {
		t.Errorf("search.t read counts %d, want its list's 1", n)
	}
	e := retention([]string{"n1"})
	if err := st.readFor(&e); err != nil {
		t.Fatal(err)
	}
	if err := st.Fold(e); err != nil {
		t.Fatal(err)
	}
	if n := st.LeadCount("search.s"); n == 7 {
		t.Errorf("search.s, cut by the removal, counts the store's 7 from before the cut")
	}
}
