package backendtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// partialTrackFolds are the events of a run of track reads and imports,
// each folded one after the other into the state read whole and into a
// partial state (after partialFoldSetup and partialFolds): a new job
// (history), a private profile public again, a profile gone (status
// left), a person named by page name ("page:ben", which two people
// share in other letters' case: the one State.Person finds is read; and
// "page:uli", re-keyed since), an erased person and one the state never
// held (nothing changes), a second track reading a person; an import
// re-keying a person known by page name only (the lead list of the
// search that found them changes), giving a known person a newer e-mail
// (history), finding one by page name in another letter case, adopting
// new people (one by page name only), skipping an erased one; the same
// block imported again without some of its people (they lose it), and a
// block of the fixture imported again (its people before lose it).
func partialTrackFolds() []state.Event {
	track := func(min int, addr, id string, p *person.Profile) state.Event {
		return state.Event{At: At(min), Kind: state.EventTrack, Address: addr, Track: &state.TrackEvent{PersonID: id, Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"` + id + `"}`), Profile: p, Gone: p == nil}}
	}
	job := func(title, company string) *person.Profile {
		return &person.Profile{FullName: "Someone", CurrentPosition: []person.Position{{JobTitle: title, Company: company}}}
	}
	imp := func(min int, addr string, people ...person.EnrichedProfile) state.Event {
		ie := &state.ImportEvent{File: addr + ".csv", Digest: fmt.Sprintf("d%d", min), Rows: len(people)}
		for _, p := range people {
			ie.People = append(ie.People, state.ImportedPerson{Result: p, EnrichedAt: ptrTime(At(min - 1))})
		}
		return state.Event{At: At(min), Kind: state.EventImport, Address: addr, Import: ie}
	}
	return []state.Event{
		track(60, "track.champions", "n7", job("CTO", "Gray & Söhne AG")),
		track(61, "track.champions", "n1", job("Chief Revenue Officer", "ACME & Co")),
		track(62, "track.watch", "page:ben", job("CTO", "Other GmbH")),
		track(63, "track.champions", "n5", nil),
		track(64, "track.champions", "n6", job("CEO", "Fay Co")),
		track(65, "track.champions", "n99", job("CEO", "Nobody")),
		track(66, "track.watch", "page:uli", &person.Profile{Private: true}),
		track(67, "track.watch", "n1", job("Chief Revenue Officer", "ACME & Co")),
		{At: At(68), Kind: state.EventSearch, Address: "search.q", Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"q"}`), Leads: []person.Lead{{PageName: "Quinn", FullName: "Quinn"}}}},
		imp(69, "import.crm",
			person.EnrichedProfile{NetworkID: "n40", PageName: "QUINN", Email: "quinn@acme.example"},
			person.EnrichedProfile{NetworkID: "n1", PageName: "anna", Email: "anna@new.example"},
			person.EnrichedProfile{PageName: "IVY", Email: "ivy@old.example"},
			person.EnrichedProfile{NetworkID: "n6", PageName: "fay", Email: "fay@acme.example"},
			person.EnrichedProfile{NetworkID: "n41", PageName: "newbie", FullName: "New Bie", Email: "newbie@acme.example"},
			person.EnrichedProfile{PageName: "ghost", FullName: "Ghost"}),
		imp(70, "import.crm",
			person.EnrichedProfile{NetworkID: "n40", PageName: "quinn"},
			person.EnrichedProfile{NetworkID: "n42", PageName: "GHOST", Email: "ghost@acme.example"}),
		imp(71, "import.legacy", person.EnrichedProfile{NetworkID: "n9", PageName: "jon"}),
		track(72, "track.watch", "n40", job("COO", "ACME & Co")),
	}
}

// testPartialTrackFolds: the events of a run of track reads and imports
// leave the same stored state whether they are folded into the state
// read whole or into a partial state, which reads what each fold changes
// first; folded one after the other into one partial state, as an apply
// records them, they leave the state they fold into read whole.
func testPartialTrackFolds(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	setup := append(partialFoldSetup(), partialFolds()...)
	Apply(t, open("", Alice), setup)
	Apply(t, wholeOpen("", Alice), setup)
	foldEachAlike(t, open, wholeOpen, partialTrackFolds())
	foldsInOnePartial(t, k.New(t), setup, partialTrackFolds())
}

// foldsInOnePartial records evs into one partial state of the state of
// setup, as an apply does (journal, folds, commit), and checks the state
// committed is that of every event folded whole.
func foldsInOnePartial(t *testing.T, open func(string, Who) backend.Backend, setup, evs []state.Event) {
	Apply(t, open("", Alice), setup)
	b := open("", Bob)
	defer backend.Close(b)
	l, base, s := lockedPartial(t, b, "apply")
	defer l.Unlock()
	rec, err := b.OpenJournal(s)
	must(t, err, "open journal")
	for i, e := range evs {
		must(t, rec.Append(&e), "append %d", i)
		must(t, s.Fold(e), "fold %d", i)
	}
	must(t, rec.Close(), "close the journal")
	must(t, base.Close(), "close the base")
	must(t, b.Commit(s), "commit")
	got, err := loadOnce(open("", Alice))
	must(t, err, "load")
	same(t, Fold(t, append(slices.Clone(setup), evs...)), got, "the state after one apply of every event (-folded whole +partial)")
}
