package statetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// T0 is the tests' epoch.
var T0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// Day is T0 plus n days.
func Day(n int) time.Time { return T0.Add(time.Duration(n) * 24 * time.Hour) }

// Lead is a lead with a networkId (or ""), a page name (or "") and a name.
func Lead(nid, page, name string) person.Lead {
	return person.Lead{NetworkID: nid, PageName: page, FullName: name, Title: "CTO"}
}

// SearchEv is a completed search of addr returning leads, kept up to max
// (0: all).
func SearchEv(at time.Time, addr string, max int, leads ...person.Lead) state.Event {
	return state.Event{At: at, Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{
		Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`), Leads: leads, MaxResults: max}}
}

// ProfileEv is a completed profile read of page.
func ProfileEv(at time.Time, addr, page, name string) state.Event {
	return state.Event{At: at, Kind: state.EventProfile, Address: addr, Profile: &state.ProfileEvent{
		Generation: api.Gen1, Request: []byte(`{"pageName":"` + page + `"}`), PageName: page,
		Profile: person.Profile{FullName: name, CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "ACME"}}}}}
}

// EnrichEv is a completed enrichment of the person id, of one credit.
func EnrichEv(at time.Time, addr, id string, res person.EnrichedProfile) state.Event {
	return state.Event{At: at, Kind: state.EventEnrich, Address: addr, Enrich: &state.EnrichEvent{PersonID: id, Credits: 1, Result: res}}
}

// EraseEv erases the people ids (leadsync forget), with extra suppression
// keys.
func EraseEv(at time.Time, keys []string, ids ...string) state.Event {
	return state.Event{At: at, Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: ids, Keys: keys}}
}

// RetentionEv removes the people ids for retention.
func RetentionEv(at time.Time, ids ...string) state.Event {
	return state.Event{At: at, Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: ids}}
}

// UnknownEv is an enrichment of id whose outcome is unknown.
func UnknownEv(addr, id, msg string) state.Event {
	return state.Event{At: Day(1), Kind: state.EventEnrichUnknown, Address: addr,
		Enrich: &state.EnrichEvent{PersonID: id, Credits: 1}, Failure: &state.Failure{Message: msg}}
}

// SplitEv is a sub-search of a search split by one dimension of two values
// (A, B), returning n people.
func SplitEv(at time.Time, addr string, path []string, n int) state.Event {
	dims := []state.SplitDimension{{Param: "industryFilter", Values: []string{"A", "B"}}}
	body := json.RawMessage(`{"keywords":"s"}`)
	leads := make([]person.Lead, n)
	for i := range leads {
		leads[i] = Lead(fmt.Sprintf("s%d.%s", i, strings.Join(path, "")), fmt.Sprintf("s_%d_%s", i, strings.Join(path, "")), "S")
	}
	return state.Event{At: at, Kind: state.EventSplit, Address: addr, Split: &state.SplitEvent{
		Hash: state.SplitHash(api.Gen1, body, dims), Generation: api.Gen1, Request: body, Dimensions: dims, Path: path, Leads: leads}}
}

// DemoEvents are a small apply: searches, a profile read, enrichments
// (one of a person known by page name first), a split search under way.
func DemoEvents() []state.Event {
	return []state.Event{
		SearchEv(Day(0), "search.a", 0, Lead("", "bob", "Bob"), Lead("n1", "ann", "Ann")),
		ProfileEv(Day(0), "profile.p", "carl", "Carl"),
		EnrichEv(Day(0), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1", Email: "a@x.io", CreditBalance: 99}),
		SearchEv(Day(0), "search.b", 0, Lead("n2", "bob", "Bob")),
		EnrichEv(Day(0), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.io", CreditBalance: 98}),
		SplitEv(Day(0), "search.s", []string{}, 300),
		SplitEv(Day(0), "search.s", []string{"A"}, 2),
	}
}

// TrackChange is a track read of person id that finds them at another
// company ("Company n"): one change of their history, the figure the
// history benchmarks measure.
func TrackChange(at time.Time, id string, n int) state.Event {
	return state.Event{At: at, Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{
		PersonID: id, Generation: api.Gen1, Request: json.RawMessage(`{"pageName":"x"}`),
		Profile: &person.Profile{FullName: "Someone", CurrentPosition: []person.Position{{JobTitle: "Chief Technology Officer & Co-Founder", Company: fmt.Sprintf("Company %d (moved)", n)}}}}}
}

// OddPages are page names whose key (state.PageKey, Go's lower case)
// neither SQLite's lower() nor PostgreSQL's in the "C" collation gives:
// letters outside ASCII in capitals, the Kelvin sign (lowered to an ASCII
// k), a title-case digraph; and ASCII ones in mixed case, and none.
var OddPages = []string{"Anna_Mueller", "ÉLISE", "\u212Aim", "ZOË_B", "İlker", "\u01C5emal", "plain", ""}

// OddSearch is a search of addr finding a person of each of OddPages,
// their networkIds "odd<from+i>".
func OddSearch(addr string, from int) state.Event {
	ev := SearchEv(Day(2), addr, 0)
	for i, page := range OddPages {
		ev.Search.Leads = append(ev.Search.Leads, Lead(fmt.Sprintf("odd%d", from+i), page, fmt.Sprintf("Odd %d", from+i)))
	}
	return ev
}
