package backendtest

import (
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// ErasureRecord: the erasure record (backend.ErasureKeeper) is shared by
// every workspace and honoured wherever a state is read or pushed: a
// workspace made after the erasure suppresses the person its searches
// bring, and an old state pushed later loses them. It holds hashes only.
func testErasureRecord(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	dach := open("dach", Alice)
	defer backend.Close(dach)
	must(t, set.CreateWorkspace("dach"), "create dach")
	keeper, ok := backend.ErasuresOf(dach)
	if !ok {
		t.Skip("the backend keeps no erasure record")
	}
	search := func(at int) state.Event {
		return state.Event{At: At(at), Kind: state.EventSearch, Address: "search.x", Search: &state.SearchEvent{Generation: api.Gen1,
			Request: []byte(`{"keywords":"x"}`), Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")}}}
	}
	// An old state of Anna, kept as a file, to be pushed later.
	old := Fold(t, []state.Event{search(1)})

	// Anna is erased (as leadsync forget records it first).
	anna := &state.Person{ID: "n1", Lead: lead("n1", "anna", "Anna")}
	entry := &state.Suppression{Keys: append(state.IdentifierKeys("anna"), state.PersonKeys(anna)...), At: At(2)}
	must(t, keeper.RecordErasures([]*state.Suppression{entry, entry}), "record the erasure")
	got, err := keeper.Erasures()
	must(t, err, "read the record")
	if len(got) != 1 || state.EntryKey(got[0].Keys) != state.EntryKey(entry.Keys) || !got[0].At.Equal(At(2)) {
		t.Fatalf("record %+v, want the one entry", got)
	}
	for _, key := range got[0].Keys {
		if key == "anna" || key == "n1" {
			t.Fatalf("the record names the person: %v", got[0].Keys)
		}
	}

	// A workspace made after the erasure: its search does not bring Anna.
	must(t, set.CreateWorkspace("uk"), "create uk")
	uk := open("uk", Bob)
	defer backend.Close(uk)
	s := Apply(t, uk, []state.Event{search(3)})
	if s.People["n1"] != nil || s.People["n2"] == nil {
		t.Fatalf("uk after its search holds %v: Anna is erased", keysOf(s.People))
	}
	s, err = loadOnce(open("uk", Alice))
	must(t, err, "load uk")
	if s.People["n1"] != nil || !s.IsSuppressed(lead("n1", "", "")) {
		t.Fatalf("uk as stored holds Anna, or does not suppress her")
	}

	// The old state pushed into dach: Anna is not brought back.
	p := pusher(t, dach)
	u, err := dach.Lock("state push")
	must(t, err, "lock dach")
	must(t, p.Push(old, true), "push the old state")
	must(t, u.Unlock(), "unlock")
	s, err = loadOnce(open("dach", Bob))
	must(t, err, "load dach")
	if s.People["n1"] != nil || s.People["n2"] == nil || !s.IsSuppressed(lead("n1", "", "")) {
		t.Fatalf("dach after the push of an old state holds %v", keysOf(s.People))
	}
}

func keysOf[T any](m map[string]*T) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
