package pg

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

// bigState is the shape of bench/bigplan: n searches sharing people
// people, a third of them enriched.
func bigState(tb testing.TB, n, people int) *state.State {
	tb.Helper()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := state.New()
	per := people / n
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("c%05d", i)
		body, _ := json.Marshal(api.SearchRequest{Params: map[string]any{"keywords": "CTO", "city": key}})
		leads := make([]person.Lead, per)
		for j := range leads {
			id := fmt.Sprintf("%d.%05x", 10000000+i*per+j, j)
			leads[j] = person.Lead{FirstName: "First", LastName: fmt.Sprint(j), FullName: fmt.Sprintf("First %d", j),
				Title: "CTO", Company: "Company " + key, Location: "Berlin, Germany", NetworkID: id, PageName: "page-" + id}
		}
		if err := s.Fold(state.Event{At: now, Kind: state.EventSearch, Address: `search.cto["` + key + `"]`, Search: &state.SearchEvent{
			Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads, MaxResults: 100}}); err != nil {
			tb.Fatal(err)
		}
		for j, l := range leads {
			if j%3 != 0 {
				continue
			}
			if err := s.Fold(state.Event{At: now, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{
				PersonID: l.NetworkID, Credits: 1, Result: person.EnrichedProfile{PageName: l.PageName, NetworkID: l.NetworkID, FullName: l.FullName,
					Email: "x@example.com", ValidationStatus: person.StatusValid, CompanyDomain: "example.com"}}}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return s
}

// benchWorkspaces holds one pushed big state per size for the whole run
// (pushing 300,000 people takes a while).
var benchWorkspaces = struct {
	sync.Mutex
	cs, schema string
	pushed     map[int]bool
}{pushed: map[int]bool{}}

func benchBackend(b *testing.B, people int) *Backend {
	cs := testConnStr(b)
	w := &benchWorkspaces
	w.Lock()
	defer w.Unlock()
	if w.schema == "" {
		w.cs, w.schema = cs, "bench_"+newID()[:8]
	}
	ws := fmt.Sprintf("p%d", people)
	be := newPG(b, cs, w.schema, ws, alice)
	if !w.pushed[people] {
		mustNoErr(b, be.CreateWorkspace(ws), "create")
		s := bigState(b, max(1, people/60), people)
		mustNoErr(b, be.Push(s, true), "push")
		w.pushed[people] = true
	}
	return be
}

// Each completed call is its own transaction: the event, the rows the
// call before it changed, the serial. Its cost must not grow with the
// workspace.
//
//	source .ci/pg-start && go test ./internal/state/pg/ -run '^$' -bench Append -benchtime 2000x
func BenchmarkAppend(b *testing.B) {
	for _, people := range []int{1000, 300000} {
		b.Run(fmt.Sprintf("people=%d", people), func(b *testing.B) { benchAppend(b, benchBackend(b, people)) })
	}
}

// appendSchema names a schema holding a state of any size (bench/bigplan
// -pg writes one; the benchmark records calls into it) for
// BenchmarkAppendTo.
var appendSchema = flag.String("append-schema", "", "a schema of LEADSYNC_TEST_PG holding a state, for BenchmarkAppendTo (it is written to)")

// BenchmarkAppendTo is Append on the default workspace of the schema
// -append-schema names: a commit's cost at the size of a state
// bench/bigplan wrote, 3,000,000 people for instance (its load takes a
// while and several GB):
//
//	go run ./bench/bigplan -out /tmp/bp3mpg -searches 10000 -people 3000000 -pg "$LEADSYNC_TEST_PG" -pg-schema bp3m
//	go test ./internal/state/pg/ -run '^$' -bench AppendTo -benchtime 1000x -append-schema bp3m
func BenchmarkAppendTo(b *testing.B) {
	if *appendSchema == "" {
		testenv.Skip(b, "-append-schema names no schema")
	}
	benchAppend(b, newPG(b, testConnStr(b), *appendSchema, DefaultWorkspace, alice))
}

// benchAppend records b.N enrichments of people of be's state, each its
// own transaction, then commits.
func benchAppend(b *testing.B, be *Backend) {
	benchAppendOf(b, be, func(i int, id string) state.Event {
		return state.Event{At: t0.Add(time.Duration(i) * time.Second), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{
			PersonID: id, Credits: 1, Result: person.EnrichedProfile{NetworkID: id, Email: fmt.Sprintf("p%d@example.com", i), ValidationStatus: person.StatusValid, CreditBalance: 1000 - i}}}
	}, nil)
}

// benchAppendOf records b.N events made by event (the i-th, of a person
// of be's state), each its own transaction, checked by folded when set,
// then commits.
func benchAppendOf(b *testing.B, be *Backend, event func(i int, id string) state.Event, folded func(s *state.State)) {
	l, err := be.Lock("apply")
	mustNoErr(b, err, "lock")
	defer l.Unlock()
	s, err := be.Load()
	mustNoErr(b, err, "load")
	rec, err := be.OpenJournal(s)
	mustNoErr(b, err, "open")
	ids := make([]string, 0, 4096)
	for id := range s.People {
		if len(ids) == cap(ids) {
			break
		}
		ids = append(ids, id)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := event(i, ids[i%len(ids)])
		if err := rec.Append(&e); err != nil {
			b.Fatal(err)
		}
		if err := s.Fold(e); err != nil {
			b.Fatal(err)
		}
		if folded != nil {
			folded(s)
		}
	}
	b.StopTimer()
	mustNoErr(b, rec.Close(), "close")
	mustNoErr(b, be.Commit(s), "commit")
}

// A track read that finds a new job: its transaction writes the person's
// row and appends one row of history, whatever the size of the state.
//
//	source .ci/pg-start && go test ./internal/state/pg/ -run '^$' -bench AppendTrackChange -benchtime 2000x
func BenchmarkAppendTrackChange(b *testing.B) {
	for _, people := range []int{1000, 300000} {
		b.Run(fmt.Sprintf("people=%d", people), func(b *testing.B) {
			benchAppendOf(b, benchBackend(b, people), func(i int, id string) state.Event {
				return state.Event{At: t0.Add(time.Duration(i) * time.Second), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{
					PersonID: id, Generation: api.Gen1, Request: json.RawMessage(`{"pageName":"x"}`),
					Profile: &person.Profile{FullName: "Someone", CurrentPosition: []person.Position{{JobTitle: "CTO", Company: fmt.Sprintf("Company %d (moved)", i)}}}}}
			}, func(s *state.State) {
				if len(s.LastDrifts()) != 1 {
					b.Fatalf("the read recorded %d changes, want 1", len(s.LastDrifts()))
				}
			})
		})
	}
}

// Load of 300,000 people and 5,000 searches from one snapshot: what plan,
// show and export start with.
//
//	source .ci/pg-start && go test ./internal/state/pg/ -run '^$' -bench Load -benchtime 3x
func BenchmarkLoad(b *testing.B) {
	be := benchBackend(b, 300000)
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		s, err := be.Load()
		if err != nil {
			b.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		if len(s.People) != 300000 {
			b.Fatalf("%d people", len(s.People))
		}
	}
	b.ReportMetric(float64(peak)/1e6, "MB-heap")
}

// state push of 300,000 people and 5,000 searches (COPY, one transaction).
//
//	source .ci/pg-start && go test ./internal/state/pg/ -run '^$' -bench Push -benchtime 1x
func BenchmarkPush(b *testing.B) {
	cs := testConnStr(b)
	be := newPG(b, cs, testSchema(b, cs), "", alice)
	s := bigState(b, 5000, 300000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := be.Push(s, true); err != nil {
			b.Fatal(err)
		}
	}
}

// What a claim costs an apply on pg (claims.go): one claim and one
// release per op, with another workspace's apply holding claims at the
// same time, so that each release is kept for it.
//
//	source .ci/pg-start && go test ./internal/state/pg/ -run '^$' -bench ClaimRelease -benchtime 500x -count 3
func BenchmarkClaimRelease(b *testing.B) {
	cs := testConnStr(b)
	schema := testSchema(b, cs)
	dach := newPG(b, cs, schema, "dach", alice)
	mustNoErr(b, dach.CreateWorkspace("dach"), "create dach")
	mustNoErr(b, dach.CreateWorkspace("uk"), "create uk")
	uk := newPG(b, cs, schema, "uk", bob)
	c, err := dach.Claims("acct")
	mustNoErr(b, err, "claims of dach")
	defer c.Close()
	other, err := uk.Claims("acct")
	mustNoErr(b, err, "claims of uk")
	defer other.Close()
	_, err = other.Claim([]string{"n:other", "p:other"})
	mustNoErr(b, err, "uk's claim")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		keys := []string{fmt.Sprintf("n:%d", i), fmt.Sprintf("p:page-%d", i)}
		got, err := c.Claim(keys)
		if err != nil || !got.Held {
			b.Fatalf("claim %d: %+v %v", i, got, err)
		}
		mustNoErr(b, c.Release(keys, true), "release")
	}
}
