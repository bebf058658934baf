package state

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
)

// TestTrackRecord: each track read notes the track on the person read;
// the track's record is its people, the latest read first, with what it
// saw change and their status; a person read by two tracks is in both.
func TestTrackRecord(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben"), lead("n3", "cleo", "Cleo")))
	if s.TrackRecordOf("track.a") != nil || len(s.TrackAddresses()) != 0 {
		t.Fatal("a track record before any read")
	}
	mustFold(t, s, trackEv(day(1), "track.a", "n1", "VP", "Rheinbank"))
	mustFold(t, s, Event{At: day(2), Kind: EventTrack, Address: "track.a", Track: &TrackEvent{PersonID: "n2", Gone: true}})
	mustFold(t, s, trackEv(day(3), "track.b", "n1", "VP", "Rheinbank"))
	mustFold(t, s, Event{At: day(3), Kind: EventTrack, Address: "track.b", Track: &TrackEvent{PersonID: "n3", Profile: &person.Profile{Private: true}}})

	if got := s.TrackAddresses(); len(got) != 2 || got[0] != "track.a" || got[1] != "track.b" {
		t.Fatalf("track addresses %v", got)
	}
	if k := s.Kind("track.a"); k != "track" {
		t.Errorf("Kind(track.a) = %q", k)
	}
	if k := s.Kind("track.c"); k != "" {
		t.Errorf("Kind(track.c) = %q", k)
	}
	a := s.TrackRecordOf("track.a")
	if len(a.People) != 2 || a.People[0].PersonID != "n2" || a.People[1].PersonID != "n1" || !a.LastRead.Equal(day(2)) {
		t.Fatalf("track.a: %+v", a)
	}
	// Anna's company was unknown before: a title changed, no company.
	if a.Changes[DriftTitle] != 1 || a.Changes[DriftCompany] != 0 || a.Changes[DriftStatus] != 1 || a.Left != 1 || a.Private != 0 {
		t.Errorf("track.a counts: changes %v, left %d, private %d", a.Changes, a.Left, a.Private)
	}
	if p := a.People[0]; p.Status != StatusLeft || p.StatusSince == nil || len(p.Changes) != 1 || p.Changes[0].After != StatusLeft {
		t.Errorf("Ben in track.a: %+v", p)
	}
	// track.b saw no change of Anna (track.a had seen it), and Cleo's
	// first read found her private: no change either.
	b := s.TrackRecordOf("track.b")
	if len(b.People) != 2 || b.Private != 1 || b.Changes[DriftTitle]+b.Changes[DriftCompany]+b.Changes[DriftStatus] != 0 {
		t.Errorf("track.b: %+v", b)
	}
	for _, p := range b.People {
		if !p.ReadAt.Equal(day(3)) || p.Changes == nil {
			t.Errorf("track.b person %+v", p)
		}
	}
}

// TestForgetTrack: state rm track.X (EventForget) drops X's reads, and
// the people read by X only have no read time left (the next plan finds
// them due); a read by another track or a profile block still counts; the
// profile X's read brought is kept, its history and status too.
func TestForgetTrack(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")))
	mustFold(t, s, profileEv(day(1), "profile.founder", "cleo", "Cleo"))
	cleo := s.Person(s.Profiles["profile.founder"].PersonID)
	mustFold(t, s, trackEv(day(2), "track.a", "n1", "VP", "Rheinbank"))    // Anna: track.a only
	mustFold(t, s, trackEv(day(2), "track.a", "n2", "CTO", ""))            // Ben: track.a, then track.b
	mustFold(t, s, trackEv(day(4), "track.b", "n2", "CTO", ""))            //
	mustFold(t, s, trackEv(day(3), "track.a", cleo.ID, "Founder", "ACME")) // Cleo: the profile block, then track.a
	mustFold(t, s, Event{At: day(5), Kind: EventTrack, Address: "track.b", Track: &TrackEvent{PersonID: "n1", Gone: true}})
	mustFold(t, s, Event{At: day(5), Kind: EventForget, Address: "track.b"}) // Anna's only other read was track.b's
	anna := s.People["n1"]
	if anna.Status != StatusLeft || len(anna.History) != 2 {
		t.Fatalf("Anna after track.b is removed: status %q, history %+v", anna.Status, anna.History)
	}
	if c := anna.Checked(); c == nil || !c.Equal(day(2)) {
		t.Errorf("Anna's check after track.b is removed: %v, want track.a's read of day 2", c)
	}
	mustFold(t, s, Event{At: day(6), Kind: EventForget, Address: "track.a"})
	if s.Kind("track.a") != "" || s.Kind("track.b") != "" || len(s.TrackAddresses()) != 0 {
		t.Fatalf("tracks left after both are removed: %v", s.TrackAddresses())
	}
	if anna.Checked() != nil || anna.Tracked != nil || anna.Profile == nil || anna.Lead.Title != "VP" {
		t.Errorf("Anna: checked %v, tracked %v, profile kept %v, title %q; want no read time, what was read kept",
			anna.Checked(), anna.Tracked, anna.Profile != nil, anna.Lead.Title)
	}
	if ben := s.People["n2"]; ben.Checked() != nil {
		t.Errorf("Ben read by both removed tracks is still checked at %v", ben.Checked())
	}
	if c := cleo.Checked(); c == nil || !c.Equal(day(1)) {
		t.Errorf("Cleo's check: %v, want the profile block's read of day 1", c)
	}
}

// TestTrackRecordLeavesWithThePerson: an erasure and retention take the
// track's record of the person with them, and a re-key keeps it.
func TestTrackRecordLeavesWithThePerson(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, person.Lead{PageName: "anna", FullName: "Anna", Title: "CTO"}, lead("n2", "ben", "Ben"), lead("n3", "cleo", "Cleo")))
	mustFold(t, s, trackEv(day(1), "track.a", "page:anna", "VP", "ACME"))
	mustFold(t, s, trackEv(day(1), "track.a", "n2", "CTO", "ACME"))
	mustFold(t, s, trackEv(day(1), "track.a", "n3", "CTO", "ACME"))
	// Anna's networkId arrives: re-keyed, her track read with her.
	mustFold(t, s, searchEv(day(2), "search.cto", 0, person.Lead{NetworkID: "n1", PageName: "anna", FullName: "Anna", Title: "VP"}, lead("n2", "ben", "Ben"), lead("n3", "cleo", "Cleo")))
	if p := s.People["n1"]; p == nil || !p.Tracked["track.a"].Equal(day(1)) {
		t.Fatalf("Anna re-keyed: %+v", p)
	}
	mustFold(t, s, Event{At: day(3), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{Reason: ForgetErasure, PersonIDs: []string{"n1"}}})
	mustFold(t, s, Event{At: day(3), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{Reason: ForgetRetention, PersonIDs: []string{"n3"}}})
	rec := s.TrackRecordOf("track.a")
	if rec == nil || len(rec.People) != 1 || rec.People[0].PersonID != "n2" {
		t.Fatalf("track.a after an erasure and retention: %+v", rec)
	}
	s.RemovePerson("n2")
	if s.TrackRecordOf("track.a") != nil || s.Kind("track.a") != "" {
		t.Error("a track whose people are all gone is still in state")
	}
}

// TestEmailNotCurrent: the e-mail of an enrichment is not current when the
// company changed after it, or the profile was found gone after it (which
// says more, and wins); an e-mail found after the person left is current.
func TestEmailNotCurrent(t *testing.T) {
	at := func(d int) *time.Time { t := day(d); return &t }
	enriched := &Enrichment{EnrichedAt: day(2), Result: person.EnrichedProfile{Email: "a@x.example"}}
	company := Drift{Field: DriftCompany, Before: "A", After: "B", At: day(3)}
	for _, c := range []struct {
		name string
		p    Person
		want string
	}{
		{"never enriched", Person{Status: StatusLeft, StatusSince: at(3)}, ""},
		{"current", Person{Enrichment: enriched}, ""},
		{"company changed before", Person{Enrichment: enriched, History: []Drift{{Field: DriftCompany, At: day(1)}}}, ""},
		{"company changed after", Person{Enrichment: enriched, History: []Drift{company}}, EmailFormerEmployer},
		{"private after", Person{Enrichment: enriched, Status: StatusPrivate, StatusSince: at(3)}, ""},
		{"left after", Person{Enrichment: enriched, Status: StatusLeft, StatusSince: at(3)}, EmailLeftNetwork},
		{"left, since unknown", Person{Enrichment: enriched, Status: StatusLeft}, EmailLeftNetwork},
		{"left and company changed", Person{Enrichment: enriched, Status: StatusLeft, StatusSince: at(4), History: []Drift{company}}, EmailLeftNetwork},
		{"enriched after leaving", Person{Enrichment: enriched, Status: StatusLeft, StatusSince: at(1)}, ""},
	} {
		if got := c.p.EmailNotCurrent(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if cur := c.p.CurrentEmail(); (cur != "") != (c.p.Enrichment != nil && c.want == "") {
			t.Errorf("%s: current e-mail %q", c.name, cur)
		}
	}
	s := New()
	s.People["a"] = &Person{ID: "a", Enrichment: enriched, Status: StatusLeft, StatusSince: at(3), History: []Drift{company}}
	s.People["b"] = &Person{ID: "b", Enrichment: enriched, History: []Drift{company}}
	if c := s.DriftCounts(); c.LeftEmails != 1 || c.StaleEmails != 1 {
		t.Errorf("drift counts: %d e-mails of people who left, %d of a former employer; want 1 and 1", c.LeftEmails, c.StaleEmails)
	}
}
