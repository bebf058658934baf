package backendtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// Who identifies a test process as a lock holder.
type Who struct {
	User, Host string
	PID        int
}

// Alice and Bob are two processes (teammates, or one user's two runs).
var (
	Alice = Who{"alice", "laptop", 4242}
	Bob   = Who{"bob", "desk", 777}
)

// Now is the clock of every handle the suite opens; lock times are
// "2026-05-01 13:00:00 UTC".
var Now = statetest.T0.Add(time.Hour)

// At is minute min of the fixture's day.
func At(min int) time.Time { return statetest.T0.Add(time.Duration(min) * time.Minute) }

func lead(nid, page, name string) person.Lead {
	return person.Lead{NetworkID: nid, PageName: page, FullName: name, FirstName: name, Title: "CTO", Company: "ACME & Co"}
}

// Events is an apply's worth of calls exercising every event kind and the
// tricky paths: a person known by page name first and re-keyed by a later
// networkId, a search run twice (people added and removed), a forget, a
// failure cleared by a success, raw items, a split search under way, an
// erasure, an outcome unknown; and, folded, a state in which every field
// of State and of a person is set (Run checks it, so that a field added
// later is added here too, and round-trips).
func Events() []state.Event {
	req := json.RawMessage(`{"keywords": "CTO",  "city":"Berlin"}`)
	raw := []api.RawLead{{Cursor: "c1", Node: api.RawNode{NetworkID: api.RawMember{ID: "n1", PageName: "anna"}, Position: 1}}}
	return append([]state.Event{
		{At: At(1), Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9114, InvoicingStartDate: "2026-05-01"}},
		{At: At(2), Kind: state.EventSearch, Address: `search.cto["Berlin"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: req,
			Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("", "ben", "Ben"), lead("n3", "", "Cleo")}, Raw: raw[:1], MaxResults: 0}},
		{At: At(3), Kind: state.EventProfile, Address: "profile.founder", Profile: &state.ProfileEvent{Generation: api.Gen2,
			Request: json.RawMessage(`{"pageName":"dora"}`), PageName: "dora",
			Profile: person.Profile{FullName: "Dora Day", CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "Dora Inc"}}}}},
		{At: At(4), Kind: state.EventFailure, Address: `search.cto["Paris"]`, Failure: &state.Failure{Message: "HTTP 500 from the service", Status: 500}},
		{At: At(5), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n1", PageName: "anna", FullName: "Anna", Email: "anna@acme.example", ValidationStatus: person.StatusValid, CompanyDomain: "acme.example", CreditBalance: 99}}},
		// Ben gets his networkId: re-keyed from page:ben.
		{At: At(6), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "page:ben", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n2", PageName: "ben", FullName: "Ben", Email: "ben@acme.example", ValidationStatus: person.StatusCatchAll, CreditBalance: 98}}},
		{At: At(7), Kind: state.EventSearch, Address: `search.cto["Paris"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"city":"Paris"}`),
			Leads: []person.Lead{lead("n5", "eve", "Eve"), lead("n1", "anna", "Anna")}, MaxResults: 1}},
		// Berlin again: Cleo is gone, Fay is new.
		{At: At(8), Kind: state.EventSearch, Address: `search.cto["Berlin"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: req,
			Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben"), lead("n6", "fay", "Fay")}}},
		{At: At(9), Kind: state.EventForget, Address: "profile.founder"},
		{At: At(10), Kind: state.EventFailure, Address: "enrich.contacts", Failure: &state.Failure{At: At(10), Message: "timeout"}},
		// A split search (split_by): the root at the cap, one of its two
		// sub-searches; the run stays under way (State.Splits).
		SplitEvent(At(11), nil, api.MaxResults),
		// Fay, enriched, asks to be erased: removed, and on the suppression
		// list; her enrichment keeps counting (State.ErasedEnrichments).
		{At: At(12), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n6", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n6", PageName: "fay", FullName: "Fay", Email: "fay@acme.example", ValidationStatus: person.StatusValid, CreditBalance: 97}}},
		{At: At(12), Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: &state.ForgetPeopleEvent{
			Reason: state.ForgetErasure, PersonIDs: []string{"n6"}, Keys: state.IdentifierKeys("fay")}},
		SplitEvent(At(13), []string{"A"}, 2),
	}, fullEvents()...)
}

// fullEvents set every field of a person: a profile read with every
// field, a lead with every field, an enrichment with every field, each
// filled from the table of person fields (statetest.FullLead, ...), so
// that a field added to the table is set here, and every backend is
// checked to keep it; and an enrichment of unknown outcome and a failure
// that stay, the failure marked (EventMark).
func fullEvents() []state.Event {
	return []state.Event{
		{At: At(14), Kind: state.EventProfile, Address: "profile.cto", Profile: &state.ProfileEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"gus"}`), PageName: "gus", Profile: statetest.FullProfile("gus")}},
		{At: At(15), Kind: state.EventSearch, Address: "search.more", Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"more","raw":true}`), Leads: []person.Lead{statetest.FullLead("hal", "n7", "hal")}, Raw: fullRaw()}},
		{At: At(16), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n7", Credits: 1,
			Result: statetest.FullEnrichment("hal's enrichment", "n7", "hal", 96)}},
		{At: At(17), Kind: state.EventEnrichUnknown, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n5", Credits: 1},
			Failure: &state.Failure{Message: "enrich: network error: connection reset"}},
		// Marked by the recording layer of the operations (State.Marks).
		// Not the last event: a backend must keep the mark when a run is
		// killed after further calls (KilledAtAnyPoint).
		{At: At(18), Kind: state.EventFailure, Address: "search.gone", Failure: &state.Failure{Message: "HTTP 400: bad filter", Status: 400},
			Mark: &state.EventMark{Run: "run-1", Seq: 7}},
		// Hal's history: a track read sees a new job, the next one a
		// private profile; a search sees Anna's new title.
		{At: At(19), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{PersonID: "n7", Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"hal"}`), RequestHash: "h7", Profile: &person.Profile{FullName: "Hal Hix",
				CurrentPosition: []person.Position{{JobTitle: "VP \"Engineering\"", Company: "Gray & Söhne AG"}}}}},
		{At: At(20), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{PersonID: "n7", Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"hal"}`), Profile: &person.Profile{Private: true}}},
		{At: At(21), Kind: state.EventSearch, Address: "search.movers", Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"VP"}`),
			Leads: []person.Lead{{NetworkID: "n1", PageName: "anna", FullName: "Anna", Title: "VP Sales", Company: "ACME & Co"}}}},
		// Ivy, known by page name only, changes title; then her networkId
		// arrives: her history moves with her to her new ID.
		{At: At(22), Kind: state.EventSearch, Address: "search.movers", Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"VP"}`),
			Leads: []person.Lead{{PageName: "ivy", FullName: "Ivy", Title: "Head of Sales"}}}},
		{At: At(23), Kind: state.EventSearch, Address: "search.movers", Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"VP"}`),
			Leads: []person.Lead{{PageName: "ivy", FullName: "Ivy", Title: "VP Sales"}}}},
		{At: At(24), Kind: state.EventSearch, Address: "search.movers", Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"VP"}`),
			Leads: []person.Lead{{NetworkID: "n8", PageName: "ivy", FullName: "Ivy", Title: "CRO"}}}},
		// An import: Anna (known) gets nothing new, Ivy (known, by her page
		// name) an e-mail (enriched at no credit), Jon is adopted without
		// one.
		{At: At(25), Kind: state.EventImport, Address: "import.legacy", Import: &state.ImportEvent{
			File: "legacy/export.csv", Digest: "d1gest", Columns: map[string]string{"profile_url": "LinkedIn URL", "email": "Email"}, Rows: 4,
			People: []state.ImportedPerson{
				{Result: person.EnrichedProfile{NetworkID: "n1", PageName: "anna", Email: "old@acme.example"}, EnrichedAt: ptrTime(At(0))},
				{Result: person.EnrichedProfile{PageName: "ivy", FullName: "Ivy Ives", Company: "Ives AG", Email: "ivy@ives.example",
					ValidationStatus: person.StatusCatchAll, CompanyDomain: "ives.example"}, EnrichedAt: ptrTime(At(24))},
				{Result: person.EnrichedProfile{NetworkID: "n9", PageName: "jon", FullName: "Jon Jay"}},
			}}},
		// Jon's enrichment is copied from workspace dach by enrich.contacts
		// (Enrichment.CopiedBy: it holds one of the block's places).
		{At: At(26), Kind: state.EventReuse, Address: "enrich.contacts", Reuse: &state.ReuseEvent{PersonID: "n9", Workspace: "dach",
			Enrichment: state.Enrichment{EnrichedAt: At(20), By: "enrich.dach", Result: person.EnrichedProfile{NetworkID: "n9", PageName: "jon",
				FullName: "Jon Jay", Email: "jon@jay.example", ValidationStatus: person.StatusValid}}}},
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// fullRaw is a raw search item with every node field of spec 2.3
// (highlight markers included), what the export columns beyond the lead
// read.
func fullRaw() []api.RawLead {
	var raw []api.RawLead
	err := json.Unmarshal([]byte(`[{"cursor": "Y3Vyc29y", "node": {
		"networkId": {"id": "n7", "displayName": "Hal **Hix**", "displayFlag": "BASIC",
			"location": {"displayLocation": "**Köln**, Germany"}, "profileOccupation": {"occupationOrg": "Hix"},
			"occupations": [{"category": "WORK_EXPERIENCE", "summary": "**CTO**", "links": null}, {"category": "EDUCATION", "summary": "TU Köln", "links": null}],
			"pageName": "hal", "profileImage": [{"url": "https://img.example/h_64x64.jpg"}, {"url": "https://img.example/h_256x256.jpg"}]},
		"highlight": {"currentTitle": ["**CTO**"], "haves": null, "city": ["**Köln**"]},
		"trackingToken": "tt", "position": 0, "contains": null, "missing": null,
		"profileSkills": {"topSkills": ["Go", {"name": "SQL"}]},
		"sharedContacts": {"total": 0}, "contactsCount": {"count": 1234},
		"networkRelationship": {"permissions": ["MESSAGE"]}, "contactDistance": {"distance": 2}}}]`), &raw)
	if err != nil {
		panic("backendtest: the raw item of the fixture: " + err.Error())
	}
	return raw
}

// SplitEvent is a sub-search of search.split, split by one dimension of
// two values (A, B), returning n people.
func SplitEvent(when time.Time, path []string, n int) state.Event {
	dims := []state.SplitDimension{{Param: "industryFilter", Values: []string{"A", "B"}}}
	body := json.RawMessage(`{"keywords":"split"}`)
	leads := make([]person.Lead, n)
	for i := range leads {
		leads[i] = lead(fmt.Sprintf("x%d.%v", i, path), fmt.Sprintf("x_%d_%v", i, path), "X")
	}
	if path == nil {
		path = []string{}
	}
	return state.Event{At: when, Kind: state.EventSplit, Address: "search.split", Split: &state.SplitEvent{
		Hash: state.SplitHash(api.Gen1, body, dims), Generation: api.Gen1, Request: body, Dimensions: dims, Path: path, Leads: leads}}
}

// Fold is a new state with evs folded in.
func Fold(t TB, evs []state.Event) *state.State {
	t.Helper()
	s := state.New()
	for i, e := range evs {
		if err := s.Fold(e); err != nil {
			t.Fatalf("fold %d (%s): %v", i, e.Kind, err)
		}
	}
	return s
}

// Canon is s as indented JSON, every object's keys sorted (the request
// bodies and raw items included: a database may keep them as JSON of its
// own), with what legitimately differs between two stores of the same
// content blanked: serial, version, journal mark, lineage.
func Canon(t TB, s *state.State) string {
	t.Helper()
	return canonOf(t, canonJSON(t, s))
}

// SameCanon reports whether a and b have the same Canon, without making
// it when their compact JSON is the same (most calls): a Canon decodes and
// indents the JSON again, 9% of internal/state/local's CPU.
func SameCanon(t TB, a, b *state.State) bool {
	t.Helper()
	ja, jb := canonJSON(t, a), canonJSON(t, b)
	return bytes.Equal(ja, jb) || canonOf(t, ja) == canonOf(t, jb)
}

// canonJSON is s as compact JSON, with what Canon blanks blanked. Canon is
// a function of it: equal bytes make equal Canons (unequal ones may not:
// a database keeps JSON of its own, which Canon then decides).
func canonJSON(t TB, s *state.State) []byte {
	t.Helper()
	c := *s
	c.Serial, c.LeadsyncVersion, c.Journal, c.Lineage = 0, "", nil, "x"
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// canonOf is Canon of the JSON canonJSON made.
func canonOf(t TB, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
