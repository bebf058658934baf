package statetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/cputime"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// OddState holds the awkward values: escapes, non-ASCII, HTML characters,
// line separators, profiles, raw items, nil and empty lists.
func OddState(t testing.TB) *state.State {
	s := state.New()
	at := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("CET", 3600))
	leads := []person.Lead{
		{FullName: "Zoë \"Q\" O'Brien <&>", FirstName: "Zoë", LastName: "O'Brien\u2028x", Title: "CTO\tand\nCEO\\", NetworkID: "1.a", PageName: "zoe"},
		{FullName: "日本 太郎", PageName: "taro", Company: "\x01ctrl"},
		{FullName: "Nobody"},
	}
	raw := []api.RawLead{}
	Must(t, json.Unmarshal([]byte(`[{"cursor":"c1","node":{"networkId":{"id":"1.a","pageName":"zoe","profileImage":[{"url":"https://img.example/z_64x64.jpg"}],`+
		`"occupations":[{"category":"EDUCATION","summary":"**TU** Köln","links":null}]},"highlight":{"haves":["**Go**"],"city":null},`+
		`"profileSkills":{"topSkills":["Go",{"name":"SQL"}]},"contactsCount":{"count":1234},"sharedContacts":{"total":null},"contactDistance":{"distance":2},`+
		`"networkRelationship":{"permissions":["MESSAGE"]},"extra":[1,2.5e3,null,true]}},{"cursor":"c2"},{"cursor":"c3"}]`), &raw))
	Must(t, s.Fold(state.Event{At: at, Kind: state.EventSearch, Address: `search.x["Köln"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords": "CTO", "city":"Köln"}`), Leads: leads, Raw: raw}}))
	Must(t, s.Fold(state.Event{At: at, Kind: state.EventProfile, Address: "profile.p", Profile: &state.ProfileEvent{Generation: api.Gen2, PageName: "taro", Request: json.RawMessage(`{"pageName":"taro"}`),
		Profile: person.Profile{FullName: "日本 太郎", CurrentPosition: []person.Position{{JobTitle: "Boss", Company: "ACME"}}, Private: true,
			ProfileImg: "https://img.example/taro.jpg?a=1&b=<2>",
			WorkPositionTimeline: []person.TimelinePosition{{JobTitle: "Boss", Company: "ACME", StartDate: "Feb 2024", DaysInPosition: 800},
				{JobTitle: "Intern\u2028", Company: "\"Beta\"", StartDate: "Jan 2016", EndDate: new("Jan 2019"), DaysInPosition: -1}}}}}))
	Must(t, s.Fold(state.Event{At: at, Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "1.a", Credits: 1, Result: person.EnrichedProfile{NetworkID: "1.a", Email: "z@example.com", ProfileImgURL: "https://img.example/z.jpg", CreditBalance: 41}}}))
	Must(t, s.Fold(state.Event{At: at, Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9000, InvoicingStartDate: "2026-03-01"}}))
	// Zoë's history: a new job with awkward characters, then gone.
	later := at.Add(48 * time.Hour)
	Must(t, s.Fold(state.Event{At: later, Kind: state.EventTrack, Address: "track.t", Track: &state.TrackEvent{PersonID: "1.a", Generation: api.Gen1,
		Request: json.RawMessage(`{"pageName":"zoe"}`), Profile: &person.Profile{FullName: "Zoë", CurrentPosition: []person.Position{{JobTitle: "VP \"Ops\"\u2028", Company: "Neue <Firma> & Co."}}}}}))
	Must(t, s.Fold(state.Event{At: later.Add(time.Hour), Kind: state.EventTrack, Address: "track.t", Track: &state.TrackEvent{PersonID: "1.a", Generation: api.Gen1, Gone: true}}))
	if p := s.People["1.a"]; len(p.History) != 2 || p.Status != state.StatusLeft {
		t.Fatalf("oddState: Zoë's history is not as intended: %+v", p.History)
	}
	Must(t, s.Fold(state.Event{At: at, Kind: state.EventFailure, Address: "search.y", Failure: &state.Failure{Message: "500 <boom>", Status: 500}}))
	// A split search completed (the root at the cap, both children under
	// it) and another under way.
	for _, e := range []state.Event{SplitEv(at, "search.s", []string{}, 300), SplitEv(at, "search.s", []string{"A"}, 2), SplitEv(at, "search.s", []string{"B"}, 1),
		SplitEv(at, "search.t", []string{}, 300), SplitEv(at, "search.t", []string{"B"}, 3)} {
		Must(t, s.Fold(e))
	}
	if s.Searches["search.s"].Split == nil || s.Splits["search.t"] == nil {
		t.Fatal("oddState: the split searches are not as intended")
	}
	s.Journal = &state.JournalMark{ID: "j", Seq: 3}
	s.Searches["search.empty"] = &state.Search{Address: "search.empty", LeadIDs: []string{}}
	return s
}

// BigLead is a lead with realistic field sizes.
func BigLead(i int) person.Lead {
	return person.Lead{
		FirstName:     fmt.Sprintf("Firstname%d", i),
		LastName:      fmt.Sprintf("Lastname-%d", i),
		FullName:      fmt.Sprintf("Firstname%d Lastname-%d", i, i),
		Title:         "Chief Technology Officer & Co-Founder",
		Location:      "Berlin, Berlin, Germany",
		PreviousTitle: "VP Engineering",
		Company:       fmt.Sprintf("Company %d GmbH", i%5000),
		NetworkID:     fmt.Sprintf("%d.%016x", 100000+i, uint64(i)*0x9e3779b97f4a7c15),
		PageName:      fmt.Sprintf("firstname-lastname-%d", i),
	}
}

// BigState builds, through Fold, a state of searches*perSearch people found
// by searches searches, every tenth person enriched.
func BigState(tb testing.TB, searches, perSearch int) *state.State {
	tb.Helper()
	s := state.New()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	for i := 0; i < searches; i++ {
		leads := make([]person.Lead, perSearch)
		for j := range leads {
			leads[j] = BigLead(n)
			n++
		}
		e := state.Event{At: at, Kind: state.EventSearch, Address: fmt.Sprintf("search.cto[%q]", fmt.Sprintf("city-%d", i)),
			Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(fmt.Sprintf(`{"city":"city-%d","keywords":"CTO"}`, i)), Leads: leads}}
		if err := s.Fold(e); err != nil {
			tb.Fatal(err)
		}
	}
	k := 0
	for id, p := range s.People {
		if k++; k%10 != 0 {
			continue
		}
		e := state.Event{At: at, Kind: state.EventEnrich, Address: "enrich.all", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1,
			Result: person.EnrichedProfile{NetworkID: id, PageName: p.Lead.PageName, Email: "someone@example.com", ValidationStatus: person.StatusValid, CompanyDomain: "example.com", CreditBalance: 1000}}}
		if err := s.Fold(e); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// Must fails the test on an error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// CmpState compares states by their exported content: raw JSON compacted
// (null is the same as absent).
var CmpState = cmp.Options{cmpopts.IgnoreUnexported(state.State{}),
	cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(compactRaw(a), compactRaw(b)) }),
}

// CmpTime compares times as instants (a time read back from JSON has lost
// its monotonic reading and maybe its zone).
var CmpTime = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

func compactRaw(r json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, r) != nil {
		return r
	}
	if buf.String() == "null" {
		return nil
	}
	return buf.Bytes()
}

// CPUMetric reports the CPU time (user+system) per operation next to the
// wall time: on a shared machine the wall time says more about the
// neighbours than about the code. Call it after ResetTimer and defer what
// it returns.
func CPUMetric(b *testing.B) func() {
	start := cputime.Self()
	return func() {
		b.ReportMetric(float64(cputime.Self()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
