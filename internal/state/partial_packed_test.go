package state

import (
	"errors"
	"slices"
	"testing"
)

// packingPeople is memPeople that reads lead lists packed (LeadPacker),
// as the SQL stores do.
type packingPeople struct{ *memPeople }

func (m packingPeople) PackedLeadLists(addrs []string) (map[string]IDList, error) {
	out := map[string]IDList{}
	for _, addr := range addrs {
		out[addr] = PackIDs(m.s.Searches[addr].LeadIDs)
	}
	return out, nil
}

// A partial state's lead lists read packed (ReadLeadsPacked, as an
// apply reads those its plan reads) give their IDs through Leads and
// stay unread: a write of their search is refused. A retention removal
// of people never read cuts them as it cuts a list read, without reading
// any, and the store cuts its own (Changes.Cut). A list read for a fold
// after (ReadLeads) is the store's, cut, with no packed list left.
func TestLeadListsReadPackedStayUnreadTillFolded(t *testing.T) {
	st := unreadPeopleIn(t, func(m *memPeople) PeopleStore { return packingPeople{m} })
	both := []string{"search.s", "search.t"}
	if err := st.ReadLeadsPacked(both); err != nil {
		t.Fatal(err)
	}
	leads := func(addr string) []string { return st.Searches[addr].Leads().Strings() }
	if got := leads("search.s"); !slices.Equal(got, []string{"n1", "n2", "n3"}) || st.Searches["search.s"].LeadIDs != nil || len(st.partial.unread) != 2 {
		t.Fatalf("search.s leads %v, LeadIDs %v, %d lists unread; want [n1 n2 n3] packed, nil and 2", got, st.Searches["search.s"].LeadIDs, len(st.partial.unread))
	}
	if err := st.CheckWrite(&Changes{Searches: map[string]struct{}{"search.s": {}}}); err == nil {
		t.Error("a write of a search whose list was read packed alone was let through")
	}
	e := retention([]string{"n1", "n2"})
	if err := st.readFor(&e); err != nil {
		t.Fatal(err)
	}
	if err := st.Fold(e); err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string][]string{"search.s": {"n3"}, "search.t": {}} {
		if got := leads(addr); !slices.Equal(got, want) {
			t.Errorf("%s leads %v after the removal, want %v", addr, got, want)
		}
	}
	if err := st.ReadLeads("search.s"); err != nil {
		t.Fatal(err)
	}
	if sr := st.Searches["search.s"]; !slices.Equal(sr.LeadIDs, []string{"n3"}) || sr.Packed != nil {
		t.Errorf("search.s read for a fold before the write: LeadIDs %v, packed list kept %v; want [n3] and false", sr.LeadIDs, sr.Packed != nil)
	}
	ch := st.TakeChanges()
	if err := st.CheckWrite(ch); err != nil || len(ch.Cut) != 2 || len(ch.Searches) != 0 || len(st.partial.unread) != 1 {
		t.Errorf("the removal: write %v, %d lists cut by the store, %d searches written, %d unread; want nil, 2, 0, 1", err, len(ch.Cut), len(ch.Searches), len(st.partial.unread))
	}
}

// A partial state reads lead lists packed only before any fold: after a
// retention removal, the store's lists still hold the people it took out
// (only a list read as LeadIDs is cut, cutRead). ReadLeadsPacked then
// reads nothing and names the misuse (ErrPackedAfterFold).
func TestLeadListsReadPackedAfterAFoldAreRefused(t *testing.T) {
	st := unreadPeopleIn(t, func(m *memPeople) PeopleStore { return packingPeople{m} })
	if err := st.Fold(retention([]string{"n1"})); err != nil {
		t.Fatal(err)
	}
	err := st.ReadLeadsPacked([]string{"search.s", "search.t"})
	if !errors.Is(err, ErrPackedAfterFold) {
		t.Fatalf("lead lists read packed after a fold: error %v, want %v", err, ErrPackedAfterFold)
	}
	if sr := st.Searches["search.s"]; sr.Packed != nil || sr.LeadIDs != nil || len(st.partial.unread) != 2 {
		t.Errorf("the refused read kept search.s packed %v, LeadIDs %v, %d lists unread; want nil, nil, 2", sr.Packed != nil, sr.LeadIDs, len(st.partial.unread))
	}
}
