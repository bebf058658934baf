package pg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// testConnStr returns the test server's connection string. Without
// LEADSYNC_TEST_PG the test skips, saying how to run it; under CI (CI=true)
// a skipped pg test would hide a missing server, so it fails instead.
func testConnStr(t testing.TB) string {
	t.Helper()
	cs := os.Getenv("LEADSYNC_TEST_PG")
	if cs == "" {
		const how = "pg tests need a PostgreSQL server: run `source .ci/pg-start` (it sets LEADSYNC_TEST_PG) and go test again"
		if os.Getenv("CI") == "true" {
			t.Fatal("LEADSYNC_TEST_PG is not set under CI; " + how)
		}
		t.Skip(how)
	}
	return cs
}

// testSchema makes a fresh schema name for one test and drops it at the end.
func testSchema(t testing.TB, cs string) string {
	t.Helper()
	name := "t_" + newID()[:12]
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := connect(ctx, cs)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE`); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// who identifies a test process as a lock holder.
type who struct {
	user, host string
	pid        int
}

var alice = who{"alice", "laptop", 4242}
var bob = who{"bob", "desk", 777}

func newPG(t testing.TB, cs, schema, ws string, w who) *Backend {
	t.Helper()
	b, err := New(Options{ConnStr: cs, Schema: schema, Workspace: ws,
		User: func() string { return w.user }, Host: func() string { return w.host }, PID: w.pid,
		Now: func() time.Time { return t0.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// kind is one backend under test, with a way to make a second handle on
// the same state (a teammate, or the same user's next process).
type kind struct {
	name string
	open func(w who) backend.Backend
	pg   bool
}

// kinds returns the local backend and, when a server is there, pg.
func kinds(t *testing.T) []kind {
	dir := t.TempDir()
	local := kind{name: "local", open: func(w who) backend.Backend {
		st := local.NewStore(filepath.Join(dir, ".leadsync", "state.json"))
		st.User, st.Host, st.PID = func() string { return w.user }, func() string { return w.host }, w.pid
		st.Now = func() time.Time { return t0.Add(time.Hour) }
		return st.AsBackend()
	}}
	out := []kind{local}
	if cs := os.Getenv("LEADSYNC_TEST_PG"); cs != "" || os.Getenv("CI") == "true" {
		cs = testConnStr(t)
		schema := testSchema(t, cs)
		out = append(out, kind{name: "pg", pg: true, open: func(w who) backend.Backend { return newPG(t, cs, schema, "", w) }})
	} else {
		t.Log("only the local backend: set LEADSYNC_TEST_PG (source .ci/pg-start) to run these against PostgreSQL too")
	}
	return out
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func lead(nid, page, name string) api.Lead {
	return api.Lead{NetworkID: nid, PageName: page, FullName: name, FirstName: name, Title: "CTO", Company: "ACME & Co"}
}

// events is an apply's worth of calls exercising every event kind and the
// tricky paths: a person known by page name first and re-keyed by a later
// networkId, a search run twice (people added and removed), a forget, a
// failure cleared by a success, raw items.
func events() []state.Event {
	req := json.RawMessage(`{"keywords": "CTO",  "city":"Berlin"}`)
	raw := []api.RawLead{{Cursor: "c1", Node: api.RawNode{NetworkID: api.RawMember{ID: "n1", PageName: "anna"}, Position: 1}}}
	return []state.Event{
		{At: at(1), Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9114, InvoicingStartDate: "2026-05-01"}},
		{At: at(2), Kind: state.EventSearch, Address: `search.cto["Berlin"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: req,
			Leads: []api.Lead{lead("n1", "anna", "Anna"), lead("", "ben", "Ben"), lead("n3", "", "Cleo")}, Raw: raw[:1], MaxResults: 0}},
		{At: at(3), Kind: state.EventProfile, Address: "profile.founder", Profile: &state.ProfileEvent{Generation: api.Gen2,
			Request: json.RawMessage(`{"pageName":"dora"}`), PageName: "dora",
			Profile: api.Profile{FullName: "Dora Day", CurrentPosition: []api.Position{{JobTitle: "Founder", Company: "Dora Inc"}}}}},
		{At: at(4), Kind: state.EventFailure, Address: `search.cto["Paris"]`, Failure: &state.Failure{Message: "HTTP 500 from the service", Status: 500}},
		{At: at(5), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: api.EnrichedProfile{NetworkID: "n1", PageName: "anna", FullName: "Anna", Email: "anna@acme.example", ValidationStatus: api.StatusValid, CompanyDomain: "acme.example", CreditBalance: 99}}},
		// Ben gets his networkId: re-keyed from page:ben.
		{At: at(6), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "page:ben", Credits: 1,
			Result: api.EnrichedProfile{NetworkID: "n2", PageName: "ben", FullName: "Ben", Email: "ben@acme.example", ValidationStatus: api.StatusCatchAll, CreditBalance: 98}}},
		{At: at(7), Kind: state.EventSearch, Address: `search.cto["Paris"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"city":"Paris"}`),
			Leads: []api.Lead{lead("n5", "eve", "Eve"), lead("n1", "anna", "Anna")}, MaxResults: 1}},
		// Berlin again: Cleo is gone, Fay is new.
		{At: at(8), Kind: state.EventSearch, Address: `search.cto["Berlin"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: req,
			Leads: []api.Lead{lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben"), lead("n6", "fay", "Fay")}}},
		{At: at(9), Kind: state.EventForget, Address: "profile.founder"},
		{At: at(10), Kind: state.EventFailure, Address: "enrich.contacts", Failure: &state.Failure{At: at(10), Message: "timeout"}},
		// A split search (split_by): the root at the cap, one of its two
		// sub-searches; the run stays under way (State.Splits).
		splitEvent(at(11), nil, api.MaxResults),
		// Fay, enriched, asks to be erased: removed, and on the suppression
		// list; her enrichment keeps counting (State.ErasedEnrichments).
		{At: at(12), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n6", Credits: 1,
			Result: api.EnrichedProfile{NetworkID: "n6", PageName: "fay", FullName: "Fay", Email: "fay@acme.example", ValidationStatus: api.StatusValid, CreditBalance: 97}}},
		{At: at(12), Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: &state.ForgetPeopleEvent{
			Reason: state.ForgetErasure, PersonIDs: []string{"n6"}, Keys: state.IdentifierKeys("fay")}},
		splitEvent(at(13), []string{"A"}, 2),
	}
}

// splitEvent is a sub-search of search.split, split by one dimension of
// two values (A, B), returning n people.
func splitEvent(when time.Time, path []string, n int) state.Event {
	dims := []state.SplitDimension{{Param: "industryFilter", Values: []string{"A", "B"}}}
	body := json.RawMessage(`{"keywords":"split"}`)
	leads := make([]api.Lead, n)
	for i := range leads {
		leads[i] = lead(fmt.Sprintf("x%d.%v", i, path), fmt.Sprintf("x_%d_%v", i, path), "X")
	}
	if path == nil {
		path = []string{}
	}
	return state.Event{At: when, Kind: state.EventSplit, Address: "search.split", Split: &state.SplitEvent{
		Hash: state.SplitHash(api.Gen1, body, dims), Generation: api.Gen1, Request: body, Dimensions: dims, Path: path, Leads: leads}}
}

// canon is s as the state file's JSON with what legitimately differs
// between two stores of the same content (serial, version, journal mark,
// lineage) blanked.
func canon(t testing.TB, s *state.State) string {
	t.Helper()
	c := *s
	c.Serial, c.LeadsyncVersion, c.Journal, c.Lineage = 0, "", nil, "x"
	var buf bytes.Buffer
	if err := statefile.Encode(&buf, &c); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func mustNoErr(t testing.TB, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}
