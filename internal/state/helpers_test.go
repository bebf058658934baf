package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// The tests of this package cannot import statetest (it imports state):
// these are its helpers they use, kept the same.

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var cmpState = cmp.Options{cmpopts.IgnoreUnexported(State{}),
	cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(compactRaw(a), compactRaw(b)) }),
}

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

func splitEv(at time.Time, addr string, path []string, n int) Event {
	dims := []SplitDimension{{Param: "industryFilter", Values: []string{"A", "B"}}}
	body := json.RawMessage(`{"keywords":"s"}`)
	leads := make([]person.Lead, n)
	for i := range leads {
		leads[i] = lead(fmt.Sprintf("s%d.%s", i, strings.Join(path, "")), fmt.Sprintf("s_%d_%s", i, strings.Join(path, "")), "S")
	}
	return Event{At: at, Kind: EventSplit, Address: addr, Split: &SplitEvent{
		Hash: SplitHash(api.Gen1, body, dims), Generation: api.Gen1, Request: body, Dimensions: dims, Path: path, Leads: leads}}
}

func demoEvents() []Event {
	return []Event{
		searchEv(day(0), "search.a", 0, lead("", "bob", "Bob"), lead("n1", "ann", "Ann")),
		profileEv(day(0), "profile.p", "carl", "Carl"),
		enrichEv(day(0), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1", Email: "a@x.io", CreditBalance: 99}),
		searchEv(day(0), "search.b", 0, lead("n2", "bob", "Bob")),
		enrichEv(day(0), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.io", CreditBalance: 98}),
		splitEv(day(0), "search.s", []string{}, 300),
		splitEv(day(0), "search.s", []string{"A"}, 2),
	}
}
