package plan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

func (f *fixture) track(name string, every time.Duration, from ...string) *config.Track {
	t := &config.Track{Address: "track." + name, Addr: typed("track." + name), Name: name, From: from, Every: every}
	f.cfg.Tracks = append(f.cfg.Tracks, t)
	return t
}

// trackRead records a track read of person id at at, showing title at
// company (gone: the profile is gone).
func (f *fixture) trackRead(addr, id string, at time.Time, title, company string, gone bool) {
	te := &state.TrackEvent{PersonID: id, Generation: api.Gen1, Request: []byte(`{"pageName":"x"}`), Gone: gone}
	if !gone {
		te.Profile = &person.Profile{CurrentPosition: []person.Position{{JobTitle: title, Company: company}}}
	}
	f.apply(state.Event{At: at, Kind: state.EventTrack, Address: addr, Track: te})
}

func TestTrackCountsThePeopleDue(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 5)...)
	f.track("champions", 30*day, "search.cto")
	// Two read within 30 days, one 40 days ago, two never.
	f.trackRead("track.champions", ids(1, 1)[0], t0.Add(-3*day), "CTO", "Co "+ids(1, 1)[0], false)
	f.trackRead("track.champions", ids(2, 1)[0], t0.Add(-29*day), "CTO", "Co "+ids(2, 1)[0], false)
	f.trackRead("track.champions", ids(3, 1)[0], t0.Add(-40*day), "CTO", "Co "+ids(3, 1)[0], false)
	p := f.build(t, f.opts())
	c := p.Change("track.champions")
	if c == nil || c.Action != Track || c.Kind != kind.Track || c.Calls != 3 || c.CallsMax != 3 || c.Credits != 0 || c.CreditsMax != 0 {
		t.Fatalf("track change %+v", c)
	}
	if want := []string{ids(3, 1)[0], ids(4, 1)[0], ids(5, 1)[0]}; !slices.Equal(c.PersonIDs, want) {
		t.Errorf("people %q, want %q", c.PersonIDs, want)
	}
	if !strings.Contains(c.Detail, "3 of 5 people due (every 30d); requests, no credits; 2 read within 30d") {
		t.Errorf("detail %q", c.Detail)
	}
	tt := p.Totals
	if tt.Tracks != 3 || tt.Calls != 3 || tt.CallsMax != 3 || tt.Credits != 0 || tt.QuotaCalls != 3 || tt.QuotaCallsMax != 3 {
		t.Errorf("totals %+v", tt)
	}

	// --replace reads everyone again.
	o := f.opts()
	o.Replace = []string{"track.champions"}
	if c := f.build(t, o).Change("track.champions"); c.Calls != 5 || c.Reason != ReasonReplace {
		t.Errorf("replace: %+v", c)
	}
	// When nobody is due, nothing is read, and the detail says when.
	for _, id := range ids(1, 5) {
		f.trackRead("track.champions", id, t0.Add(-time.Hour), "CTO", "Co "+id, false)
	}
	c = f.build(t, f.opts()).Change("track.champions")
	if c.Action != None || c.Calls != 0 || !strings.Contains(c.Detail, "5 people read within 30d; next due in 29 days") {
		t.Errorf("up to date: %+v", c)
	}

}

// TestTrackDueAgainAfterStateRm: leadsync state rm track.X (an
// EventForget of its address) forgets its reads: the next plan reads its
// people again, but not one a profile block read within every.
func TestTrackDueAgainAfterStateRm(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 3)...)
	f.profile("profile.boss", "page-"+ids(3, 1)[0])
	f.read("profile.boss", t0.Add(-2*day))
	f.track("champions", 30*day, "search.cto")
	for _, id := range ids(1, 3) {
		f.trackRead("track.champions", id, t0.Add(-day), "CTO", "Co "+id, false)
	}
	if c := f.build(t, f.opts()).Change("track.champions"); c.Calls != 0 {
		t.Fatalf("read a day ago, yet %d due: %s", c.Calls, c.Detail)
	}
	f.apply(state.Event{At: t0, Kind: state.EventForget, Address: "track.champions"})
	c := f.build(t, f.opts()).Change("track.champions")
	if want := ids(1, 2); c.Calls != 2 || !slices.Equal(c.PersonIDs, want) || !strings.Contains(c.Detail, "1 read within 30d") {
		t.Errorf("after state rm: %d due %q (%s); want %q, the profile block's read still counting", c.Calls, c.PersonIDs, c.Detail, want)
	}
}

func TestTrackSharesReads(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 3)...)
	// A profile block of one of them, never read: read by it, not twice.
	f.profile("profile.boss", "page-"+ids(2, 1)[0])
	f.track("a", 30*day, "search.cto")
	f.track("b", 7*day, "search.cto", "profile.boss")
	// One without a page name cannot be read.
	f.st.People[ids(3, 1)[0]].Lead.PageName = ""
	p := f.build(t, f.opts())
	a, b := p.Change("track.a"), p.Change("track.b")
	if !slices.Equal(a.PersonIDs, []string{ids(1, 1)[0]}) || !strings.Contains(a.Detail, "1 read by a profile block of this run") ||
		!strings.Contains(a.Detail, "1 without a page name") {
		t.Errorf("track.a %+v", a)
	}
	if b.Calls != 0 || b.Action != None || !strings.Contains(b.Detail, "1 read by another track of this run") {
		t.Errorf("track.b %+v", b)
	}
	// Nobody was read before: track.b's people are not "read within" its
	// every; what it says adds up to its people.
	if want := "3 people (every 7d); 1 read by a profile block of this run; 1 read by another track of this run; 1 without a page name (not readable)"; b.Detail != want {
		t.Errorf("track.b detail %q\nwant               %q", b.Detail, want)
	}
	if tt := p.Totals; tt.Profiles != 1 || tt.Tracks != 1 || tt.CallsMax != 2 {
		t.Errorf("totals %+v", tt)
	}
	// Once some are read within every, those are counted as such, and only
	// those.
	f.trackRead("track.a", ids(1, 1)[0], t0.Add(-day), "CTO", "Co "+ids(1, 1)[0], false)
	b = f.build(t, f.opts()).Change("track.b")
	if want := "1 person read within 7d; next due in 6 days; 1 read by a profile block of this run; 1 without a page name (not readable)"; b.Detail != want {
		t.Errorf("track.b detail %q\nwant               %q", b.Detail, want)
	}
}

func TestTrackOfAnEnrichBlockAndTargets(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 4)...)
	f.enrich("contacts", []string{"search.cto"}, 2, 0)
	f.enriched(ids(1, 1)[0], "enrich.contacts", t0.Add(-time.Hour))
	f.enriched(ids(2, 1)[0], "enrich.other", t0.Add(-time.Hour))
	f.track("champions", 30*day, "enrich.contacts")
	p := f.build(t, f.opts())
	if c := p.Change("track.champions"); !slices.Equal(c.PersonIDs, []string{ids(1, 1)[0]}) {
		t.Errorf("the people of an enrich block are those it enriched: %+v", c)
	}
	// --target a track plans its reads alone: its sources need not run.
	o := f.opts()
	o.Targets = []string{"track.champions"}
	p = f.build(t, o)
	if len(p.Changes) != 1 || p.Changes[0].Address != "track.champions" {
		t.Errorf("targeted plan: %+v", p.Changes)
	}
}

// refresh_on: the plan bounds the re-enrichments with "up to" before the
// track reads, and counts them exactly once the changes are in state.
func TestRefreshOnCompany(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-48*time.Hour), ids(1, 3)...)
	e := f.enrich("contacts", []string{"search.cto"}, 0, 0)
	e.RefreshOn = []string{"company"}
	for _, id := range ids(1, 3) {
		f.enriched(id, "enrich.contacts", t0.Add(-40*day))
	}
	f.track("champions", 30*day, "enrich.contacts")
	// Before the reads: all three may have changed.
	p := f.build(t, f.opts())
	c := p.Change("enrich.contacts")
	if c.Calls != 0 || c.CallsMax != 3 || !strings.Contains(c.Detail, "up to 3 again if the reads of this run find a new company (refresh_on)") {
		t.Fatalf("before the reads: %+v", c)
	}
	if tt := p.Totals; tt.Tracks != 3 || tt.EnrichmentsMax != 3 || tt.CallsMax != 6 || tt.CreditsMax != 3 || tt.Credits != 0 {
		t.Errorf("totals %+v", tt)
	}
	// The reads are in: one changed company, one only title, one left.
	f.trackRead("track.champions", ids(1, 1)[0], t0.Add(-time.Hour), "CTO", "Elsewhere GmbH", false)
	f.trackRead("track.champions", ids(2, 1)[0], t0.Add(-time.Hour), "CEO", "Co "+ids(2, 1)[0], false)
	f.trackRead("track.champions", ids(3, 1)[0], t0.Add(-time.Hour), "", "", true)
	p = f.build(t, f.opts())
	c = p.Change("enrich.contacts")
	if c.Calls != 1 || c.CallsMax != 1 || !slices.Equal(c.PersonIDs, []string{ids(1, 1)[0]}) {
		t.Errorf("after the reads: %+v", c)
	}
	if got := p.Change("track.champions"); got.Calls != 0 {
		t.Errorf("the track has nobody due: %+v", got)
	}
	// refresh_on title too: the title change counts.
	e.RefreshOn = []string{"company", "title"}
	if c := f.build(t, f.opts()).Change("enrich.contacts"); c.Calls != 2 {
		t.Errorf("company or title: %+v", c)
	}
	// Enriched again: nothing more to do.
	f.enriched(ids(1, 1)[0], "enrich.contacts", t0.Add(-time.Minute))
	f.enriched(ids(2, 1)[0], "enrich.contacts", t0.Add(-time.Minute))
	if c := f.build(t, f.opts()).Change("enrich.contacts"); c.CallsMax != 0 {
		t.Errorf("enriched again: %+v", c)
	}
}

// The limit holds with refresh_on: enriching again a person the block
// enriched takes no new place; one enriched by another block takes one.
func TestRefreshOnUnderALimit(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-48*time.Hour), ids(1, 4)...)
	e := f.enrich("contacts", []string{"search.cto"}, 2, 0)
	e.RefreshOn = []string{"company"}
	f.enriched(ids(1, 1)[0], "enrich.contacts", t0.Add(-40*day))
	f.enriched(ids(2, 1)[0], "enrich.contacts", t0.Add(-40*day))
	f.track("champions", 30*day, "search.cto")
	p := f.build(t, f.opts())
	// The limit is used: the two others are not enriched; the two it
	// holds may be enriched again.
	if c := p.Change("enrich.contacts"); c.Calls != 0 || c.CallsMax != 2 {
		t.Errorf("%+v", c)
	}
}

// A person who left the network is enriched neither for the first time
// nor again: the service would refuse the page name.
func TestNoEnrichmentOfSomeoneWhoLeft(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 2)...)
	f.enrich("contacts", []string{"search.cto"}, 0, 0)
	f.trackRead("track.t", ids(1, 1)[0], t0.Add(-time.Minute), "", "", true)
	c := f.build(t, f.opts()).Change("enrich.contacts")
	if !slices.Equal(c.PersonIDs, []string{ids(2, 1)[0]}) {
		t.Errorf("enriches %q, want only the person still on the network", c.PersonIDs)
	}
}

// TestTrackLeavesExcludedOut checks that a track never reads a person an
// exclude block names, and that a track of an enrich block watches the
// people it counts as enriched at no credit (imported with an e-mail).
func TestTrackLeavesExcludedOut(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	people := ids(1, 4)
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("contacts", []string{"search.cto"}, 0, 0)
	f.enriched(people[0], "enrich.contacts", t0.Add(-2*day))
	f.enriched(people[1], "enrich.contacts", t0.Add(-2*day))
	im := f.importBlock("legacy", "d1", t0.Add(-3*day), people[2:3], []bool{true})
	f.imported(im, t0.Add(-2*day))
	f.track("champions", 30*day, "enrich.contacts")
	f.exclude("customers", listfile.Company, "Co "+people[1])

	c := f.build(t, f.opts()).Change("track.champions")
	if want := []string{people[0], people[2]}; c == nil || !slices.Equal(c.PersonIDs, want) {
		t.Fatalf("track reads %v, want %v (not the excluded %s, the imported %s too)", c.PersonIDs, want, people[1], people[2])
	}
	if !strings.Contains(c.Detail, "1 excluded") {
		t.Errorf("detail %q does not count the excluded", c.Detail)
	}
}

// TestTrackOfAnImport checks that a track may watch the people an import
// names, once the import is in the state.
func TestTrackOfAnImport(t *testing.T) {
	f := newFixture()
	people := ids(1, 3)
	im := f.importBlock("legacy", "d1", t0.Add(-3*day), people, []bool{true, false, true})
	f.imported(im, t0.Add(-2*day))
	f.track("champions", 30*day, "import.legacy")
	c := f.build(t, f.opts()).Change("track.champions")
	if c == nil || !slices.Equal(c.PersonIDs, people) {
		t.Fatalf("track of the import reads %+v, want %v", c, people)
	}
}

// TestTrackKeepsWatchingWhoLeftTheSearch: a track watches every person it
// read before, not only those its sources hold now: someone who dropped
// out of a search that ran again (often because they changed jobs) is
// still read when due, and counted in the plan; state rm track.X (an
// EventForget of its address) ends it, and a forgotten person is nobody's.
func TestTrackKeepsWatchingWhoLeftTheSearch(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-40*day), ids(1, 3)...)
	f.track("champions", 30*day, "search.cto")
	for _, id := range ids(1, 3) {
		f.trackRead("track.champions", id, t0.Add(-35*day), "CTO", "Co "+id, false)
	}
	// The search ran again: the third person is no longer in it.
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 2)...)
	p := f.build(t, f.opts())
	c := p.Change("track.champions")
	if want := ids(1, 3); c == nil || c.Calls != 3 || c.CallsMax != 3 || !slices.Equal(c.PersonIDs, want) {
		t.Fatalf("track change %+v; want the reads of %q", c, want)
	}
	if want := "3 of 3 people due (every 30d); requests, no credits; 1 no longer in its sources, still watched (state rm track.champions stops it)"; c.Detail != want {
		t.Errorf("detail %q\nwant   %q", c.Detail, want)
	}
	if p.Totals.Tracks != 3 || p.Totals.QuotaCallsMax != 3 {
		t.Errorf("totals %+v: the reads of the one who left the search are not priced", p.Totals)
	}
	if got := TrackedPeople(f.cfg, f.st, f.cfg.Tracks[0], t0); len(got) != 3 || got[2].ID != ids(3, 1)[0] {
		t.Errorf("TrackedPeople: %d people", len(got))
	}

	// Read within every: not due, still counted among its people.
	f.trackRead("track.champions", ids(3, 1)[0], t0.Add(-day), "CTO", "New Co", false)
	c = f.build(t, f.opts()).Change("track.champions")
	if c.Calls != 2 || !strings.Contains(c.Detail, "2 of 3 people due") || !strings.Contains(c.Detail, "1 read within 30d") {
		t.Errorf("after a read: %+v", c)
	}

	// state rm track.champions forgets the record: only the search's
	// people are its people again.
	f.apply(state.Event{At: t0, Kind: state.EventForget, Address: "track.champions"})
	c = f.build(t, f.opts()).Change("track.champions")
	if want := ids(1, 2); !slices.Equal(c.PersonIDs, want) || strings.Contains(c.Detail, "no longer in its sources") {
		t.Errorf("after state rm: %q (%s); want %q", c.PersonIDs, c.Detail, want)
	}
}

// TestTrackReadsWhoLeftTheNetworkAgain: a person whose last read found
// them gone from the network is read again each every (they may come
// back), and the plan says how many of its reads are of such people.
func TestTrackReadsWhoLeftTheNetworkAgain(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-40*day), ids(1, 3)...)
	f.track("champions", 30*day, "search.cto")
	f.trackRead("track.champions", ids(1, 1)[0], t0.Add(-31*day), "", "", true)
	f.trackRead("track.champions", ids(2, 1)[0], t0.Add(-2*day), "", "", true)
	c := f.build(t, f.opts()).Change("track.champions")
	if want := []string{ids(1, 1)[0], ids(3, 1)[0]}; !slices.Equal(c.PersonIDs, want) {
		t.Errorf("people %q, want %q: who left is read again once every has passed", c.PersonIDs, want)
	}
	if want := "2 of 3 people due (every 30d); requests, no credits; 1 of them left the network (read again in case they came back); 1 read within 30d"; c.Detail != want {
		t.Errorf("detail %q\nwant   %q", c.Detail, want)
	}
}

// TestRefreshOnRerunUnderAFullLimit: with the limit used up, a search that
// runs again may show the block's own people at a new company; each is
// then enriched again (taking no new place), so the bound counts them.
func TestRefreshOnRerunUnderAFullLimit(t *testing.T) {
	f := newFixture()
	s := f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-48*time.Hour), ids(1, 3)...)
	e := f.enrich("contacts", []string{"search.cto"}, 3, 0)
	e.RefreshOn = []string{"company"}
	for _, id := range ids(1, 3) {
		f.enriched(id, "enrich.contacts", t0.Add(-10*day))
	}
	o := f.opts()
	o.Replace = []string{"search.cto"}
	p := f.build(t, o)
	if c := p.Change("enrich.contacts"); c.Calls != 0 || c.CallsMax != 3 {
		t.Fatalf("before the rerun: %d..%d (%s); want up to 3: the rerun may show all three at a new company", c.Calls, c.CallsMax, c.Detail)
	}
	if p.Totals.EnrichmentsMax < 3 {
		t.Errorf("totals %+v", p.Totals)
	}
	// The rerun: every one of them at a new company.
	body, _ := json.Marshal(s.Request)
	leads := make([]person.Lead, 0, 3)
	for _, id := range ids(1, 3) {
		l := lead(id)
		l.Company = "Moved " + id
		leads = append(leads, l)
	}
	f.apply(state.Event{At: t0.Add(-time.Minute), Kind: state.EventSearch, Address: s.Address, Search: &state.SearchEvent{
		Generation: f.cfg.API.Generation, Request: body, RequestHash: state.RequestHash(f.cfg.API.Generation, body), Leads: leads}})
	if c := f.build(t, f.opts()).Change("enrich.contacts"); c.Calls != 3 || c.CallsMax != 3 {
		t.Errorf("after the rerun: %d..%d (%s), want 3", c.Calls, c.CallsMax, c.Detail)
	}
}

// TestRefreshOnWhoLeftTheSearch: a person the block enriched who dropped
// out of its search (often because they changed jobs; a track still
// watches them) stays the block's: refresh_on enriches them again when
// their company changed after the enrichment. Before the track's read it
// is a bound; once the change is in state, an exact count, made once.
// A refresh by age does not bring back someone the sources no longer hold.
func TestRefreshOnWhoLeftTheSearch(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-40*day), ids(1, 3)...)
	e := f.enrich("c", []string{"search.cto"}, 25, 0)
	e.RefreshOn = []string{"company", "title"}
	for _, id := range ids(1, 3) {
		f.enriched(id, "enrich.c", t0.Add(-39*day))
	}
	f.track("all", 30*day, "search.cto")
	for _, id := range ids(1, 3) {
		f.trackRead("track.all", id, t0.Add(-38*day), "CTO", "Co "+id, false)
	}
	// The search ran again: the third person is no longer in it.
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 2)...)
	gone := ids(3, 1)[0]

	// The track reads all three now: each may show a new company.
	c := f.build(t, f.opts()).Change("enrich.c")
	if c.Calls != 0 || c.CallsMax != 3 {
		t.Fatalf("before the reads: %+v", c)
	}
	// The read is in: the one who left the search changed company.
	for _, id := range ids(1, 2) {
		f.trackRead("track.all", id, t0.Add(-time.Minute), "CTO", "Co "+id, false)
	}
	f.trackRead("track.all", gone, t0.Add(-time.Minute), "CTO", "Rheinbank", false)
	p := f.build(t, f.opts())
	c = p.Change("enrich.c")
	if c.Calls != 1 || c.CallsMax != 1 || !slices.Equal(c.PersonIDs, []string{gone}) {
		t.Fatalf("after the reads: %+v", c)
	}
	if want := "1 person; 1 no longer in its sources, enriched again for a new company or title (refresh_on); limit 25, 3 used"; c.Detail != want {
		t.Errorf("detail %q\nwant   %q", c.Detail, want)
	}
	if p.Totals.Enrichments != 1 || p.Totals.EnrichmentsMax != 1 {
		t.Errorf("totals %+v", p.Totals)
	}
	// Apply chooses the same person.
	if got, err := EnrichCandidatesClaimed(f.cfg, f.st, e, t0, nil); err != nil || !slices.Equal(got, []string{gone}) {
		t.Errorf("apply claims %q (%v)", got, err)
	}
	// Enriched again: up to date.
	f.enriched(gone, "enrich.c", t0)
	if c := f.build(t, f.opts()).Change("enrich.c"); c.CallsMax != 0 {
		t.Errorf("enriched again: %+v", c)
	}
	// A refresh by age alone does not enrich them again.
	e.RefreshOn, e.Refresh = nil, day
	o := f.opts()
	o.Now = t0.Add(10 * day)
	if c := f.build(t, o).Change("enrich.c"); c == nil || slices.Contains(c.PersonIDs, gone) || len(c.PersonIDs) != 2 {
		t.Errorf("refresh by age: %+v", c)
	}
}

// TestChangesEqualAsWritten: a track change whose people due in sketch
// are not listed yet equals the same change listed, and writes them
// (MarshalJSON) without listing them; other people, or their order, are
// another change.
func TestChangesEqualAsWritten(t *testing.T) {
	sk := state.TrackSketchesOf([]state.TrackSketch{{ID: "a"}, {ID: "b"}})
	due := &dueList{sketches: sk}
	due.add(trackee{i: 1})
	due.add(trackee{i: 0})
	unlisted := &Change{Kind: kind.Track, due: due}
	listed := &Change{Kind: kind.Track, PersonIDs: []string{"b", "a"}}
	other := &Change{Kind: kind.Track, PersonIDs: []string{"a", "b"}}
	if !unlisted.Equal(listed) || unlisted.Equal(other) || unlisted.Equal(nil) || !(*Change)(nil).Equal(nil) {
		t.Fatalf("equal to the same listed %v, to others %v, to nil %v", unlisted.Equal(listed), unlisted.Equal(other), unlisted.Equal(nil))
	}
	if unlisted.PersonIDs != nil || unlisted.due == nil {
		t.Fatalf("compared, the change lists %q", unlisted.PersonIDs)
	}
}
