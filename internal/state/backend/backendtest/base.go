package backendtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// testBase: a command that asks the backend for what it needs
// (backend.OpenBase: the local database reads its people on request)
// gets what the state read whole gives: the same counts
// (state.PeopleFacts, with and without a time the quota was read at, and
// Base.CountPeople),
// the same people in the same order, a page at a time (the fixture's
// people are fewer than a page, so the page is made small here too), the
// same track addresses, and for every address the same record and people
// (Base.Holding, state show).
func testBase(t *testing.T, k Kind) {
	whole, want, got := basesOfEvents(t, k)
	defer got.Close()
	same(t, withoutLeads(want), withoutLeads(got), "the records differ from the state read whole")
	got.SetPage(2)
	for _, since := range []*time.Time{nil, ptrTime(At(0)), ptrTime(At(5)), ptrTime(At(30))} {
		wf, err := want.PeopleFacts(since)
		must(t, err, "facts")
		gf, err := got.PeopleFacts(since)
		must(t, err, "facts of the base")
		if d := cmp.Diff(wf, gf); d != "" {
			t.Fatalf("the counts of the people (quota read at %v) differ (-whole +base):\n%s", since, d)
		}
	}
	wantIDs, gotIDs := ids(t, want), ids(t, got)
	if d := cmp.Diff(wantIDs, gotIDs); d != "" || len(wantIDs) == 0 {
		t.Fatalf("the people's IDs differ (-whole +base):\n%s", d)
	}
	if n, err := got.CountPeople(); err != nil || n != len(wantIDs) {
		t.Fatalf("the base counts %d people (%v), want %d", n, err, len(wantIDs))
	}
	var order []string
	must(t, got.EachPerson(func(p *state.Person) error {
		order = append(order, p.ID)
		one := &state.State{People: map[string]*state.Person{p.ID: p}}
		same(t, &state.State{People: map[string]*state.Person{p.ID: whole.People[p.ID]}}, one, "person "+p.ID+" read a page at a time differs")
		return nil
	}), "each person")
	if d := cmp.Diff(wantIDs, order); d != "" {
		t.Fatalf("EachPerson's order differs from the IDs' (-IDs +EachPerson):\n%s", d)
	}
	wt, err := want.TrackAddresses()
	must(t, err, "tracks")
	gt, err := got.TrackAddresses()
	must(t, err, "tracks of the base")
	if d := cmp.Diff(wt, gt); d != "" || len(wt) == 0 {
		t.Fatalf("the track addresses differ (-whole +base):\n%s", d)
	}
	sameQuestions(t, want, got)
	for _, addr := range append(append(whole.Addresses(true), wt...), "person.nobody", "search.nothing") {
		wh, err := want.Holding(addr)
		must(t, err, "holding %s", addr)
		gh, err := got.Holding(addr)
		must(t, err, "holding of the base %s", addr)
		same(t, heldBy(wh, addr), heldBy(gh, addr), "the state holding "+addr+" differs")
	}
	blocks := map[string]kind.Kind{"enrich.contacts": kind.Enrich, "enrich.nothing": kind.Enrich, "track.nothing": kind.Track,
		"search.nothing": kind.Search, "profile.nothing": kind.Profile, "import.nothing": kind.Import}
	for _, addr := range wt {
		blocks[addr] = kind.Track
	}
	for addr := range whole.Searches {
		blocks[addr] = kind.Search
	}
	for addr := range whole.Profiles {
		blocks[addr] = kind.Profile
	}
	for addr := range whole.Imports {
		blocks[addr] = kind.Import
	}
	sameBlockPeople(t, want, got, blocks)
}

// sameBlockPeople: what a stored Base holds of each block instance
// (leadsync output: BlockPeople, BlockCount) is what the state read whole
// holds; the fixture's enrich.contacts holds an enrichment it made and
// one it copied from another workspace.
func sameBlockPeople(t *testing.T, want, got *state.Base, blocks map[string]kind.Kind) {
	t.Helper()
	for addr, k := range blocks {
		wids, wrec, err := want.BlockPeople(k, addr)
		must(t, err, "people of %s", addr)
		gids, grec, err := got.BlockPeople(k, addr)
		must(t, err, "people of %s in the base", addr)
		slices.Sort(wids)
		slices.Sort(gids)
		if d := cmp.Diff(wids, gids); d != "" || wrec != grec {
			t.Fatalf("the people of %s differ (recorded %v, %v; -whole +base):\n%s", addr, wrec, grec, d)
		}
		n, rec, err := got.BlockCount(k, addr)
		must(t, err, "count of %s", addr)
		if n != len(wids) || rec != wrec {
			t.Fatalf("the base counts %d people of %s (recorded %v), the state read whole holds %d (%v)", n, addr, rec, len(wids), wrec)
		}
	}
	if ids, _, _ := want.BlockPeople(kind.Enrich, "enrich.contacts"); len(ids) < 2 {
		t.Fatalf("the fixture's enrich.contacts holds %d people, want its own and a copy", len(ids))
	}
}

// sameQuestions: the questions an export asks (the people with a
// history, the companies' domains, which IDs name a person, each
// search's lead IDs) get the same
// answers from the store as from the state read whole.
func sameQuestions(t *testing.T, want, got *state.Base) {
	wc, err := want.Changed()
	must(t, err, "changed")
	gc, err := got.Changed()
	must(t, err, "changed of the base")
	if d := cmp.Diff(wc, gc); d != "" || len(wc) == 0 {
		t.Fatalf("the people with a history differ (-whole +base):\n%s", d)
	}
	wd, err := want.CompanyDomains()
	must(t, err, "company domains")
	gd, err := got.CompanyDomains()
	must(t, err, "company domains of the base")
	if d := cmp.Diff(wd, gd); d != "" || len(wd) == 0 {
		t.Fatalf("the company domains differ (-whole +base):\n%s", d)
	}
	// Of one domain only, as an exclude block by domain asks.
	keep := func(d string) bool { return d == wd[0].Domain }
	wk, err := want.CompanyDomainsOf(keep)
	must(t, err, "company domains of one domain")
	gk, err := got.CompanyDomainsOf(keep)
	must(t, err, "company domains of one domain of the base")
	if d := cmp.Diff(wk, gk); d != "" || len(wk) == 0 || len(wk) == len(wd) {
		t.Fatalf("the company domains of %s differ (-whole +base), or are all of them (%d):\n%s", wd[0].Domain, len(wd), d)
	}
	asked := append(ids(t, want), "nobody", "")
	we, err := want.Exist(asked)
	must(t, err, "exist")
	ge, err := got.Exist(asked)
	must(t, err, "exist of the base")
	if d := cmp.Diff(we, ge); d != "" || len(we) != len(asked)-2 {
		t.Fatalf("the people that exist differ (-whole +base):\n%s", d)
	}
	sameAbsent(t, want, got, asked)
	for addr := range want.Records.Searches {
		wl, err := want.LeadIDs(addr)
		must(t, err, "lead IDs of %s", addr)
		gl, err := got.LeadIDs(addr)
		must(t, err, "lead IDs of %s of the base", addr)
		if d := cmp.Diff(wl, gl); d != "" {
			t.Fatalf("the lead IDs of %s differ (-whole +base):\n%s", addr, d)
		}
	}
}

// sameAbsent: the IDs of asked that name no person (Absent, the store's
// AbsentFinder) are those the state read whole holds no person of: the
// two asked that name no one.
func sameAbsent(t *testing.T, want, got *state.Base, asked []string) {
	t.Helper()
	wa, err := want.Absent(asked)
	must(t, err, "absent")
	ga, err := got.Absent(asked)
	must(t, err, "absent of the base")
	slices.Sort(wa)
	slices.Sort(ga)
	if d := cmp.Diff(wa, ga); d != "" || len(wa) != 2 {
		t.Fatalf("the IDs of no one differ (-whole +base):\n%s", d)
	}
}

func ids(t TB, b *state.Base) []string {
	var out []string
	for id, err := range b.PersonIDs() {
		must(t, err, "person IDs")
		out = append(out, id)
	}
	return out
}

// withoutLeads is a copy of b's records with each search's lead IDs
// replaced by their number (a stored Base reads them when asked, and
// Base.Holding, compared below, holds them).
func withoutLeads(b *state.Base) *state.State {
	c := *b.Records
	c.Searches = map[string]*state.Search{}
	for addr, sr := range b.Records.Searches {
		cp := *sr
		cp.LeadIDs = []string{fmt.Sprintf("%d kept", b.Kept(addr))}
		c.Searches[addr] = &cp
	}
	return &c
}

// heldBy is what Base.Holding(addr) gives that the records do not: the
// people, and the search at addr with its lead IDs.
func heldBy(s *state.State, addr string) *state.State {
	h := &state.State{People: s.People, Searches: map[string]*state.Search{}}
	if sr := s.Searches[addr]; sr != nil {
		h.Searches[addr] = sr
	}
	return h
}

// testBaseHonoursErasures: an erasure recorded elsewhere after the state
// was written holds in a Base as in Load: the person erased is neither
// read nor counted.
func testBaseHonoursErasures(t *testing.T, k Kind) {
	open := k.New(t)
	b := open("", Alice)
	defer backend.Close(b)
	keeper, ok := backend.ErasuresOf(b)
	if !ok {
		t.Skip("the backend keeps no erasure record")
	}
	Apply(t, b, []state.Event{{At: At(1), Kind: state.EventSearch, Address: "search.x", Search: &state.SearchEvent{Generation: api.Gen1,
		Request: []byte(`{"keywords":"x"}`), Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")}}}})
	anna := &state.Person{ID: "n1", Lead: lead("n1", "anna", "Anna")}
	must(t, keeper.RecordErasures([]*state.Suppression{{Keys: append(state.IdentifierKeys("anna"), state.PersonKeys(anna)...), At: At(2)}}), "record the erasure")
	base, err := backend.OpenBase(open("", Bob))
	must(t, err, "open base")
	defer base.Close()
	p, err := base.Person("n1")
	must(t, err, "person")
	f, err := base.PeopleFacts(nil)
	must(t, err, "facts")
	if p != nil || f.Total != 1 || !base.Records.IsSuppressed(lead("n1", "", "")) {
		t.Fatalf("the base holds Anna (%v), counts %d people, or does not suppress her", p != nil, f.Total)
	}
}

// basesOfEvents applies Events on a new backend of k and returns the
// state read whole, its Base (want) and the Base the backend opens (got,
// to be closed by the caller).
func basesOfEvents(t *testing.T, k Kind) (whole *state.State, want, got *state.Base) {
	t.Helper()
	open := k.New(t)
	Apply(t, open("", Alice), Events())
	whole, err := loadOnce(open("", Bob))
	must(t, err, "load")
	got, err = backend.OpenBase(open("", Alice))
	must(t, err, "open base")
	return whole, state.NewBase(whole), got
}

// storedOfEvents is basesOfEvents' state read whole and the Base the
// backend opens, closed when the test ends; the test is skipped when
// that Base holds its state whole (it answers from memory).
func storedOfEvents(t *testing.T, k Kind) (whole *state.State, got *state.Base) {
	t.Helper()
	whole, _, got = basesOfEvents(t, k)
	t.Cleanup(func() { got.Close() })
	if _, stored := got.Whole(); stored {
		t.Skip("the backend reads its state whole: it answers from memory")
	}
	return whole, got
}
