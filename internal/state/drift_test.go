package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// job is a lead of person n1 with a job.
func job(title, company, location string) person.Lead {
	return person.Lead{NetworkID: "n1", PageName: "Anna_Schmidt", FullName: "Anna Schmidt", Title: title, Company: company, Location: location}
}

func mustFold(t *testing.T, s *State, e Event) {
	t.Helper()
	if err := s.Fold(e); err != nil {
		t.Fatal(err)
	}
}

func TestHistoryRecordsWhatCallsSee(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, job("CTO", "Nordlicht Software GmbH", "Berlin, Germany")))
	if h := s.People["n1"].History; len(h) != 0 {
		t.Fatalf("a person first seen has history %+v", h)
	}
	// The same job in another case and spacing is no news.
	mustFold(t, s, searchEv(day(1), "search.cto", 0, job("cto ", "NORDLICHT Software GmbH", "Berlin, Germany")))
	if h := s.People["n1"].History; len(h) != 0 || s.Searches["search.cto"].Changed != 0 {
		t.Fatalf("a change of case recorded: %+v", h)
	}
	// A new job in another city, seen by another search.
	mustFold(t, s, searchEv(day(2), "search.vp", 0, job("VP Engineering", "Rheinbank AG", "Köln, Germany")))
	// In the order of the lead's fields (person.LeadFields).
	want := []Drift{
		{Field: DriftTitle, Before: "cto ", After: "VP Engineering", At: day(2), By: "search.vp", Call: CallSearch},
		{Field: DriftLocation, Before: "Berlin, Germany", After: "Köln, Germany", At: day(2), By: "search.vp", Call: CallSearch},
		{Field: DriftCompany, Before: "NORDLICHT Software GmbH", After: "Rheinbank AG", At: day(2), By: "search.vp", Call: CallSearch},
	}
	if d := cmp.Diff(want, s.People["n1"].History); d != "" {
		t.Fatalf("history (-want +got):\n%s", d)
	}
	if d := cmp.Diff(toSeen("n1", want), s.LastDrifts()); d != "" {
		t.Errorf("LastDrifts (-want +got):\n%s", d)
	}
	if c := s.Searches["search.vp"].Changed; c != 1 {
		t.Errorf("search.vp changed %d people, want 1", c)
	}
	// A fold that sees nothing new reports nothing.
	mustFold(t, s, Event{At: day(2), Kind: EventBilling, Billing: &api.Usage{RemainingRequests: 3}})
	if len(s.LastDrifts()) != 0 {
		t.Errorf("a billing call reported drifts %+v", s.LastDrifts())
	}

	// A profile read sees title and company, never a location.
	mustFold(t, s, Event{At: day(3), Kind: EventProfile, Address: "profile.anna", Profile: &ProfileEvent{
		Generation: api.Gen1, Request: []byte(`{"pageName":"Anna_Schmidt"}`), PageName: "Anna_Schmidt",
		Profile: person.Profile{FullName: "Anna Schmidt", NetworkURL: "https://network.example/profile/Anna_Schmidt",
			CurrentPosition: []person.Position{{JobTitle: "CTO", Company: "Rheinbank AG"}}}}})
	h := s.People["n1"].History
	if len(h) != 4 || h[3] != (Drift{Field: DriftTitle, Before: "VP Engineering", After: "CTO", At: day(3), By: "profile.anna", Call: CallProfile}) {
		t.Fatalf("after the profile read: %+v", h)
	}
}

func toSeen(id string, ds []Drift) []SeenDrift {
	out := make([]SeenDrift, len(ds))
	for i, d := range ds {
		out[i] = SeenDrift{PersonID: id, Drift: d}
	}
	return out
}

func TestHistoryOfTrackReads(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, job("CTO", "Nordlicht Software GmbH", "Berlin, Germany")))
	track := func(at int, gone bool, prof *person.Profile) {
		t.Helper()
		mustFold(t, s, Event{At: day(at), Kind: EventTrack, Address: "track.champions", Track: &TrackEvent{PersonID: "n1", Gone: gone, Profile: prof}})
	}
	pos := func(title, company string) *person.Profile {
		return &person.Profile{FullName: "Anna Schmidt", CurrentPosition: []person.Position{{JobTitle: title, Company: company}}}
	}
	privatePos := func(title, company string) *person.Profile {
		p := pos(title, company)
		p.Private = true
		return p
	}
	type check struct {
		status string
		fields []string // fields of the drifts this read recorded
	}
	steps := []struct {
		name    string
		at      int
		gone    bool
		profile *person.Profile
		want    check
	}{
		{"same job", 1, false, pos("CTO", "Nordlicht Software GmbH"), check{"", nil}},
		{"new job", 2, false, pos("VP Engineering", "Rheinbank AG"), check{"", []string{DriftTitle, DriftCompany}}},
		{"private after a public read", 3, false, &person.Profile{Private: true}, check{StatusPrivate, []string{DriftStatus}}},
		{"still private", 4, false, &person.Profile{Private: true}, check{StatusPrivate, nil}},
		// A private answer that carries positions is read for them.
		{"private, new job", 5, false, privatePos("Head of IT", "Hafen Logistik AG"), check{StatusPrivate, []string{DriftTitle, DriftCompany}}},
		{"private, no position shown", 6, false, &person.Profile{Private: true}, check{StatusPrivate, nil}},
		{"public again, promoted", 7, false, pos("CTO", "Rheinbank AG"), check{"", []string{DriftTitle, DriftCompany, DriftStatus}}},
		{"gone", 8, true, nil, check{StatusLeft, []string{DriftStatus}}},
		{"still gone", 9, true, nil, check{StatusLeft, nil}},
	}
	for _, st := range steps {
		track(st.at, st.gone, st.profile)
		p := s.People["n1"]
		var fields []string
		for _, d := range s.LastDrifts() {
			fields = append(fields, d.Drift.Field)
			if d.Drift.By != "track.champions" || d.Drift.Call != CallTrack || !d.Drift.At.Equal(day(st.at)) {
				t.Errorf("%s: drift %+v not seen by the track read", st.name, d.Drift)
			}
		}
		if p.Status != st.want.status || !cmp.Equal(fields, st.want.fields) {
			t.Errorf("%s: status %q, drifts %v; want %q, %v", st.name, p.Status, fields, st.want.status, st.want.fields)
		}
		if p.CheckedAt == nil || !p.CheckedAt.Equal(day(st.at)) || !p.Checked().Equal(day(st.at)) {
			t.Errorf("%s: checked at %v", st.name, p.CheckedAt)
		}
		// What a private answer does not show stays as last known.
		if st.name == "private, no position shown" && (p.Lead.Company != "Hafen Logistik AG" || p.Profile == nil ||
			len(p.Profile.CurrentPosition) == 0 || p.Profile.CurrentPosition[0].Company != "Hafen Logistik AG") {
			t.Errorf("%s: company %q, profile %+v; want the position the last private read showed", st.name, p.Lead.Company, p.Profile)
		}
	}
	p := s.People["n1"]
	if p.Lead.Title != "CTO" || p.Lead.Company != "Rheinbank AG" {
		t.Errorf("a gone person keeps their last job: %q at %q", p.Lead.Title, p.Lead.Company)
	}
	if p.StatusSince == nil || !p.StatusSince.Equal(day(8)) {
		t.Errorf("left the network since %v, want day 8", p.StatusSince)
	}
	last := p.History[len(p.History)-1]
	if last.Before != "public" || last.After != "left" {
		t.Errorf("the last drift %+v, want public -> left", last)
	}

	// A first read that finds a private profile says nothing of a change.
	mustFold(t, s, searchEv(day(8), "search.cto", 0, person.Lead{NetworkID: "n2", PageName: "Ben", FullName: "Ben", Title: "CTO"}))
	mustFold(t, s, Event{At: day(9), Kind: EventTrack, Address: "track.champions", Track: &TrackEvent{PersonID: "n2", Profile: &person.Profile{Private: true}}})
	if b := s.People["n2"]; b.Status != StatusPrivate || len(b.History) != 0 {
		t.Errorf("first read private: status %q, history %+v", b.Status, b.History)
	}
	// A track read of someone forgotten meanwhile brings nobody back.
	mustFold(t, s, Event{At: day(9), Kind: EventTrack, Address: "track.champions", Track: &TrackEvent{PersonID: "n9", Gone: true}})
	if s.People["n9"] != nil {
		t.Error("a track read of an unknown person made one")
	}
}

func TestHistoryKeepsTheOldEmail(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, job("CTO", "Nordlicht Software GmbH", "Berlin, Germany")))
	mustFold(t, s, enrichEv(day(1), "enrich.cto", "n1", person.EnrichedProfile{NetworkID: "n1", PageName: "Anna_Schmidt",
		Title: "CTO", Company: "Nordlicht Software GmbH", Email: "anna.schmidt@nordlicht.example", ValidationStatus: person.StatusValid}))
	p := s.People["n1"]
	if p.EmailStale() || p.CurrentEmail() != "anna.schmidt@nordlicht.example" {
		t.Fatalf("fresh enrichment: stale %v, current %q", p.EmailStale(), p.CurrentEmail())
	}
	mustFold(t, s, Event{At: day(2), Kind: EventTrack, Address: "track.champions", Track: &TrackEvent{PersonID: "n1",
		Profile: &person.Profile{CurrentPosition: []person.Position{{JobTitle: "CTO", Company: "Rheinbank AG"}}}}})
	if !p.EmailStale() || p.CurrentEmail() != "" {
		t.Fatalf("after a change of company: stale %v, current %q; the old e-mail must not be current", p.EmailStale(), p.CurrentEmail())
	}
	if p.ChangedSince(DriftTitle, day(1)) || !p.ChangedSince(DriftCompany, day(1)) || p.ChangedSince(DriftCompany, day(2)) {
		t.Error("ChangedSince disagrees with the history")
	}
	mustFold(t, s, enrichEv(day(3), "enrich.cto", "n1", person.EnrichedProfile{NetworkID: "n1", PageName: "Anna_Schmidt",
		Title: "CTO", Company: "Rheinbank AG", Email: "anna.schmidt@rheinbank.example", ValidationStatus: person.StatusValid}))
	if p.EmailStale() || p.CurrentEmail() != "anna.schmidt@rheinbank.example" {
		t.Fatalf("enriched again: stale %v, current %q", p.EmailStale(), p.CurrentEmail())
	}
	last := p.History[len(p.History)-1]
	if want := (Drift{Field: DriftEmail, Before: "anna.schmidt@nordlicht.example", After: "anna.schmidt@rheinbank.example", At: day(3), By: "enrich.cto", Call: CallEnrich}); last != want {
		t.Errorf("the e-mail drift %+v, want %+v", last, want)
	}
	// An enrichment that finds no e-mail any more keeps the old one in history.
	mustFold(t, s, enrichEv(day(4), "enrich.cto", "n1", person.EnrichedProfile{NetworkID: "n1", PageName: "Anna_Schmidt", ValidationStatus: person.StatusEmpty}))
	if last := p.History[len(p.History)-1]; last.Field != DriftEmail || last.Before != "anna.schmidt@rheinbank.example" || last.After != "" {
		t.Errorf("the e-mail lost: %+v", last)
	}
}

func TestHistoryMovesWithTheMergedPersonAndLeavesWithThem(t *testing.T) {
	s := New()
	// Known by page name only, with a change of title.
	mustFold(t, s, searchEv(day(0), "search.a", 0, person.Lead{PageName: "anna", FullName: "Anna", Title: "CTO"}))
	mustFold(t, s, searchEv(day(1), "search.a", 0, person.Lead{PageName: "anna", FullName: "Anna", Title: "CEO"}))
	// Her network ID arrives with another title: re-keyed, history kept.
	mustFold(t, s, searchEv(day(2), "search.b", 0, person.Lead{NetworkID: "n1", PageName: "anna", FullName: "Anna", Title: "Founder"}))
	p := s.People["n1"]
	if p == nil || len(p.History) != 2 || p.History[0].After != "CEO" || p.History[1].After != "Founder" {
		t.Fatalf("after the re-key: %+v", p)
	}
	if ld := s.LastDrifts(); len(ld) != 1 || ld[0].PersonID != "n1" {
		t.Errorf("LastDrifts names %+v, want the person's new ID", ld)
	}
	mustFold(t, s, Event{At: day(3), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{Reason: ForgetErasure, PersonIDs: []string{"n1"}}})
	if s.People["n1"] != nil {
		t.Fatal("erased person still in state")
	}
	for id, p := range s.People {
		if len(p.History) > 0 {
			t.Errorf("%s keeps history %+v", id, p.History)
		}
	}
}

// A split search counts, in its record, the people its sub-searches found
// changed in the run, once each.
func TestSplitSearchCountsItsChanges(t *testing.T) {
	s := New()
	for _, e := range []Event{splitEv(day(0), "search.s", []string{}, 300), splitEv(day(0), "search.s", []string{"A"}, 2), splitEv(day(0), "search.s", []string{"B"}, 1)} {
		mustFold(t, s, e)
	}
	if c := s.Searches["search.s"].Changed; c != 0 {
		t.Fatalf("first run: %d changed", c)
	}
	// The next run: s0.A is promoted (seen by the root and its node).
	root := splitEv(day(1), "search.s", []string{}, 300)
	a := splitEv(day(1), "search.s", []string{"A"}, 2)
	for _, ev := range []Event{root, a} {
		for i := range ev.Split.Leads {
			if ev.Split.Leads[i].NetworkID == "s0.A" {
				ev.Split.Leads[i].Title = "CEO"
			}
		}
	}
	a.Split.Leads = append(a.Split.Leads, lead("s0.", "s_0_", "S")) // in the root too; no change
	for _, e := range []Event{root, a, splitEv(day(1), "search.s", []string{"B"}, 1)} {
		mustFold(t, s, e)
	}
	if c := s.Searches["search.s"].Changed; c != 1 {
		t.Errorf("second run: %d changed, want 1", c)
	}
}

// TestChangedSinceEnriched: a change of the lead after the enrichment makes
// it old, unless the enrichment already shows the new value (two records
// of one person merged after it, one enriched with the new job).
func TestChangedSinceEnriched(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	drift := func(field, after string, d time.Duration) Drift {
		return Drift{Field: field, Before: "Old", After: after, At: at.Add(d), By: "search.cto"}
	}
	for _, tc := range []struct {
		name       string
		company    string // the enrichment's
		history    []Drift
		field      string
		want       bool
		noEnriched bool
	}{
		{name: "no enrichment", noEnriched: true, history: []Drift{drift(DriftCompany, "New AG", time.Hour)}, field: DriftCompany},
		{name: "no change", field: DriftCompany},
		{name: "changed before", history: []Drift{drift(DriftCompany, "New AG", -time.Hour)}, field: DriftCompany},
		{name: "changed after", company: "Old AG", history: []Drift{drift(DriftCompany, "New AG", time.Hour)}, field: DriftCompany, want: true},
		{name: "changed after, enrichment without a company", history: []Drift{drift(DriftCompany, "New AG", time.Hour)}, field: DriftCompany, want: true},
		{name: "the enrichment shows it", company: "new ag", history: []Drift{drift(DriftCompany, "New AG", time.Hour)}, field: DriftCompany},
		{name: "another field", company: "Old AG", history: []Drift{drift(DriftTitle, "VP", time.Hour)}, field: DriftCompany},
		{name: "title", history: []Drift{drift(DriftTitle, "VP", time.Hour)}, field: DriftTitle, want: true},
		{name: "out of order", company: "Old AG", history: []Drift{drift(DriftCompany, "New AG", time.Hour), drift(DriftTitle, "VP", -time.Hour)}, field: DriftCompany, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Person{ID: "n1", History: tc.history}
			if !tc.noEnriched {
				p.Enrichment = &Enrichment{EnrichedAt: at, By: "enrich.c", Result: person.EnrichedProfile{Company: tc.company}}
			}
			if got := p.ChangedSinceEnriched(tc.field); got != tc.want {
				t.Errorf("ChangedSinceEnriched(%s) = %v, want %v", tc.field, got, tc.want)
			}
		})
	}
}
